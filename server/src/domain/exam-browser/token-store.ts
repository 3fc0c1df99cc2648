import type { Pool } from 'pg';
import type { Clock } from '../../clock.js';
import type { SqlOnClient } from '../../db/pg-transaction.js';
import { countActivitiesSql, countActivitySql, withdrawReleaseSql, type ActivityKind } from '../activity/activity-counters.js';
import { open, seal } from '../../security/aead.js';
import { randomToken, sha256Hex } from '../../security/random-token.js';
import { OpenedConfigKeys } from './opened-config-keys.js';
import { SETTING_MAY_RELEASE_CODE, SETTING_MAY_REQUIRE_EXAM_BROWSER, settingsJoin } from '../settings/settings-codec.js';
import { SETTINGS_TEXT_COLUMN } from '../settings/settings-text.js';
import { deriveExamBrowserKey } from '../../security/exam-browser-keys.js';
import { recordStepsSql, withdrawReleaseStepSql } from '../exam-day/student-steps.js';

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
 * number of instances exactly one gets the row. A consumption that goes with further writes makes them in the same
 * statement (data-modifying CTEs), so a failed write never leaves a token spent and costs no further round trip.
 *
 * The spending methods take the request's signal (`http/kit/client-signal.ts`) and send nothing once it has aborted: a
 * token is never spent for a client that is gone.
 */

/**
 * Course reset: deletes every token of the course, open grants, handoffs, proofs and exit grants alike, in the caller's
 * transaction; returns how many.
 */
export async function deleteCourseTokens(tx: SqlOnClient, courseId: string): Promise<number> {
  const result = await tx.execute('delete from exb_student_token where course_id = ?', [courseId], 'run');
  return result.affectedRows;
}

export type ExamTokenPurpose = 'config-grant' | 'launch-handoff' | 'access-proof' | 'exit-grant' | 'session-start';

/** The session start a download issues with its spend: drawn before the file is built, because the file names it. */
export interface NewSessionStart {
  readonly token: string;
  readonly ttlSeconds: number;
  /** JSON, sealed at rest. */
  readonly payload: unknown;
}

/** A session start opened by the exam browser: taken for this request, or why not. */
export type SessionStartTake<T> =
  | { readonly kind: 'taken'; readonly payload: T; readonly takenAt: Date }
  | { readonly kind: 'unknown' | 'foreign' | 'used' | 'expired' };

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
  /** The student the token belongs to (not secret): the exam-day record names them, a re-admission voids by it. */
  readonly lmsUserId?: string | null;
}

export interface IssuedExamToken {
  readonly token: string;
  readonly expiresAt: Date;
}

/** A release's exit grant as the redemption's statement issued it, with what {@link ExamTokenStore.withdrawRelease} needs. */
export interface IssuedRelease extends IssuedExamToken {
  readonly courseId: string;
  readonly contentId: string;
  readonly releasedAt: Date;
  /** The assessment's last release time before this one. */
  readonly priorReleaseAt: Date | null;
}

/** A token row read beside its assessment's settings; `null` when the token is unknown, expired, consumed or bound elsewhere. */
export interface TokenRead<T> {
  readonly token: { readonly fingerprint: string; readonly payload: T | null } | null;
  /** The assessment's settings as one text (`settings/settings-text.ts`), for `PolicyReader.read`. */
  readonly settings: string;
}

interface SettingsTextColumn {
  settings_text: string;
}

interface TokenColumns {
  token_fingerprint: string | null;
  token_payload: Buffer | null;
}

const SETTINGS_JOIN = settingsJoin('$3', '$4');

export class ExamTokenStore {
  private readonly payloadKey: Buffer;
  /** The Config Keys of per-download configurations, kept with their spent config grants. */
  readonly configKeys: OpenedConfigKeys;

  constructor(
    private readonly pool: Pool,
    appSecret: Buffer,
    private readonly clock: Clock,
  ) {
    this.payloadKey = deriveExamBrowserKey(appSecret, 'token-payload');
    this.configKeys = new OpenedConfigKeys(pool, deriveExamBrowserKey(appSecret, 'config-key'), clock);
  }

