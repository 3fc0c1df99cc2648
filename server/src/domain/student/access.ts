import { hash, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import { approvedTools } from '../settings/effective-settings.js';
import { ConfigurationUnavailableError, type ExamConfigurations } from './configuration.js';
import { PolicyUnreadableError, type PolicyReader, type PolicyRow, type StudentPolicy } from './policy.js';
import type { StudentTokenStore } from './token-store.js';

/**
 * The access proof and the access-code redemption: the only way the access code leaves the service.
 *
 * Proof: the exam browser reports, for the page it shows, `SHA-256(url-without-fragment + ConfigKey)`. The route has
 * already checked that the URL is this assessment's page on the LMS; here the hash is compared in constant time with
 * the Config Key of the configuration for the current settings fingerprint (the same for everyone) and with the keys
 * stored for downloads that carried a session URL under that fingerprint. Keys this process already opened are tried
 * without a query; only when none matches are the keys stored since (by any instance) read, so a proof usually costs
 * the one primary-key lookup of the policy. A configuration downloaded before the last policy change proves nothing.
 * A proof yields a one-time token bound to course, content and fingerprint.
 *
 * Redemption: the token is spent in the statement that reads the current setting, and the code is released only if
 * the setting is still fully active under the same fingerprint (a regenerated code or any policy change retires
 * every proof).
 */

export const PROOF_TOKEN_TTL_SECONDS = 120;
export const EXIT_GRANT_TTL_SECONDS = 43_200;

export interface ApprovedTool {
  id: string;
  label: string;
  url: string;
}

export type ProofOutcome = { ok: true; proofToken: string } | { ok: false; reason: 'not-found' | 'invalid' };

export type RedemptionOutcome =
  | { ok: true; accessCode: string; exitGrant: string; tools: ApprovedTool[] }
  | { ok: false; reason: 'not-found' | 'invalid' };

export interface AccessOptions {
  readonly store: StudentTokenStore;
  readonly reader: PolicyReader;
  readonly configurations: ExamConfigurations;
  readonly logger: Pick<Logger, 'warn'>;
}

export class AccessService {
  constructor(private readonly options: AccessOptions) {}

  /** `url` is the page URL without its fragment, already matched to this assessment. */
  async prove(courseId: string, contentId: string, configKeyHash: string, url: string): Promise<ProofOutcome> {
    const { store } = this.options;
    const policy = this.policyFrom(await store.policy(courseId, contentId));
    if (policy === 'absent') return { ok: false, reason: 'not-found' };
    if (policy === null || !policy.active) return { ok: false, reason: 'invalid' };
    const reported = Buffer.from(configKeyHash, 'hex');
    if (reported.length !== 32) return { ok: false, reason: 'invalid' };

    const { fingerprint } = policy;
    const expected = this.deterministicConfigKey(policy);
    const matched =
      (expected !== null && hashMatchesAny(reported, url, [expected])) ||
      hashMatchesAny(reported, url, store.knownConfigKeys(courseId, contentId, fingerprint)) ||
      hashMatchesAny(reported, url, await store.refreshConfigKeys(courseId, contentId, fingerprint));
    if (!matched) return { ok: false, reason: 'invalid' };

    const [issued] = await store.issue([
      { purpose: 'access-proof', courseId, contentId, fingerprint, ttlSeconds: PROOF_TOKEN_TTL_SECONDS },
    ]);
    return { ok: true, proofToken: issued!.token };
  }

  async redeem(courseId: string, contentId: string, proofToken: string): Promise<RedemptionOutcome> {
    const { store } = this.options;
    const read = await store.consumeWithPolicy('access-proof', proofToken, courseId, contentId);
    const policy = this.policyFrom(read.policy);
    if (policy === 'absent') return { ok: false, reason: 'not-found' };
    if (read.token === null || policy === null || !policy.active || policy.accessCode === null) {
      return { ok: false, reason: 'invalid' };
    }
    if (policy.fingerprint !== read.token.fingerprint) return { ok: false, reason: 'invalid' };
    const [exit] = await store.issue([
      { purpose: 'exit-grant', courseId, contentId, fingerprint: policy.fingerprint, ttlSeconds: EXIT_GRANT_TTL_SECONDS },
    ]);
    return { ok: true, accessCode: policy.accessCode, exitGrant: exit!.token, tools: approvedTools(policy.effective) };
  }

  /** Approved tools of a fully active setting; none otherwise. */
  async tools(courseId: string, contentId: string): Promise<ApprovedTool[]> {
    const policy = this.policyFrom(await this.options.store.policy(courseId, contentId));
    return policy !== 'absent' && policy !== null && policy.active ? approvedTools(policy.effective) : [];
  }

  /** `'absent'` without a setting, `null` for one that cannot be read (never enforced, never released). */
  private policyFrom(row: PolicyRow): StudentPolicy | 'absent' | null {
    try {
      return this.options.reader.fromRow(row) ?? 'absent';
    } catch (error) {
      if (!(error instanceof PolicyUnreadableError)) throw error;
      this.options.logger.warn({ err: error }, 'assessment setting is unreadable; nothing is released');
      return null;
    }
  }

  private deterministicConfigKey(policy: StudentPolicy): string | null {
    try {
      return this.options.configurations.deterministicConfigKey(policy);
    } catch (error) {
      if (!(error instanceof ConfigurationUnavailableError)) throw error;
      return null;
    }
  }
}

/**
 * Whether `reported` is `SHA-256(url + key)` for any key, compared in constant time for each. Every candidate is
 * compared (which one matched is not worth hiding); one-shot hashing keeps a class's worth of keys well under a
 * millisecond.
 */
function hashMatchesAny(reported: Buffer, url: string, keys: readonly string[]): boolean {
  let matched = false;
  for (const key of keys) if (timingSafeEqual(reported, hash('sha256', url + key, 'buffer'))) matched = true;
  return matched;
}
