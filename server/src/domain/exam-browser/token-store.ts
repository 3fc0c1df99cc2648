import type { Pool, PoolClient } from 'pg';
import type { Clock } from '../../clock.js';
import { inTransaction, type Queryable, type SqlOnClient } from '../../db/pg-transaction.js';
import { countActivitySql, type ActivityKind } from '../activity/activity-counters.js';
import { open, seal } from '../../security/aead.js';
import { randomToken, sha256Hex } from '../../security/random-token.js';
import { SETTING_MAY_REQUIRE_EXAM_BROWSER, SETTINGS_COLUMNS, settingsJoin, type SettingsRow } from '../settings/settings-codec.js';
import { deriveExamBrowserKey } from '../../security/exam-browser-keys.js';

/**
 * Storage of the flow's tokens (`exb_student_token`) and the statements that read a token together with the settings
 * it is bound to, through the settings codec's columns and join. Tokens are 32 random bytes (43 base64url characters);
 * rows are keyed by their SHA-256, payloads are sealed with AES-256-GCM bound to the row's id, purpose, course, content
 * and fingerprint. These tokens are kept apart from the service's other one-time tokens (`security/one-time-store.ts`)
 * because they are bound to an assessment and a settings fingerprint and are spent in the same statement that reads
 * that assessment's settings.
 *
 * Every expiry is compared with the service clock passed as a parameter (`expires_at > $now`), so lifetimes are
 * exact and a test can move time. Consuming is one conditional UPDATE: of any number of parallel requests on any
 * number of instances exactly one gets the row. A consumption that goes with further writes runs with them in one
 * transaction (`transaction`, and the statements' optional `db`), so a failed write never leaves a token spent.
 */

/**
 * Course reset: deletes every token of the course, open grants, handoffs, proofs and exit grants alike, in the caller's
 * transaction; returns how many.
 */
export async function deleteCourseTokens(tx: SqlOnClient, courseId: string): Promise<number> {
  const result = await tx.execute('delete from exb_student_token where course_id = ?', [courseId], 'run');
  return result.affectedRows;
}

export type ExamTokenPurpose = 'config-grant' | 'launch-handoff' | 'access-proof' | 'exit-grant';

export interface NewExamToken {
  readonly purpose: ExamTokenPurpose;
  readonly courseId: string;
  readonly contentId: string;
  readonly fingerprint: string;
  readonly ttlSeconds: number;
  /** JSON, sealed at rest. */
  readonly payload?: unknown;
  /** A token drawn beforehand (with `randomToken`) because another token's payload names it. */
  readonly token?: string;
}

export interface IssuedExamToken {
  readonly token: string;
  readonly expiresAt: Date;
}

/** A token row read beside its assessment's settings; `null` when the token is unknown, expired, consumed or bound elsewhere. */
export interface TokenRead<T> {
  readonly token: { readonly fingerprint: string; readonly payload: T | null } | null;
  readonly settings: SettingsRow;
}

interface OpenedConfigKey {
  /** The row's `config_key_seq`. */
  readonly seq: string;
  readonly configKey: string;
  /** Epoch milliseconds. */
  readonly expiresAt: number;
  /** When this process opened it, counted over all assessments: {@link ExamTokenStore.knownConfigKeysSince}. */
  readonly position: number;
}

/** The opened Config Keys of one assessment and fingerprint. */
interface AssessmentKeys {
  /** By the rows' `config_key_seq`, which the refresh query leaves out. */
  readonly bySeq: Map<string, OpenedConfigKey>;
  readonly byKey: Map<string, OpenedConfigKey>;
  /** Every entry of `bySeq` (and some expired ones until the next sweep), in the order they were opened. */
  inOrder: OpenedConfigKey[];
  /** When expired keys are next dropped, epoch milliseconds. */
  sweepAt: number;
}

/** Opened Config Keys kept per process: a few hundred per assessment in an exam window, a few megabytes in all. */
const OPENED_KEYS_MAX = 50_000;
/** How often an assessment's expired keys are dropped; until then a lookup skips them. */
const OPENED_KEYS_SWEEP_MS = 60_000;

interface TokenColumns {
  token_fingerprint: string | null;
  token_payload: Buffer | null;
}

const SETTINGS_JOIN = settingsJoin('$3', '$4');

export class ExamTokenStore {
  private readonly payloadKey: Buffer;
  private readonly configKeyKey: Buffer;
  /** Opened Config Keys by assessment and fingerprint. Stored keys never change. */
  private readonly openedKeys = new Map<string, AssessmentKeys>();
  private openedKeyCount = 0;
  private openedPosition = 0;