  /**
   * Inserts all tokens in one statement and returns them in the same order. With `granted`, the same statement records
   * the student's configuration grant in their exam-day record, with the name the launch gave (a student who starts
   * from the course page has no launch of the assessment to name them).
   */
  async issue(
    tokens: readonly NewExamToken[],
    granted?: { courseId: string; contentId: string; lmsUserId: string; name: string | null },
  ): Promise<IssuedExamToken[]> {
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
      rows.push(`(${Array.from({ length: 8 }, (_, index) => `$${base + index + 1}`).join(', ')})`);
      values.push(id, spec.purpose, spec.courseId, spec.contentId, spec.fingerprint, payload, expiresAt, spec.lmsUserId ?? null);
      return { token, expiresAt };
    });
    const insert = `insert into exb_student_token (id, purpose, course_id, content_id, fingerprint, payload, expires_at, lms_user_id) values ${rows.join(', ')}`;
    if (granted === undefined) {
      await this.pool.query(insert, values);
      return issued;
    }
    const base = values.length;
    values.push(granted.courseId, granted.contentId, granted.lmsUserId, new Date(now), granted.name);
    const [course, content, student, at, name] = [1, 2, 3, 4, 5].map((offset) => `$${base + offset}`) as [string, string, string, string, string];
    await this.pool.query(`with issued as (${insert}) ${recordStepsSql({ grant: at }, { course, content, student, at, name }, '')}`, values);
    return issued;
  }

  /**
   * Reads an unexpired, unconsumed token of this course and content without consuming it, beside the policy. With
   * `count`, the same statement counts that step when the token is valid and the setting may still require the exam
   * browser (the exit, whose quit redirect is given on exactly that).
   */
  async peekWithPolicy<T>(purpose: ExamTokenPurpose, token: string, courseId: string, contentId: string, count?: ActivityKind): Promise<TokenRead<T>> {
    const id = sha256Hex(token);
    // The step counts, and is recorded for the token's student, when the token is valid and the setting may still
    // require the exam browser.
    const valid = `from exb_student_token c where c.id = $1 and c.purpose = $2 and c.course_id = $3 and c.content_id = $4
              and c.consumed_at is null and c.expires_at > $5
              and exists (select 1 from assessment_setting s where s.course_id = $3 and s.content_id = $4
                and ${SETTING_MAY_REQUIRE_EXAM_BROWSER})`;
    const counted =
      count === undefined
        ? ''
        : `with counted as (${countActivitySql(count, { course: '$3', content: '$4', at: '$5' }, `where exists (select 1 ${valid})`)}),
          stepped as (${recordStepsSql({ [count]: '$5' }, { course: '$3', content: '$4', student: 'c.lms_user_id', at: '$5' }, `${valid} and c.lms_user_id is not null`)}) `;
    const result = await this.pool.query<SettingsTextColumn & TokenColumns>({
      name: count === undefined ? 'exb-student-token-peek' : `exb-student-token-peek-${count}`,
      text: `${counted}select t.fingerprint as token_fingerprint, t.payload as token_payload, ${SETTINGS_TEXT_COLUMN}
        from (select 1) as one
        left join exb_student_token t on t.id = $1 and t.purpose = $2 and t.course_id = $3 and t.content_id = $4
          and t.consumed_at is null and t.expires_at > $5
        ${SETTINGS_JOIN}`,
      values: [id, purpose, courseId, contentId, new Date(this.clock())],
    });
    return this.tokenRead<T>(id, purpose, courseId, contentId, result.rows[0]!);
  }

  /**
   * The redemption's one statement. Spends a proof token (`proof-token.ts`, already verified) by recording its id: a
   * conditional insert, so of any number of parallel spends on any number of instances exactly one gets the row. Where
   * it does and the setting may still release a code (enabled, requiring the exam browser, with a code), the same
   * statement issues the release's exit grant and counts the proof and the release; it reads the policy beside them.
   * One statement is one transaction: when any of its writes fails, the proof stays unspent. `token` in the answer is
   * `null` when the proof was spent before; `exit` is `null` when no grant was issued. The caller decides on the decoded
   * policy and hands back, with {@link withdrawRelease}, a grant issued for a setting it then refuses.
   */
  async spendProofAndRelease(
    token: string,
    binding: { courseId: string; contentId: string; fingerprint: string },
    expiresAt: number,
    exitTtlSeconds: number,
    proof: { provenAt: number; keySeq: string | null },
    signal?: AbortSignal,
  ): Promise<{ token: { fingerprint: string } | null; settings: string; exit: IssuedRelease | null }> {
    const id = sha256Hex(token);
    const exitToken = randomToken();
    const now = this.clock();
    const exitExpiresAt = new Date(now + exitTtlSeconds * 1000);
    signal?.throwIfAborted();
    const result = await this.pool.query<SettingsTextColumn & { token_fingerprint: string | null; released: boolean; prior_release_at: Date | null }>({
      name: 'exb-student-token-spend-proof-and-release',
      text: `with proven_key as (
          select k.lms_user_id from exb_student_token k
           where k.config_key_seq = $9::bigint and k.course_id = $3 and k.content_id = $4 and k.config_key_expires_at > $7
        ),
        spent as (
          insert into exb_student_token (id, purpose, course_id, content_id, fingerprint, expires_at, consumed_at, lms_user_id)
          select $1, 'access-proof', $3, $4, $5, $6, $7, (select lms_user_id from proven_key)
           where $9::bigint is null or exists (select 1 from proven_key)
          on conflict (id) do nothing
          returning fingerprint, lms_user_id
        ),
        released as (
          insert into exb_student_token (id, purpose, course_id, content_id, fingerprint, expires_at, lms_user_id)
          select $2, 'exit-grant', $3, $4, $5, $8, spent.lms_user_id from spent
           where exists (select 1 from assessment_setting s where s.course_id = $3 and s.content_id = $4
             and ${SETTING_MAY_RELEASE_CODE})
          returning id
        ),
        counted as (${countActivitiesSql(
          { proof: '1', release: 'r.n' },
          { course: '$3', content: '$4', at: '$7' },
          'from spent cross join (select count(*)::int as n from released) as r',
        )}),
        stepped as (${recordStepsSql(
          { proof: '$10', release: 'case when r.n > 0 then $7::timestamptz end' },
          { course: '$3', content: '$4', student: 'spent.lms_user_id', at: '$7' },
          'from spent cross join (select count(*)::int as n from released) as r where spent.lms_user_id is not null',
        )})
        select sp.fingerprint as token_fingerprint,
               exists (select 1 from released) as released,
               (select last_release_at from exb_assessment_activity where course_id = $3 and content_id = $4) as prior_release_at,
               ${SETTINGS_TEXT_COLUMN}
        from (select 1) as one
        left join spent sp on true
        ${SETTINGS_JOIN}`,
      values: [
        id,
        sha256Hex(exitToken),
        binding.courseId,
        binding.contentId,
        binding.fingerprint,
        new Date(expiresAt),
        new Date(now),
        exitExpiresAt,
        proof.keySeq,
        new Date(proof.provenAt),
      ],
    });
    const row = result.rows[0]!;
    return {
      token: row.token_fingerprint === null ? null : { fingerprint: row.token_fingerprint },
      settings: row.settings_text,
      exit: row.released
        ? { token: exitToken, expiresAt: exitExpiresAt, courseId: binding.courseId, contentId: binding.contentId, releasedAt: new Date(now), priorReleaseAt: row.prior_release_at }
        : null,
    };
  }

  /**
   * The compensation of {@link spendProofAndRelease} for a grant whose setting the caller refuses after all (it changed
   * since the proof, or its code cannot be opened): deletes the never-revealed exit grant and takes back its counted
   * release, and its record in the student's exam-day steps, in one statement. The proof stays spent, as a refused
   * redemption spends it.
   */
  async withdrawRelease(exit: IssuedRelease): Promise<void> {
    await this.pool.query(
      `with withdrawn as (delete from exb_student_token where id = $1 and purpose = 'exit-grant' returning id, lms_user_id),
            unrecorded as (${withdrawReleaseStepSql({ course: '$2', content: '$3', student: '(select lms_user_id from withdrawn)', at: '$4' })})
       ${withdrawReleaseSql({ course: '$2', content: '$3', at: '$4', prior: '$5' }, 'exists (select 1 from withdrawn)')}`,
      [sha256Hex(exit.token), exit.courseId, exit.contentId, exit.releasedAt, exit.priorReleaseAt],
    );
  }

  /**
   * Consumes a token not bound to a route's course (the launch handoff key). Returns its binding and payload, or, for a
   * token that exists but was consumed or expired, only its course: what stays reachable afterwards.
   */
  async consumeAnywhere<T>(
    purpose: ExamTokenPurpose,
    token: string,
    signal?: AbortSignal,
  ): Promise<{ courseId: string; contentId: string; payload: T | null; consumed: boolean } | null> {
    const id = sha256Hex(token);
    signal?.throwIfAborted();
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
   * With `start`, the same statement issues the download's session start: it exists exactly when the download is
   * recorded.
   */
  async spendConfigGrant(
    grant: string,
    binding: { courseId: string; contentId: string; fingerprint: string },
    configKey: { value: string; ttlSeconds: number } | null,
    start: NewSessionStart | null = null,
    signal?: AbortSignal,
  ): Promise<{ spent: boolean; settings: string }> {
    const { courseId, contentId, fingerprint } = binding;
    const id = sha256Hex(grant);
    const now = this.clock();
    const sealed = configKey === null ? null : this.configKeys.seal(id, courseId, contentId, fingerprint, configKey.value);
    const keyExpiresAt = configKey === null ? null : now + configKey.ttlSeconds * 1000;
    const startId = start === null ? null : sha256Hex(start.token);
    const startPayload =
      start === null || startId === null
        ? null
        : seal(this.payloadKey, Buffer.from(JSON.stringify(start.payload), 'utf8'), payloadBinding(startId, { purpose: 'session-start', courseId, contentId, fingerprint }));
    const startExpiresAt = start === null ? null : new Date(now + start.ttlSeconds * 1000);
    signal?.throwIfAborted();
    const result = await this.pool.query<SettingsTextColumn & { spent: boolean; config_key_seq: string | null }>({
      name: 'exb-student-spend-config-grant',
      text: `with spent as (
          update exb_student_token
             set consumed_at = $5, config_key_sealed = $7, config_key_expires_at = $8,
                 config_key_seq = case when $7::bytea is null then null else nextval('exb_config_key_seq') end
           where id = $1 and purpose = $2 and course_id = $3 and content_id = $4 and fingerprint = $6
             and consumed_at is null and expires_at > $5
          returning config_key_seq::text as seq, lms_user_id
        ),
        counted as (${countActivitySql('download', { course: '$3', content: '$4', at: '$5' }, 'from spent')}),
        stepped as (${recordStepsSql(
          { download: '$5' },
          { course: '$3', content: '$4', student: 'spent.lms_user_id', at: '$5' },
          'from spent where spent.lms_user_id is not null',
        )}),
        started as (
          insert into exb_student_token (id, purpose, course_id, content_id, fingerprint, payload, expires_at, lms_user_id)
          select $9, 'session-start', $3, $4, $6, $10, $11, spent.lms_user_id from spent where $9::text is not null
        )
        select exists (select 1 from spent) as spent, sp.seq as config_key_seq, ${SETTINGS_TEXT_COLUMN}
        from (select 1) as one
        left join spent sp on true
        ${SETTINGS_JOIN}`,
      values: [
        id,
        'config-grant',
        courseId,
        contentId,
        new Date(now),
        fingerprint,
        sealed,
        keyExpiresAt === null ? null : new Date(keyExpiresAt),
        startId,
        startPayload,
        startExpiresAt,
      ],
    });
    const row = result.rows[0]!;
    if (configKey !== null && row.config_key_seq !== null) {
      this.configKeys.remember(courseId, contentId, fingerprint, row.config_key_seq, configKey.value, keyExpiresAt!);
    }
    return { spent: row.spent, settings: row.settings_text };
  }

  /**
   * Takes a session start for this request, in one conditional UPDATE (of parallel opens exactly one gets it), or says
   * why not: unknown, issued for another assessment, already taken, or expired.
   */
  async takeSessionStart<T>(token: string, courseId: string, contentId: string): Promise<SessionStartTake<T>> {
    const id = sha256Hex(token);
    const now = new Date(this.clock());
    const result = await this.pool.query<{
      course_id: string;
      content_id: string;
      fingerprint: string;
      payload: Buffer | null;
      fresh: boolean;
      consumed: boolean;
    }>({
      name: 'exb-student-take-session-start',
      text: `with taken as (
          update exb_student_token set consumed_at = $4
           where id = $1 and purpose = 'session-start' and course_id = $2 and content_id = $3
             and consumed_at is null and expires_at > $4
          returning course_id, content_id, fingerprint, payload
        )
        select course_id, content_id, fingerprint, payload, true as fresh, false as consumed from taken
        union all
        select course_id, content_id, fingerprint, null, false, consumed_at is not null from exb_student_token
         where id = $1 and purpose = 'session-start' and not exists (select 1 from taken)`,
      values: [id, courseId, contentId, now],
    });
    const row = result.rows[0];
    if (row === undefined) return { kind: 'unknown' };
    if (row.course_id !== courseId || row.content_id !== contentId) return { kind: 'foreign' };
    if (!row.fresh) return { kind: row.consumed ? 'used' : 'expired' };
    const payload = this.openPayload<T>(id, { purpose: 'session-start', courseId, contentId, fingerprint: row.fingerprint }, row.payload);
    return payload === null ? { kind: 'unknown' } : { kind: 'taken', payload, takenAt: now };
  }

  /**
   * Gives back a session start taken at `takenAt` whose LMS session could not be minted, so the exam browser's reload
   * (or the start after the student reconnected their account) can use it while it lives.
   */
  async returnSessionStart(token: string, takenAt: Date): Promise<void> {
    await this.pool.query(
      `update exb_student_token set consumed_at = null where id = $1 and purpose = 'session-start' and consumed_at = $2`,
      [sha256Hex(token), takenAt],
    );
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
    row: SettingsTextColumn & TokenColumns,
  ): TokenRead<T> {
    if (row.token_fingerprint === null) return { token: null, settings: row.settings_text };
    const fingerprint = row.token_fingerprint;
    const payload = this.openPayload<T>(id, { purpose, courseId, contentId, fingerprint }, row.token_payload);
    return { token: { fingerprint, payload }, settings: row.settings_text };
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

/**
 * A re-admission's voiding of one student's outstanding tokens of an assessment, for use as a data-modifying CTE: open
 * config grants and their launch handoffs, session starts and exit grants expire at `at`, and so do the Config Keys of
 * the student's downloaded configurations, so a proof made with one of them is refused when redeemed (the statement
 * that spends a proof checks its key). `course`, `content`, `student` and `at` are SQL expressions; returns the
 * voided rows' `purpose`.
 */
export function voidStudentTokensSql(values: { course: string; content: string; student: string; at: string }): string {
  const at = `${values.at}::timestamptz`;
  return `update exb_student_token t
        set expires_at = least(t.expires_at, ${at}),
            config_key_expires_at = case when t.config_key_expires_at is null then null else least(t.config_key_expires_at, ${at}) end
      where t.course_id = ${values.course}::text and t.content_id = ${values.content}::text and t.lms_user_id = ${values.student}::text
        and ((t.consumed_at is null and t.expires_at > ${at}) or t.config_key_expires_at > ${at})
      returning t.purpose`;
}
