import { isBase64UrlToken } from '@exb/shared/base64url-token.js';
import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { CONFIG_DOWNLOAD_ROUTE, LAUNCH_HANDOFF_ROUTE, servicePath, SESSION_START_ROUTE } from '@exb/shared/service-paths.js';
import type { Logger } from 'pino';
import type { CoursePrincipal } from '../../identity/principal.js';
import { SEB_CONFIG_FILE } from '../../exb/config-file-type.js';
import { toExbLaunchUrl } from '../../exb/launch-url.js';
import type { GrantHolder, LmsConnector } from '../../lms/connector.js';
import { LmsAuthorizationRequiredError, isLmsError } from '../../lms/errors.js';
import type { IdentityService } from '../../identity/identity-service.js';
import { grantBelongsTo, isAccessTokenFresh } from '../../oauth/access-tokens.js';
import type { LmsTokenRepository } from '../../oauth/token-repository.js';
import { randomToken } from '../../security/random-token.js';
import { ConfigurationUnavailableError, type ExamConfigurations } from './configuration.js';
import { activePolicy, RECENT_POLICY_MAX_AGE_MS, type PolicyReader } from './exam-policy.js';
import { EXIT_GRANT_TTL_SECONDS } from './proof-redemption.js';
import type { ExamTokenStore } from './token-store.js';

/**
 * Config grants and configuration downloads.
 *
 * A grant is a one-time capability for one download, bound to the principal it was minted for, the course, the content
 * id and the settings fingerprint at minting. The exam browser fetches the download URL without the user's cookies, so
 * the grant in its query is all the authorization the download has: `HEAD` checks it without spending it, `GET`
 * spends it, once the file is ready, in the same statement that reads the current settings, and a grant whose
 * fingerprint no longer matches is refused, so no student ever starts an exam with a configuration the instructor has
 * since changed.
 *
 * A student's configuration starts at a one-time session start of the service, issued with the download: when the
 * exam browser opens it, the service asks the LMS for a session URL with the student's OAuth grant and redirects there,
 * which signs the exam browser into the LMS. The LMS accepts a session token only for 30 seconds after minting it, so
 * it is minted when the exam browser's first page loads, not when the file is downloaded (a start password, a
 * "reconfigure?" dialog or a slow start take longer). Its Config Key is the download's own (the start URL is in it) and
 * is stored with the spent grant for the proof. With session handoff, an instructor's download starts at the
 * assessment page marked with a random value of its own, so it too has a stored key of its own that proves for
 * {@link DOWNLOADED_CONFIG_KEY_TTL_SECONDS}: then no configuration that is the same for several people proves. When the
 * LMS API is not configured, everyone gets the configuration that starts at the assessment page; it is the same for
 * everyone under one fingerprint, and its Config Key is the one that proves.
 */

export const CONFIG_GRANT_TTL_SECONDS = 120;
/** The handoff page is opened right after minting; it carries the grant, so it lives no longer than the grant. */
export const LAUNCH_HANDOFF_TTL_SECONDS = CONFIG_GRANT_TTL_SECONDS;
/**
 * How long a downloaded configuration can prove: as long as an exit grant lives, the longest an exam-browser session
 * is expected to last. The Config Key kept with the spent grant is worthless after that.
 */
export const DOWNLOADED_CONFIG_KEY_TTL_SECONDS = EXIT_GRANT_TTL_SECONDS;

/**
 * How long a session start can wait for the exam browser's first page after the download: a start password, the
 * "reconfigure?" dialog and a slow start fit easily; a file opened much later is downloaded again.
 */
export const SESSION_START_TTL_SECONDS = 15 * 60;
export const SESSION_START_PATH = SESSION_START_ROUTE.path;

const SESSION_TOKEN_SCOPE = APPLICATION_SCOPES.find((scope) => scope.endsWith('/login/session_token'))!;
const SESSION_TOKEN_DEADLINE_MS = 10_000;

export type HandoffPurpose = 'assessment' | 'student-list';

export interface GrantPayload {
  /** Who the grant was minted for; the download itself has no session to compare with. */
  principal: { kind: CoursePrincipal['kind']; issuer: string; lmsUserId: string; ltiSubject: string };
  /** The LMS user whose session the configuration starts with, when it carries one. */
  sessionUserId: string | null;
}

export interface HandoffPayload {
  exbLaunchUrl: string;
  purpose: HandoffPurpose;
}