  constructor(
    private readonly pool: Pool,
    appSecret: Buffer,
    private readonly clock: Clock,
  ) {
    this.payloadKey = deriveExamBrowserKey(appSecret, 'token-payload');
    this.configKeyKey = deriveExamBrowserKey(appSecret, 'config-key');
  }

  /** Runs `work` in one transaction; pass the client it gets as `db` to the statements that belong together. */
  transaction<T>(work: (db: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, work);
  }

  /**
   * Inserts all tokens in one statement and returns them in the same order. With `count`, the same statement counts
   * that step of the assessment's activity (a single token's issue only: the proof, the release's exit grant).
   */
  async issue(tokens: readonly NewExamToken[], db: Queryable = this.pool, count?: ActivityKind): Promise<IssuedExamToken[]> {
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
    const insert = `insert into exb_student_token (id, purpose, course_id, content_id, fingerprint, payload, expires_at)
       values ${rows.join(', ')}`;
    if (count === undefined) await db.query(insert, values);
    else {
      const at = `$${values.length + 1}`;
      const counted = countActivitySql(count, { course: 'course_id', content: 'content_id', at }, 'from issued limit 1');
      await db.query(`with issued as (${insert} returning course_id, content_id) ${counted}`, [...values, new Date(now)]);
    }
    return issued;
  }

  /**
   * Unexpired Config Keys of downloads of an assessment under `fingerprint` that this process has opened since
   * `position` (0: all of them), without a query, and the position to ask from next time. A proof hashes these once
   * and then only the ones opened since; only when none matches does it ask {@link refreshConfigKeys}.
   */
  knownConfigKeysSince(courseId: string, contentId: string, fingerprint: string, position: number): { keys: string[]; next: number } {
    const next = this.openedPosition;
    const known = this.openedKeys.get(openedKeysKey(courseId, contentId, fingerprint));
    if (known === undefined || position >= next) return { keys: [], next };
    const now = this.clock();
    this.sweep(known, now);
    const { inOrder } = known;
    // Positions only grow, so the keys opened since `position` are a tail of `inOrder`.
    let first = inOrder.length;
    while (first > 0 && inOrder[first - 1]!.position >= position) first -= 1;
    const keys: string[] = [];
    for (let index = first; index < inOrder.length; index += 1) {
      const entry = inOrder[index]!;
      if (entry.expiresAt > now) keys.push(entry.configKey);
    }
    return { keys, next };
  }

  /** Whether this process has opened `configKey` for the assessment under `fingerprint` and it has not expired. */
  configKeyKnown(courseId: string, contentId: string, fingerprint: string, configKey: string): boolean {
    const entry = this.openedKeys.get(openedKeysKey(courseId, contentId, fingerprint))?.byKey.get(configKey);
    return entry !== undefined && entry.expiresAt > this.clock();
  }

  /** How many Config Keys this process keeps for the assessment under `fingerprint`, expired ones not yet dropped included. */
  knownConfigKeyCount(courseId: string, contentId: string, fingerprint: string): number {
    return this.openedKeys.get(openedKeysKey(courseId, contentId, fingerprint))?.bySeq.size ?? 0;
  }

