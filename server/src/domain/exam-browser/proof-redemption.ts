import { hash, timingSafeEqual } from 'node:crypto';
import { approvedTools } from '../settings/effective-settings.js';
import { ConfigurationUnavailableError, type ExamConfigurations } from './configuration.js';
import { activePolicy, RECENT_POLICY_MAX_AGE_MS, type PolicyReader, type ExamPolicy } from './exam-policy.js';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { ProofTokens, VerifiedProof } from './proof-token.js';
import type { ExamTokenStore } from './token-store.js';

/**
 * The access proof and the access-code redemption: the only way the access code leaves the service.
 *
 * Proof: the exam browser reports, for the page it shows, `SHA-256(url-without-fragment + ConfigKey)`. The route has
 * already checked that the URL is this assessment's page on the LMS; here the hash is compared in constant time with
 * the keys stored for downloads of their own under the current settings fingerprint and, only without session handoff
 * (where every download is the deterministic configuration), with that configuration's Config Key, the same for
 * everyone. With session handoff nobody is given the deterministic configuration, so its key proves nothing: every
 * download, an instructor's too, has a stored key that proves until it expires. Keys this process already opened are
 * tried without a query; only when none matches are the keys stored since (by any instance) read, so a proof usually
 * costs the one primary-key lookup of the policy. A configuration downloaded before the last policy change proves
 * nothing. A proof yields a one-time token bound to course, content and fingerprint; it is signed, not stored
 * (`proof-token.ts`), so a proof costs no database write.
 *
 * Redemption: the token's signature and expiry are checked in process, then one statement spends it (a conditional
 * insert of its id), issues the exit grant, counts both steps and reads the current setting: one round trip, and one
 * transaction, so a failed write never costs the proof. The code is released only if the setting is still fully active
 * under the same fingerprint (a regenerated code or any policy change retires every proof); a grant the statement
 * issued for a setting refused here is withdrawn. A proof made with a stored key is spent only while that key is still
 * valid (a re-admission voids it), and the same statement records the proof and the release for the key's student.
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

export interface ProofRedemptionOptions {
  readonly store: ExamTokenStore;
  readonly reader: PolicyReader;
  readonly configurations: ExamConfigurations;
  readonly proofTokens: ProofTokens;
  /** The service clock; proof lifetimes are measured with it. */
  readonly clock: Clock;
  /** Whether downloads carry keys of their own (`ConfigGrantOptions.sessionHandoff`): then only stored keys prove. */
  readonly sessionHandoff: boolean;
  readonly logger: Pick<Logger, 'warn'>;
}

/** Assessments whose last seen fingerprint a process keeps for verifying proof tokens without a query. */
const RECENT_FINGERPRINTS_MAX = 20_000;

/** Assessment and page pairs whose key hashes a process keeps, and how many stale hashes one may hold. */
const HASH_INDEXES_MAX = 2_000;
const HASH_INDEX_SLACK = 1_000;

interface HashIndex {
  /** Hash of the page URL with a Config Key (base64) → that key. */
  readonly byHash: Map<string, string>;
  /** The store's position after the last key hashed (`OpenedConfigKeys.knownSince`). */
  next: number;
}

export class ProofRedemption {
  /** Assessment, fingerprint and page URL → hashes of the page with each opened Config Key. */
  private readonly hashIndexes = new Map<string, HashIndex>();
  /** Course/content → the settings fingerprint this process last read for it. */
  private readonly recentFingerprints = new Map<string, string>();

  constructor(private readonly options: ProofRedemptionOptions) {}

