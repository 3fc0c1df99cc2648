import type { Pool } from 'pg';
import { open, seal } from '../../security/aead.js';
import { randomToken, sha256Hex } from '../../security/random-token.js';
import type { Clock } from './clock.js';
import { deriveStudentKey } from './keys.js';
import { POLICY_COLUMNS, type PolicyRow } from './policy.js';

/**
 * Storage of the flow's tokens (`exb_student_token`) and the statements that read a token together with the settings
 * it is bound to. Tokens are 32 random bytes (43 base64url characters); rows are keyed by their SHA-256, payloads are
 * sealed with AES-256-GCM bound to the row's id, purpose, course, content and fingerprint.
 *
 * Every expiry is compared with the service clock passed as a parameter (`expires_at > $now`), so lifetimes are
 * exact and a test can move time. Consuming is one conditional UPDATE: of any number of parallel requests on any
 * number of instances exactly one gets the row.
 */

export type StudentTokenPurpose = 'config-grant' | 'launch-handoff' | 'access-proof' | 'exit-grant';

export interface NewStudentToken {
  readonly purpose: StudentTokenPurpose;
  readonly courseId: string;
  readonly contentId: string;
  readonly fingerprint: string;
  readonly ttlSeconds: number;
  /** JSON, sealed at rest. */
  readonly payload?: unknown;
  /** A token drawn beforehand (with `randomToken`) because another token's payload names it. */
  readonly token?: string;
}

export interface IssuedStudentToken {
  readonly token: string;
  readonly expiresAt: Date;
}

/** A token row read beside its policy; `null` when the token is unknown, expired, consumed or bound elsewhere. */
export interface TokenRead<T> {
  readonly token: { readonly fingerprint: string; readonly payload: T | null } | null;
  readonly policy: PolicyRow;
}

interface OpenedConfigKey {
  readonly configKey: string;
  /** Epoch milliseconds. */
  readonly expiresAt: number;
}

/** Opened Config Keys kept per process: a few hundred per assessment in an exam window, a few megabytes in all. */
const OPENED_KEYS_MAX = 50_000;

interface TokenColumns {
  token_fingerprint: string | null;
  token_payload: Buffer | null;
}

const POLICY_JOIN = `
  left join assessment_setting s on s.course_id = $3 and s.content_id = $4
  left join course_defaults d on d.course_id = s.course_id`;

export class StudentTokenStore {
  private readonly payloadKey: Buffer;
  private readonly configKeyKey: Buffer;
  /** Opened Config Keys by assessment and fingerprint, then by sequence number. Stored keys never change. */
  private readonly openedKeys = new Map<string, Map<string, OpenedConfigKey>>();
  private openedKeyCount = 0;

  constructor(
    private readonly pool: Pool,
    appSecret: Buffer,
    private readonly clock: Clock,
  ) {
    this.payloadKey = deriveStudentKey(appSecret, 'token-payload');
    this.configKeyKey = deriveStudentKey(appSecret, 'config-key');
  }

  /** Inserts all tokens in one statement and returns them in the same order. */
  async issue(tokens: readonly NewStudentToken[]): Promise<IssuedStudentToken[]> {
    const now = this.clock();
    const values: unknown[] = [];
    const rows: string[] = [];
    const issued = tokens.map((spec) => {
      const token = spec.token ?? randomToken();
      const id = sha256Hex(token);
      const expiresAt = new Date(now + spec.ttlSeconds * 1000);
      const payload =
        spec.payload === undefined
          ? null
          : seal(this.payloadKey, Buffer.from(JSON.stringify(spec.payload), 'utf8'), payloadBinding(id, spec));
      const base = values.length;
      rows.push(`($${base + 1}, $${base + 2}, $${base + 3}, $${base + 4}, $${base + 5}, $${base + 6}, $${base + 7})`);
      values.push(id, spec.purpose, spec.courseId, spec.contentId, spec.fingerprint, payload, expiresAt);
      return { token, expiresAt };
    });
    await this.pool.query(
      `insert into exb_student_token (id, purpose, course_id, content_id, fingerprint, payload, expires_at)
       values ${rows.join(', ')}`,
      values,
    );
    return issued;
  }

  /** The policy of one assessment. */
  async policy(courseId: string, contentId: string): Promise<PolicyRow> {
    const result = await this.pool.query<PolicyRow>({
      name: 'exb-student-policy',
      text: `select ${POLICY_COLUMNS} from (select 1) as one
        left join assessment_setting s on s.course_id = $1 and s.content_id = $2
        left join course_defaults d on d.course_id = s.course_id`,
      values: [courseId, contentId],
    });
    return result.rows[0] as PolicyRow;
  }