/** The launch handoff page's key: unknown, already used (the course is still known), or ready to open the exam browser. */
export type HandoffOutcome =
  | { readonly kind: 'unknown' }
  | { readonly kind: 'used'; readonly courseId: string }
  | ({ readonly kind: 'ready'; readonly courseId: string } & HandoffPayload);

export type MintOutcome =
  | { ok: true; grant: string; exbLaunchUrl: string; handoffUrl: string; expiresInSeconds: number }
  | { ok: false; reason: 'unavailable' | 'course-unproven' | 'certificate-unavailable' | 'session-authorization-required' };

export type DownloadFailure = 'grant-invalid' | 'certificate-unavailable' | 'policy-unwritable';

export type DownloadOutcome = { ok: true; bytes: Buffer } | { ok: false; reason: DownloadFailure };

/** Who a session start signs in: the LMS user of the grant the download was minted for. */
interface SessionStartPayload {
  holder: GrantHolder;
}

/** The exam browser's first page: redirected to the LMS session URL, or why not. */
export type SessionStartOutcome =
  | { ok: true; sessionUrl: string }
  | { ok: false; reason: 'unknown' | 'foreign' | 'used' | 'expired' | 'lms-session-authorization-required' | 'lms-session-unavailable' };

export interface ConfigGrantOptions {
  readonly baseUrl: string;
  readonly store: ExamTokenStore;
  readonly reader: PolicyReader;
  readonly configurations: ExamConfigurations;
  readonly lms: LmsConnector;
  readonly tokens: LmsTokenRepository;
  readonly identity: Pick<IdentityService, 'courseProvenForReading'>;
  /**
   * Whether students' configurations carry an LMS session URL (the LMS API is configured): then every download has a
   * Config Key of its own.
   */
  readonly sessionHandoff: boolean;
  readonly logger: Pick<Logger, 'warn' | 'info'>;
}

export class ConfigGrants {
  constructor(private readonly options: ConfigGrantOptions) {}

  /**
   * The download route of an assessment under its `.seb` name, `{base_url}/exb/config/:courseId/:contentId.seb`, so
   * that Safe Exam Browser takes the link for a configuration inside its own browser too (`exb/config-file-type.ts`).
   */
  downloadUrl(courseId: string, contentId: string, grant: string): string {
    const url = new URL(servicePath(CONFIG_DOWNLOAD_ROUTE, [courseId, `${contentId}${SEB_CONFIG_FILE.extension}`]), this.options.baseUrl);
    url.searchParams.set('grant', grant);
    return url.href;
  }

  async mint(principal: CoursePrincipal, contentId: string, purpose: HandoffPurpose): Promise<MintOutcome> {
    const { store, configurations } = this.options;
    const { courseId } = principal;
    // The course id came from a custom field: until the LMS proved it for the signed context, it names nothing.
    if (!(await this.options.identity.courseProvenForReading(principal))) return { ok: false, reason: 'course-unproven' };
    // A second-old policy is good enough here: the grant is bound to its fingerprint, which the download compares with
    // the setting it reads, so a grant minted just before a change downloads nothing.
    const policy = activePolicy(await this.options.reader.loadRecent(courseId, contentId, RECENT_POLICY_MAX_AGE_MS));
    if (policy === null) return { ok: false, reason: 'unavailable' };
    try {
      // Validates the policy once per fingerprint: a grant is never handed out for a configuration that cannot be built.
      configurations.deterministicConfigKey(policy);
    } catch (error) {
      if (!(error instanceof ConfigurationUnavailableError)) throw error;
      this.options.logger.warn({ err: error, courseId, contentId }, 'assessment policy cannot be written as a configuration');
      return { ok: false, reason: 'unavailable' };
    }
    if (!configurations.certificateReady()) return { ok: false, reason: 'certificate-unavailable' };

    const withSession = principal.kind === 'student' && this.options.sessionHandoff;
    if (withSession && !(await this.sessionAuthorized(principal))) {
      return { ok: false, reason: 'session-authorization-required' };
    }

    const grant = randomToken();
    const exbLaunchUrl = toExbLaunchUrl(this.downloadUrl(courseId, contentId, grant));
    const binding = { courseId, contentId, fingerprint: policy.fingerprint };
    const grantPayload: GrantPayload = {
      principal: { kind: principal.kind, issuer: principal.issuer, lmsUserId: principal.lmsUserId, ltiSubject: principal.ltiSubject },
      sessionUserId: withSession ? principal.lmsUserId : null,
    };
    const handoffPayload: HandoffPayload = { exbLaunchUrl, purpose };
    // A student's tokens name them, in the clear, so each step of their way in is recorded for them (and a
    // re-admission finds them); the same statement records the grant.
    const lmsUserId = principal.kind === 'student' ? principal.lmsUserId : null;
    const [, handoff] = await store.issue(
      [
        { ...binding, purpose: 'config-grant', token: grant, ttlSeconds: CONFIG_GRANT_TTL_SECONDS, payload: grantPayload, lmsUserId },
        { ...binding, purpose: 'launch-handoff', ttlSeconds: LAUNCH_HANDOFF_TTL_SECONDS, payload: handoffPayload, lmsUserId },
      ],
      lmsUserId === null ? undefined : { courseId, contentId, lmsUserId, name: principal.name ?? null },
    );
    return {
      ok: true,
      grant,
      exbLaunchUrl,
      handoffUrl: `${LAUNCH_HANDOFF_ROUTE.path}?${new URLSearchParams({ key: handoff!.token })}`,
      expiresInSeconds: CONFIG_GRANT_TTL_SECONDS,
    };
  }