  /** `url` is the page URL without its fragment, already matched to this assessment. */
  async prove(courseId: string, contentId: string, configKeyHash: string, url: string): Promise<ProofOutcome> {
    const { store } = this.options;
    // A second-old policy is good enough here: the token is bound to its fingerprint, which the redemption compares
    // with the setting it reads.
    const read = await this.options.reader.loadRecent(courseId, contentId, RECENT_POLICY_MAX_AGE_MS);
    if (read === 'absent') return { ok: false, reason: 'not-found' };
    const policy = activePolicy(read);
    if (policy === null) return { ok: false, reason: 'invalid' };
    const reported = Buffer.from(configKeyHash, 'hex');
    if (reported.length !== 32) return { ok: false, reason: 'invalid' };

    const { fingerprint } = policy;
    this.rememberFingerprint(courseId, contentId, fingerprint);
    const expected = this.options.sessionHandoff ? null : this.deterministicConfigKey(policy);
    if (expected !== null && matchingKey(reported, url, [expected]) !== null) {
      return { ok: true, proofToken: this.issueToken({ courseId, contentId, fingerprint }) };
    }
    const stored =
      this.matchesKnown(reported, url, { courseId, contentId, fingerprint }) ??
      matchingKey(reported, url, await store.configKeys.refresh(courseId, contentId, fingerprint));
    if (stored === null) return { ok: false, reason: 'invalid' };
    // The token names the stored key that proved, so the redemption knows whose download it was.
    const keySeq = store.configKeys.seqOf(courseId, contentId, fingerprint, stored);
    return { ok: true, proofToken: this.issueToken({ courseId, contentId, fingerprint }, keySeq) };
  }

  /** A proof token for this binding, valid for {@link PROOF_TOKEN_TTL_SECONDS} from now, naming the stored key that proved. */
  issueToken(binding: { courseId: string; contentId: string; fingerprint: string }, keySeq: string | null = null): string {
    return this.options.proofTokens.issue(binding, this.options.clock() + PROOF_TOKEN_TTL_SECONDS * 1000, keySeq);
  }

  async redeem(courseId: string, contentId: string, proofToken: string, signal?: AbortSignal): Promise<RedemptionOutcome> {
    const { store, reader } = this.options;
    const signed = await this.signedFor(courseId, contentId, proofToken);
    if (signed === 'absent') return { ok: false, reason: 'not-found' };
    if (signed === null || signed.expiresAt <= this.options.clock()) return { ok: false, reason: 'invalid' };
    const { fingerprint, expiresAt, keySeq } = signed;
    const proof = { provenAt: expiresAt - PROOF_TOKEN_TTL_SECONDS * 1000, keySeq };
    const spent = await store.spendProofAndRelease(proofToken, { courseId, contentId, fingerprint }, expiresAt, EXIT_GRANT_TTL_SECONDS, proof, signal);
    const current = reader.read(spent.settings);
    const policy = current === 'absent' ? null : activePolicy(current);
    const { exit } = spent;
    if (exit !== null && policy !== null && policy.accessCode !== null && policy.fingerprint === spent.token?.fingerprint) {
      return { ok: true, accessCode: policy.accessCode, exitGrant: exit.token, tools: approvedTools(policy.effective) };
    }
    // The statement decides on what SQL can see; a setting that changed since the proof, or whose code cannot be opened,
    // is refused here, and a grant issued for it is taken back. The refusal stands either way: the grant was never
    // revealed, so a withdrawal that fails leaves an unusable row and one release too many in the counters.
    if (exit !== null) {
      await store.withdrawRelease(exit).catch((error: unknown) => {
        this.options.logger.warn({ err: error, courseId, contentId }, 'exit grant of a refused redemption could not be withdrawn');
      });
    }
    return { ok: false, reason: current === 'absent' ? 'not-found' : 'invalid' };
  }