  /**
   * Unexpired Config Keys of downloads of an assessment under `fingerprint` that this process has opened, without a
   * query: a proof tries these first, and only when none matches asks {@link refreshConfigKeys}.
   */
  knownConfigKeys(courseId: string, contentId: string, fingerprint: string): string[] {
    const known = this.openedKeys.get(openedKeysKey(courseId, contentId, fingerprint));
    if (known === undefined) return [];
    const now = this.clock();
    const keys: string[] = [];
    for (const [seq, entry] of known) {
      if (entry.expiresAt > now) keys.push(entry.configKey);
      else known.delete(seq);
    }
    return keys;
  }

  /**
   * Reads and opens the unexpired Config Keys of an assessment and fingerprint this process has not opened yet (stored
   * by another instance, or since the last look), in one statement; returns only those.
   */
  async refreshConfigKeys(courseId: string, contentId: string, fingerprint: string): Promise<string[]> {
    const key = openedKeysKey(courseId, contentId, fingerprint);
    const known = this.openedKeys.get(key);
    const result = await this.pool.query<{ id: string; seq: string; sealed: Buffer; expires_at: Date }>({
      name: 'exb-student-refresh-config-keys',
      text: `select id, config_key_seq::text as seq, config_key_sealed as sealed, config_key_expires_at as expires_at
        from exb_student_token
        where course_id = $1 and content_id = $2 and fingerprint = $3 and config_key_sealed is not null
          and config_key_expires_at > $4 and not (config_key_seq = any($5::bigint[]))`,
      values: [courseId, contentId, fingerprint, new Date(this.clock()), known === undefined ? [] : [...known.keys()]],
    });
    const added: string[] = [];
    for (const row of result.rows) {
      const plaintext = open(this.configKeyKey, row.sealed, configKeyBinding(row.id, courseId, contentId, fingerprint));
      // A key that does not open was not written by this service for this row; it proves nothing.
      if (plaintext === null) continue;
      const configKey = plaintext.toString('utf8');
      this.remember(key, row.seq, configKey, new Date(row.expires_at).getTime());
      added.push(configKey);
    }
    return added;
  }

  private remember(key: string, seq: string, configKey: string, expiresAt: number): void {
    let known = this.openedKeys.get(key);
    if (known === undefined) {
      // Whole assessments are dropped, oldest first, once the process keeps too many keys.
      while (this.openedKeyCount >= OPENED_KEYS_MAX && this.openedKeys.size > 0) {
        const [oldest, entries] = this.openedKeys.entries().next().value!;
        this.openedKeyCount -= entries.size;
        this.openedKeys.delete(oldest);
      }
      known = new Map();
      this.openedKeys.set(key, known);
    }
    if (!known.has(seq)) this.openedKeyCount += 1;
    known.set(seq, { configKey, expiresAt });
  }

  /** Reads an unexpired, unconsumed token of this course and content without consuming it, beside the policy. */
  async peekWithPolicy<T>(purpose: StudentTokenPurpose, token: string, courseId: string, contentId: string): Promise<TokenRead<T>> {
    const id = sha256Hex(token);
    const result = await this.pool.query<PolicyRow & TokenColumns>({
      name: 'exb-student-token-peek',
      text: `select t.fingerprint as token_fingerprint, t.payload as token_payload, ${POLICY_COLUMNS}
        from (select 1) as one
        left join exb_student_token t on t.id = $1 and t.purpose = $2 and t.course_id = $3 and t.content_id = $4
          and t.consumed_at is null and t.expires_at > $5
        ${POLICY_JOIN}`,
      values: [id, purpose, courseId, contentId, new Date(this.clock())],
    });
    return this.tokenRead<T>(id, purpose, courseId, contentId, result.rows[0]!);
  }

  /**
   * Consumes an unexpired, unconsumed token of this course and content and reads the policy, in one statement. The
   * token is spent even when the caller then finds the policy changed: a stale token is worthless anyway.
   */
  async consumeWithPolicy<T>(purpose: StudentTokenPurpose, token: string, courseId: string, contentId: string): Promise<TokenRead<T>> {
    const id = sha256Hex(token);
    const result = await this.pool.query<PolicyRow & TokenColumns>({
      name: 'exb-student-token-consume',
      text: `with consumed as (
          update exb_student_token set consumed_at = $5
           where id = $1 and purpose = $2 and course_id = $3 and content_id = $4
             and consumed_at is null and expires_at > $5
          returning fingerprint, payload
        )
        select c.fingerprint as token_fingerprint, c.payload as token_payload, ${POLICY_COLUMNS}
        from (select 1) as one
        left join consumed c on true
        ${POLICY_JOIN}`,
      values: [id, purpose, courseId, contentId, new Date(this.clock())],
    });
    return this.tokenRead<T>(id, purpose, courseId, contentId, result.rows[0]!);
  }