  /** Drops the assessment's expired keys, at most once a minute. */
  private sweep(known: AssessmentKeys, now: number): void {
    if (now < known.sweepAt) return;
    known.sweepAt = now + OPENED_KEYS_SWEEP_MS;
    const live = known.inOrder.filter((entry) => entry.expiresAt > now);
    if (live.length === known.inOrder.length) return;
    for (const entry of known.inOrder) {
      if (entry.expiresAt > now) continue;
      known.bySeq.delete(entry.seq);
      if (known.byKey.get(entry.configKey) === entry) known.byKey.delete(entry.configKey);
    }
    this.openedKeyCount -= known.inOrder.length - live.length;
    known.inOrder = live;
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
      values: [courseId, contentId, fingerprint, new Date(this.clock()), known === undefined ? [] : [...known.bySeq.keys()]],
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
        this.openedKeyCount -= entries.inOrder.length;
        this.openedKeys.delete(oldest);
      }
      known = { bySeq: new Map(), byKey: new Map(), inOrder: [], sweepAt: this.clock() + OPENED_KEYS_SWEEP_MS };
      this.openedKeys.set(key, known);
    }
    // A stored key never changes: one seen again (read back by a refresh) is already here.
    if (known.bySeq.has(seq)) return;
    const entry: OpenedConfigKey = { seq, configKey, expiresAt, position: this.openedPosition++ };
    known.bySeq.set(seq, entry);
    known.byKey.set(configKey, entry);
    known.inOrder.push(entry);
    this.openedKeyCount += 1;
  }

  /**
   * Reads an unexpired, unconsumed token of this course and content without consuming it, beside the policy. With
   * `count`, the same statement counts that step when the token is valid and the setting may still require the exam
   * browser (the exit, whose quit redirect is given on exactly that).
   */
  async peekWithPolicy<T>(purpose: ExamTokenPurpose, token: string, courseId: string, contentId: string, count?: ActivityKind): Promise<TokenRead<T>> {
    const id = sha256Hex(token);
    const counted =
      count === undefined
        ? ''
        : `with counted as (${countActivitySql(count, { course: '$3', content: '$4', at: '$5' }, `where exists (
            select 1 from exb_student_token c where c.id = $1 and c.purpose = $2 and c.course_id = $3 and c.content_id = $4
              and c.consumed_at is null and c.expires_at > $5)
            and exists (select 1 from assessment_setting s where s.course_id = $3 and s.content_id = $4
              and ${SETTING_MAY_REQUIRE_EXAM_BROWSER})`)}) `;
    const result = await this.pool.query<SettingsRow & TokenColumns>({
      name: count === undefined ? 'exb-student-token-peek' : `exb-student-token-peek-${count}`,
      text: `${counted}select t.fingerprint as token_fingerprint, t.payload as token_payload, ${SETTINGS_COLUMNS}
        from (select 1) as one
        left join exb_student_token t on t.id = $1 and t.purpose = $2 and t.course_id = $3 and t.content_id = $4
          and t.consumed_at is null and t.expires_at > $5
        ${SETTINGS_JOIN}`,
      values: [id, purpose, courseId, contentId, new Date(this.clock())],
    });
    return this.tokenRead<T>(id, purpose, courseId, contentId, result.rows[0]!);
  }

  /**
   * Consumes an unexpired, unconsumed token of this course and content and reads the policy, in one statement. The
   * token is spent even when the caller then finds the policy changed: a stale token is worthless anyway.
   */
  async consumeWithPolicy<T>(
    purpose: ExamTokenPurpose,
    token: string,
    courseId: string,
    contentId: string,
    db: Queryable = this.pool,
  ): Promise<TokenRead<T>> {
    const id = sha256Hex(token);
    const result = await db.query<SettingsRow & TokenColumns>({
      name: 'exb-student-token-consume',
      text: `with consumed as (
          update exb_student_token set consumed_at = $5
           where id = $1 and purpose = $2 and course_id = $3 and content_id = $4
             and consumed_at is null and expires_at > $5
          returning fingerprint, payload
        )
        select c.fingerprint as token_fingerprint, c.payload as token_payload, ${SETTINGS_COLUMNS}
        from (select 1) as one
        left join consumed c on true
        ${SETTINGS_JOIN}`,
      values: [id, purpose, courseId, contentId, new Date(this.clock())],
    });
    return this.tokenRead<T>(id, purpose, courseId, contentId, result.rows[0]!);
  }

  /**
   * Spends a stateless token (a proof token, `proof-token.ts`, already verified) by recording its id, and reads the
   * policy, in one statement: a conditional insert, so of any number of parallel spends on any number of instances
   * exactly one gets the row. `token` in the answer is `null` when it was spent before. The row expires with the token
   * and is purged like every other.
   */
  async spendStateless(
    purpose: ExamTokenPurpose,
    token: string,
    binding: { courseId: string; contentId: string; fingerprint: string },
    expiresAt: number,
    db: Queryable = this.pool,
    count?: ActivityKind,
  ): Promise<TokenRead<never>> {
    const id = sha256Hex(token);
    // A stateless token is first written when it is spent, so that is where it is counted, in the same statement.
    const counted = count === undefined ? '' : `, counted as (${countActivitySql(count, { course: '$3', content: '$4', at: '$7' }, 'from spent')})`;
    const result = await db.query<SettingsRow & TokenColumns>({
      name: `exb-student-token-spend-stateless${count === undefined ? '' : `-${count}`}`,
      text: `with spent as (
          insert into exb_student_token (id, purpose, course_id, content_id, fingerprint, expires_at, consumed_at)
          values ($1, $2, $3, $4, $5, $6, $7)
          on conflict (id) do nothing
          returning fingerprint
        )${counted}
        select sp.fingerprint as token_fingerprint, null::bytea as token_payload, ${SETTINGS_COLUMNS}
        from (select 1) as one
        left join spent sp on true
        ${SETTINGS_JOIN}`,
      values: [id, purpose, binding.courseId, binding.contentId, binding.fingerprint, new Date(expiresAt), new Date(this.clock())],
    });
    const row = result.rows[0]!;
    return { token: row.token_fingerprint === null ? null : { fingerprint: row.token_fingerprint, payload: null }, settings: row };
  }

  /**
   * Consumes a token not bound to a route's course (the launch handoff key). Returns its binding and payload, or, for a
   * token that exists but was consumed or expired, only its course: what stays reachable afterwards.
   */
  async consumeAnywhere<T>(
    purpose: ExamTokenPurpose,
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
   * Spends a config grant for a download that is ready to be served, in one statement that also keeps the Config Key of
   * a per-download configuration with the grant (when `configKey` is given) and reads the current policy: the grant is
   * spent exactly when the download is recorded, and the caller can refuse a file built for settings that changed
   * meanwhile. Refuses (`spent: false`) a grant that is unknown, expired, already spent or bound to another
   * fingerprint. A stored key also joins this process's opened keys, so a proof arriving here needs no further query.
   */
  async spendConfigGrant(
    grant: string,
    binding: { courseId: string; contentId: string; fingerprint: string },
    configKey: { value: string; ttlSeconds: number } | null,
  ): Promise<{ spent: boolean; settings: SettingsRow }> {
    const { courseId, contentId, fingerprint } = binding;
    const id = sha256Hex(grant);
    const now = this.clock();
    const sealed =
      configKey === null
        ? null
        : seal(this.configKeyKey, Buffer.from(configKey.value, 'utf8'), configKeyBinding(id, courseId, contentId, fingerprint));
    const keyExpiresAt = configKey === null ? null : now + configKey.ttlSeconds * 1000;
    const result = await this.pool.query<SettingsRow & { spent: boolean; config_key_seq: string | null }>({
      name: 'exb-student-spend-config-grant',
      text: `with spent as (
          update exb_student_token
             set consumed_at = $5, config_key_sealed = $7, config_key_expires_at = $8,
                 config_key_seq = case when $7::bytea is null then null else nextval('exb_config_key_seq') end
           where id = $1 and purpose = $2 and course_id = $3 and content_id = $4 and fingerprint = $6
             and consumed_at is null and expires_at > $5
          returning config_key_seq::text as seq
        ),
        counted as (${countActivitySql('download', { course: '$3', content: '$4', at: '$5' }, 'from spent')})
        select exists (select 1 from spent) as spent, sp.seq as config_key_seq, ${SETTINGS_COLUMNS}
        from (select 1) as one
        left join spent sp on true
        ${SETTINGS_JOIN}`,
      values: [id, 'config-grant', courseId, contentId, new Date(now), fingerprint, sealed, keyExpiresAt === null ? null : new Date(keyExpiresAt)],
    });
    const row = result.rows[0]!;
    if (configKey !== null && row.config_key_seq !== null) {
      this.remember(openedKeysKey(courseId, contentId, fingerprint), row.config_key_seq, configKey.value, keyExpiresAt!);
    }
    return { spent: row.spent, settings: row };
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
    purpose: ExamTokenPurpose,
    courseId: string,
    contentId: string,
    row: SettingsRow & TokenColumns,
  ): TokenRead<T> {
    if (row.token_fingerprint === null) return { token: null, settings: row };
    const fingerprint = row.token_fingerprint;
    const payload = this.openPayload<T>(id, { purpose, courseId, contentId, fingerprint }, row.token_payload);
    return { token: { fingerprint, payload }, settings: row };
  }

  private openPayload<T>(
    id: string,
    binding: Pick<NewExamToken, 'purpose' | 'courseId' | 'contentId' | 'fingerprint'>,
    sealed: Buffer | null,
  ): T | null {
    if (sealed === null) return null;
    const plaintext = open(this.payloadKey, sealed, payloadBinding(id, binding));
    return plaintext === null ? null : (JSON.parse(plaintext.toString('utf8')) as T);
  }
}

function payloadBinding(id: string, binding: Pick<NewExamToken, 'purpose' | 'courseId' | 'contentId' | 'fingerprint'>): string {
  return `exb_student_token:${id}:${binding.purpose}:${binding.courseId}:${binding.contentId}:${binding.fingerprint}`;
}

function openedKeysKey(courseId: string, contentId: string, fingerprint: string): string {
  return `${courseId}/${contentId}/${fingerprint}`;
}

function configKeyBinding(id: string, courseId: string, contentId: string, fingerprint: string): string {
  return `exb_student_token:${id}:config-key:${courseId}:${contentId}:${fingerprint}`;
}