  /**
   * The fingerprint and expiry a proof token is signed for. The fingerprint this process last saw for the assessment
   * is tried first, without a query; otherwise (or when it does not verify) the current policy's. Which one verifies
   * only says what the token was made for: the spending statement still compares it with the setting it reads.
   */
  private async signedFor(
    courseId: string,
    contentId: string,
    token: string,
  ): Promise<({ fingerprint: string } & VerifiedProof) | 'absent' | null> {
    const { proofTokens } = this.options;
    const key = `${courseId}/${contentId}`;
    const recent = this.recentFingerprints.get(key);
    if (recent !== undefined) {
      const verified = proofTokens.verify(token, { courseId, contentId, fingerprint: recent });
      if (verified !== null) return { fingerprint: recent, ...verified };
    }
    const read = await this.options.reader.load(courseId, contentId);
    if (read === 'absent') return 'absent';
    if (typeof read !== 'object') return null;
    this.rememberFingerprint(courseId, contentId, read.fingerprint);
    if (read.fingerprint === recent) return null;
    const verified = proofTokens.verify(token, { courseId, contentId, fingerprint: read.fingerprint });
    return verified === null ? null : { fingerprint: read.fingerprint, ...verified };
  }

  /**
   * Whether `reported` is the hash of `url` with one of this process's unexpired opened keys of the assessment. The
   * hashes of a page URL with each key are kept, and only keys opened since the last proof are hashed, so a class
   * proving on the same quiz page costs one hash per new key and a lookup per proof, however many keys the class has;
   * the matching key must still be known and unexpired, and the match is confirmed in constant time. Returns that key.
   */
  private matchesKnown(reported: Buffer, url: string, binding: { courseId: string; contentId: string; fingerprint: string }): string | null {
    const { store } = this.options;
    const { courseId, contentId, fingerprint } = binding;
    const indexKey = `${courseId}/${contentId}/${fingerprint}\n${url}`;
    let index = this.hashIndexes.get(indexKey);
    if (index === undefined) {
      if (this.hashIndexes.size >= HASH_INDEXES_MAX) this.hashIndexes.clear();
      index = { byHash: new Map(), next: 0 };
      this.hashIndexes.set(indexKey, index);
    }
    if (index.byHash.size > store.configKeys.count(courseId, contentId, fingerprint) + HASH_INDEX_SLACK) {
      // Many keys expired since: start over rather than keep hashes of keys that prove nothing any more.
      index.byHash.clear();
      index.next = 0;
    }
    const added = store.configKeys.knownSince(courseId, contentId, fingerprint, index.next);
    for (const key of added.keys) index.byHash.set(hash('sha256', url + key, 'base64'), key);
    index.next = added.next;
    const candidate = index.byHash.get(reported.toString('base64'));
    if (candidate === undefined || !store.configKeys.isKnown(courseId, contentId, fingerprint, candidate)) return null;
    return matchingKey(reported, url, [candidate]);
  }

  private rememberFingerprint(courseId: string, contentId: string, fingerprint: string): void {
    if (this.recentFingerprints.size >= RECENT_FINGERPRINTS_MAX) this.recentFingerprints.clear();
    this.recentFingerprints.set(`${courseId}/${contentId}`, fingerprint);
  }

  /** Approved tools of a fully active setting; none otherwise. */
  async tools(courseId: string, contentId: string): Promise<ApprovedTool[]> {
    const policy = activePolicy(await this.options.reader.load(courseId, contentId));
    return policy === null ? [] : approvedTools(policy.effective);
  }

  private deterministicConfigKey(policy: ExamPolicy): string | null {
    try {
      return this.options.configurations.deterministicConfigKey(policy);
    } catch (error) {
      if (!(error instanceof ConfigurationUnavailableError)) throw error;
      return null;
    }
  }
}

/**
 * The key for which `reported` is `SHA-256(url + key)`, compared in constant time for each; `null` when none is. Every
 * candidate is compared (which one matched is not worth hiding); one-shot hashing keeps a class's worth of keys well
 * under a millisecond.
 */
function matchingKey(reported: Buffer, url: string, keys: readonly string[]): string | null {
  let matched: string | null = null;
  for (const key of keys) if (timingSafeEqual(reported, hash('sha256', url + key, 'buffer'))) matched = key;
  return matched;
}
