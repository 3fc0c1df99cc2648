import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import type { Logger } from 'pino';
import type { CoursePrincipal } from '../principal.js';
import { toExbLaunchUrl } from '../../exb/launch-url.js';
import type { LmsConnector } from '../../lms/connector.js';
import { LmsAuthorizationRequiredError, isLmsError } from '../../lms/errors.js';
import { isAccessTokenFresh } from '../../oauth/access-tokens.js';
import type { LmsTokenRepository } from '../../oauth/token-repository.js';
import { randomToken } from '../../security/random-token.js';
import { ConfigurationUnavailableError, type ExamConfigurations } from './configuration.js';
import { PolicyUnreadableError, type PolicyReader, type StudentPolicy } from './policy.js';
import type { StudentTokenStore } from './token-store.js';

/**
 * Config grants and configuration downloads.
 *
 * A grant is a one-time capability for one download, bound to the principal it was minted for, the course, the content
 * id and the settings fingerprint at minting. The exam browser fetches the download URL without the user's cookies, so
 * the grant in its query is all the authorization the download has: `HEAD` checks it without spending it, `GET`
 * spends it in the same statement that reads the current settings, and a grant whose fingerprint no longer matches is
 * refused, so no student ever starts an exam with a configuration the instructor has since changed.
 *
 * A student's configuration starts at a fresh LMS session URL (the student's OAuth grant signs the exam browser into
 * the LMS), so its Config Key is the download's own and is stored with the spent grant for the proof. Instructors, and
 * everyone when the LMS API is not configured, get the configuration that starts at the assessment page; it is the same
 * for everyone under one fingerprint.
 */

export const CONFIG_GRANT_TTL_SECONDS = 120;
/** The handoff page is opened right after minting; it carries the grant, so it lives no longer than the grant. */
export const LAUNCH_HANDOFF_TTL_SECONDS = CONFIG_GRANT_TTL_SECONDS;
/**
 * How long a downloaded configuration can prove: as long as an exit grant lives, the longest an exam-browser session
 * is expected to last. The Config Key kept with the spent grant is worthless after that.
 */
export const DOWNLOADED_CONFIG_KEY_TTL_SECONDS = 43_200;

const SESSION_TOKEN_SCOPE = APPLICATION_SCOPES.find((scope) => scope.endsWith('/login/session_token'))!;
const SESSION_TOKEN_DEADLINE_MS = 10_000;

export type HandoffPurpose = 'assessment' | 'student-list';

export interface GrantPayload {
  /** Who the grant was minted for; the download itself has no session to compare with. */
  principal: { kind: CoursePrincipal['kind']; issuer: string; lmsUserId: string };
  /** The LMS user whose session the configuration starts with, when it carries one. */
  sessionUserId: string | null;
}

export interface HandoffPayload {
  exbLaunchUrl: string;
  purpose: HandoffPurpose;
}

export type MintOutcome =
  | { ok: true; grant: string; exbLaunchUrl: string; handoffUrl: string; expiresInSeconds: number }
  | { ok: false; reason: 'unavailable' | 'certificate-unavailable' | 'session-authorization-required' };

export type DownloadFailure =
  | 'grant-invalid'
  | 'certificate-unavailable'
  | 'policy-unwritable'
  | 'lms-session-authorization-required'
  | 'lms-session-unavailable';

export type DownloadOutcome = { ok: true; bytes: Buffer } | { ok: false; reason: DownloadFailure };

export interface ConfigGrantOptions {
  readonly baseUrl: string;
  readonly store: StudentTokenStore;
  readonly reader: PolicyReader;
  readonly configurations: ExamConfigurations;
  readonly lms: LmsConnector;
  readonly tokens: LmsTokenRepository;
  /** Whether students' configurations carry an LMS session URL (the LMS API is configured). */
  readonly sessionHandoff: boolean;
  readonly logger: Pick<Logger, 'warn' | 'info'>;
}

export class ConfigGrants {
  constructor(private readonly options: ConfigGrantOptions) {}

  /** The download route of an assessment, `{base_url}/exb/config/:courseId/:contentId.exb`. */
  downloadUrl(courseId: string, contentId: string, grant: string): string {
    const url = new URL(`/exb/config/${courseId}/${contentId}.exb`, this.options.baseUrl);
    url.searchParams.set('grant', grant);
    return url.href;
  }