  /** Spends a launch handoff key: the handoff page opens the exam browser once. */
  async openHandoff(key: unknown, signal?: AbortSignal): Promise<HandoffOutcome> {
    const consumed = isBase64UrlToken(key) ? await this.options.store.consumeAnywhere<HandoffPayload>('launch-handoff', key, signal) : null;
    if (consumed === null) return { kind: 'unknown' };
    if (consumed.consumed || consumed.payload === null) return { kind: 'used', courseId: consumed.courseId };
    return { kind: 'ready', courseId: consumed.courseId, ...consumed.payload };
  }

  /** `HEAD`: whether a `GET` with this grant would be served now. Spends nothing. */
  async check(courseId: string, contentId: string, grant: string): Promise<boolean> {
    const read = await this.options.store.peekWithPolicy<GrantPayload>('config-grant', grant, courseId, contentId);
    if (read.token === null || read.token.payload === null) return false;
    const policy = activePolicy(this.options.reader.read(read.settings));
    return policy !== null && policy.fingerprint === read.token.fingerprint;
  }

  /**
   * Everything that can fail (the policy, the certificate, the LMS session URL, the encryption) happens before the grant
   * is spent, so a download that fails through no fault of the student's leaves the link usable for a retry. The grant
   * is then spent in the statement that records the download; of parallel downloads only one gets that far.
   */
  async download(courseId: string, contentId: string, grant: string, signal?: AbortSignal): Promise<DownloadOutcome> {
    const { store, configurations } = this.options;
    const read = await store.peekWithPolicy<GrantPayload>('config-grant', grant, courseId, contentId);
    if (read.token === null || read.token.payload === null) return { ok: false, reason: 'grant-invalid' };
    const settings = this.options.reader.read(read.settings);
    if (settings === 'unreadable') return { ok: false, reason: 'policy-unwritable' };
    const policy = activePolicy(settings);
    if (policy === null || policy.fingerprint !== read.token.fingerprint) {
      return { ok: false, reason: 'grant-invalid' };
    }
    // Checked before the LMS is asked, so no session URL is minted for a file that cannot be encrypted.
    if (!configurations.certificateReady()) return { ok: false, reason: 'certificate-unavailable' };

    // The file names its session start; the start is issued with the spend below, so it exists only for a recorded download.
    let start: { token: string; ttlSeconds: number; payload: SessionStartPayload } | null = null;
    const { sessionUserId, principal } = read.token.payload;
    if (sessionUserId !== null) {
      const holder = { lmsUserId: sessionUserId, issuer: principal.issuer, ltiSubject: principal.ltiSubject };
      start = { token: randomToken(), ttlSeconds: SESSION_START_TTL_SECONDS, payload: { holder } };
    }

    let startUrl: string | null = null;
    if (start !== null) startUrl = this.sessionStartUrl(courseId, contentId, start.token);
    else if (this.options.sessionHandoff) startUrl = configurations.ownAssessmentUrl(policy, randomToken());
    let built;
    try {
      built = configurations.build(policy, startUrl);
    } catch (error) {
      if (!(error instanceof ConfigurationUnavailableError)) throw error;
      this.options.logger.warn({ err: error, courseId, contentId }, 'configuration could not be built');
      return { ok: false, reason: error.reason === 'certificate' ? 'certificate-unavailable' : 'policy-unwritable' };
    }
    const { fingerprint } = policy;
    const spent = await store.spendConfigGrant(
      grant,
      { courseId, contentId, fingerprint },
      built.perDownload ? { value: built.configKey, ttlSeconds: DOWNLOADED_CONFIG_KEY_TTL_SECONDS } : null,
      start,
      signal,
    );
    // Another download took the grant meanwhile, it expired, or the settings changed while the file was built.
    const current = spent.spent ? activePolicy(this.options.reader.read(spent.settings)) : null;
    if (current === null || current.fingerprint !== fingerprint) {
      return { ok: false, reason: 'grant-invalid' };
    }
    return { ok: true, bytes: built.bytes };
  }