  /**
   * Consumes a token not bound to a route's course (the launch handoff key). Returns its binding and payload, or, for a
   * token that exists but was consumed or expired, only its course: what stays reachable afterwards.
   */
  async consumeAnywhere<T>(
    purpose: StudentTokenPurpose,
    token: string,
  ): Promise<{ courseId: string; contentId: string; payload: T | null; consumed: boolean } | null> {
    const id = sha256Hex(token);
    const result = await this.pool.query<{
      course_id: string;
      content_id: string;
      fingerprint: string;
      payload: Buffer | null;
      fresh: boolean;
    }>(
      `with consumed as (
          update exb_student_token set consumed_at = $3
           where id = $1 and purpose = $2 and consumed_at is null and expires_at > $3
          returning course_id, content_id, fingerprint, payload
        )
        select course_id, content_id, fingerprint, payload, true as fresh from consumed
        union all
        select course_id, content_id, fingerprint, null, false from exb_student_token
         where id = $1 and purpose = $2 and not exists (select 1 from consumed)`,
      [id, purpose, new Date(this.clock())],
    );
    const row = result.rows[0];
    if (row === undefined) return null;
    const payload = row.fresh
      ? this.openPayload<T>(id, { purpose, courseId: row.course_id, contentId: row.content_id, fingerprint: row.fingerprint }, row.payload)
      : null;
    return { courseId: row.course_id, contentId: row.content_id, payload, consumed: !row.fresh || payload === null };
  }

  /**
   * Keeps the Config Key of a downloaded configuration with the grant that downloaded it, and among this process's
   * opened keys, so a proof arriving here needs no further query.
   */
  async storeConfigKey(
    grant: string,
    binding: { courseId: string; contentId: string; fingerprint: string },
    configKey: string,
    ttlSeconds: number,
  ): Promise<void> {
    const id = sha256Hex(grant);
    const sealed = seal(
      this.configKeyKey,
      Buffer.from(configKey, 'utf8'),
      configKeyBinding(id, binding.courseId, binding.contentId, binding.fingerprint),
    );
    const expiresAt = this.clock() + ttlSeconds * 1000;
    const result = await this.pool.query<{ seq: string }>({
      name: 'exb-student-store-config-key',
      text: `update exb_student_token
          set config_key_sealed = $2, config_key_expires_at = $3, config_key_seq = nextval('exb_config_key_seq')
        where id = $1 and purpose = 'config-grant' and course_id = $4 and content_id = $5 and fingerprint = $6
        returning config_key_seq::text as seq`,
      values: [id, sealed, new Date(expiresAt), binding.courseId, binding.contentId, binding.fingerprint],
    });
    const row = result.rows[0];
    if (row === undefined) throw new Error('the consumed grant is gone; its Config Key cannot be stored');
    this.remember(openedKeysKey(binding.courseId, binding.contentId, binding.fingerprint), row.seq, configKey, expiresAt);
  }

  /** Deletes rows no token or Config Key can be used from any more; returns how many. */
  async purgeExpired(olderThanSeconds = 3600): Promise<number> {
    const cutoff = new Date(this.clock() - olderThanSeconds * 1000);
    const result = await this.pool.query(
      `delete from exb_student_token
        where expires_at < $1 and (config_key_expires_at is null or config_key_expires_at < $1)`,
      [cutoff],
    );
    return result.rowCount ?? 0;
  }

  private tokenRead<T>(
    id: string,
    purpose: StudentTokenPurpose,
    courseId: string,
    contentId: string,
    row: PolicyRow & TokenColumns,
  ): TokenRead<T> {
    if (row.token_fingerprint === null) return { token: null, policy: row };
    const fingerprint = row.token_fingerprint;
    const payload = this.openPayload<T>(id, { purpose, courseId, contentId, fingerprint }, row.token_payload);
    return { token: { fingerprint, payload }, policy: row };
  }

  private openPayload<T>(
    id: string,
    binding: Pick<NewStudentToken, 'purpose' | 'courseId' | 'contentId' | 'fingerprint'>,
    sealed: Buffer | null,
  ): T | null {
    if (sealed === null) return null;
    const plaintext = open(this.payloadKey, sealed, payloadBinding(id, binding));
    return plaintext === null ? null : (JSON.parse(plaintext.toString('utf8')) as T);
  }
}

function payloadBinding(id: string, binding: Pick<NewStudentToken, 'purpose' | 'courseId' | 'contentId' | 'fingerprint'>): string {
  return `exb_student_token:${id}:${binding.purpose}:${binding.courseId}:${binding.contentId}:${binding.fingerprint}`;
}

function openedKeysKey(courseId: string, contentId: string, fingerprint: string): string {
  return `${courseId}/${contentId}/${fingerprint}`;
}

function configKeyBinding(id: string, courseId: string, contentId: string, fingerprint: string): string {
  return `exb_student_token:${id}:config-key:${courseId}:${contentId}:${fingerprint}`;
}