  async mint(principal: CoursePrincipal, contentId: string, purpose: HandoffPurpose): Promise<MintOutcome> {
    const { store, configurations } = this.options;
    const { courseId } = principal;
    const policy = await this.policy(courseId, contentId);
    if (policy === null || !policy.active) return { ok: false, reason: 'unavailable' };
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
    if (withSession && !(await this.sessionAuthorized(principal.lmsUserId))) {
      return { ok: false, reason: 'session-authorization-required' };
    }

    const grant = randomToken();
    const exbLaunchUrl = toExbLaunchUrl(this.downloadUrl(courseId, contentId, grant));
    const binding = { courseId, contentId, fingerprint: policy.fingerprint };
    const grantPayload: GrantPayload = {
      principal: { kind: principal.kind, issuer: principal.issuer, lmsUserId: principal.lmsUserId },
      sessionUserId: withSession ? principal.lmsUserId : null,
    };
    const handoffPayload: HandoffPayload = { exbLaunchUrl, purpose };
    const [, handoff] = await store.issue([
      { ...binding, purpose: 'config-grant', token: grant, ttlSeconds: CONFIG_GRANT_TTL_SECONDS, payload: grantPayload },
      { ...binding, purpose: 'launch-handoff', ttlSeconds: LAUNCH_HANDOFF_TTL_SECONDS, payload: handoffPayload },
    ]);
    return {
      ok: true,
      grant,
      exbLaunchUrl,
      handoffUrl: `/exb/launch-handoff?${new URLSearchParams({ key: handoff!.token })}`,
      expiresInSeconds: CONFIG_GRANT_TTL_SECONDS,
    };
  }

  /** `HEAD`: whether a `GET` with this grant would be served now. Spends nothing. */
  async check(courseId: string, contentId: string, grant: string): Promise<boolean> {
    const read = await this.options.store.peekWithPolicy<GrantPayload>('config-grant', grant, courseId, contentId);
    if (read.token === null || read.token.payload === null) return false;
    const policy = this.policyFrom(read.policy);
    return policy !== null && policy.active && policy.fingerprint === read.token.fingerprint;
  }

  async download(courseId: string, contentId: string, grant: string): Promise<DownloadOutcome> {
    const { store, configurations } = this.options;
    const read = await store.consumeWithPolicy<GrantPayload>('config-grant', grant, courseId, contentId);
    if (read.token === null || read.token.payload === null) return { ok: false, reason: 'grant-invalid' };
    let policy: StudentPolicy | null;
    try {
      policy = this.options.reader.fromRow(read.policy);
    } catch (error) {
      if (!(error instanceof PolicyUnreadableError)) throw error;
      this.options.logger.warn({ err: error, courseId, contentId }, 'assessment setting is unreadable');
      return { ok: false, reason: 'policy-unwritable' };
    }
    if (policy === null || !policy.active || policy.fingerprint !== read.token.fingerprint) {
      return { ok: false, reason: 'grant-invalid' };
    }
    // Checked before the LMS is asked, so no session URL is minted for a file that cannot be encrypted.
    if (!configurations.certificateReady()) return { ok: false, reason: 'certificate-unavailable' };

    let sessionUrl: string | null = null;
    const { sessionUserId } = read.token.payload;
    if (sessionUserId !== null) {
      const session = await this.sessionUrl(sessionUserId, configurations.assessmentUrl(policy));
      if (!session.ok) return session;
      sessionUrl = session.url;
    }

    let built;
    try {
      built = configurations.build(policy, sessionUrl);
    } catch (error) {
      if (!(error instanceof ConfigurationUnavailableError)) throw error;
      this.options.logger.warn({ err: error, courseId, contentId }, 'configuration could not be built');
      return { ok: false, reason: error.reason === 'certificate' ? 'certificate-unavailable' : 'policy-unwritable' };
    }
    if (built.perDownload) {
      await store.storeConfigKey(
        grant,
        { courseId, contentId, fingerprint: policy.fingerprint },
        built.configKey,
        DOWNLOADED_CONFIG_KEY_TTL_SECONDS,
      );
    }
    return { ok: true, bytes: built.bytes };
  }

  private async policy(courseId: string, contentId: string): Promise<StudentPolicy | null> {
    return this.policyFrom(await this.options.store.policy(courseId, contentId));
  }

  private policyFrom(row: Parameters<PolicyReader['fromRow']>[0]): StudentPolicy | null {
    try {
      return this.options.reader.fromRow(row);
    } catch (error) {
      if (!(error instanceof PolicyUnreadableError)) throw error;
      this.options.logger.warn({ err: error }, 'assessment setting is unreadable; treated as unavailable');
      return null;
    }
  }

  /**
   * Whether the student holds an OAuth grant that can mint a session URL: present, readable, not marked for
   * reauthorization, carrying the session-token scope, and either unexpired or refreshable. Decided from the stored
   * record alone, so minting never waits for the LMS.
   */
  private async sessionAuthorized(lmsUserId: string): Promise<boolean> {
    const grant = await this.options.tokens.find(lmsUserId);
    if (grant === null || grant === 'unreadable' || grant.reauthorizationRequired) return false;
    if (!grant.scopes.includes(SESSION_TOKEN_SCOPE)) return false;
    return grant.refreshToken !== null || isAccessTokenFresh(grant.accessTokenExpiresAt);
  }

  private async sessionUrl(
    lmsUserId: string,
    returnTo: string,
  ): Promise<{ ok: true; url: string } | { ok: false; reason: DownloadFailure }> {
    try {
      const session = await this.options.lms
        .forUser(lmsUserId)
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