  /** A download's session start, `{base_url}/exb/session-start/:courseId/:contentId?key=…`: the configuration's start URL. */
  sessionStartUrl(courseId: string, contentId: string, key: string): string {
    const url = new URL(servicePath(SESSION_START_ROUTE, [courseId, contentId]), this.options.baseUrl);
    url.searchParams.set('key', key);
    return url.href;
  }

  /**
   * The exam browser opens the configuration's start URL: the session start is taken, a session URL minted for the
   * student it was issued for, and the exam browser goes there within the LMS's 30 seconds. When the LMS does not give
   * one, the start is given back, so a reload (or a start after the student reconnected their account) can use it.
   */
  async startSession(courseId: string, contentId: string, key: unknown, signal?: AbortSignal): Promise<SessionStartOutcome> {
    if (!isBase64UrlToken(key)) return { ok: false, reason: 'unknown' };
    const { store } = this.options;
    signal?.throwIfAborted();
    const taken = await store.takeSessionStart<SessionStartPayload>(key, courseId, contentId);
    if (taken.kind !== 'taken') return { ok: false, reason: taken.kind };
    const returnTo = this.options.configurations.assessmentUrl({ courseId, contentId });
    const session = await this.sessionUrl(taken.payload.holder, returnTo);
    if (!session.ok) {
      await store.returnSessionStart(key, taken.takenAt);
      return { ok: false, reason: session.reason };
    }
    // The exam browser gave up while the LMS minted: the start is given back for its retry.
    if (signal?.aborted) {
      await store.returnSessionStart(key, taken.takenAt);
      signal.throwIfAborted();
    }
    return { ok: true, sessionUrl: session.url };
  }

  /**
   * Whether the student holds an OAuth grant that can mint a session URL: present, readable, not marked for
   * reauthorization, bound to the student's signed identity, carrying the session-token scope, and either unexpired
   * or refreshable. Decided from the stored record alone, so minting never waits for the LMS.
   */
  private async sessionAuthorized(holder: GrantHolder): Promise<boolean> {
    const grant = await this.options.tokens.find(holder.lmsUserId);
    if (grant === null || grant === 'unreadable' || grant.reauthorizationRequired) return false;
    if (!grantBelongsTo(grant, holder)) return false;
    if (!grant.scopes.includes(SESSION_TOKEN_SCOPE)) return false;
    return grant.refreshToken !== null || isAccessTokenFresh(grant.accessTokenExpiresAt);
  }

  private async sessionUrl(
    holder: GrantHolder,
    returnTo: string,
  ): Promise<{ ok: true; url: string } | { ok: false; reason: 'lms-session-authorization-required' | 'lms-session-unavailable' }> {
    try {
      const session = await this.options.lms
        .forPrincipal(holder)
        .createSessionToken(returnTo, { deadlineMs: SESSION_TOKEN_DEADLINE_MS });
      return { ok: true, url: session.sessionUrl };
    } catch (error) {
      if (error instanceof LmsAuthorizationRequiredError) {
        this.options.logger.info({ reason: error.reason }, 'LMS session URL refused: student authorization required');
        return { ok: false, reason: 'lms-session-authorization-required' };
      }
      if (isLmsError(error)) {
        this.options.logger.warn({ code: error.code, status: error.status }, 'LMS session URL could not be obtained');
        return { ok: false, reason: 'lms-session-unavailable' };
      }
      throw error;
    }
  }
}
