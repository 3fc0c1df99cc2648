import type { MikroORM } from '@mikro-orm/postgresql';
import { isLmsId } from '@exb/shared/content-id.js';
import type { LmsRead } from '@exb/shared/exam-day.js';
import type { SqlOnClient } from '../../db/pg-transaction.js';
import type { AttemptTimes } from './attempts.js';
import type { RosterStudent } from './roster.js';

/** What the board reads from the LMS: an assessment's attempts, or a course's roster (stored under content id `''`). */
export type LmsReadKind = 'attempts' | 'roster';

/** The outcome of one LMS read: success, the scope the grant lacked, or the error code of another failure. */
export type ReadOutcome = { readonly ok: true } | { readonly ok: false; readonly missingScope: string | null; readonly failure: string | null };

/** The content id a course-wide read (the roster) is stored under. */
export const COURSE_WIDE = '';

type ReadRow = { succeeded_at: Date | string | null; missing_scope: string | null; failure: string | null };

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

/**
 * Course reset, in the caller's transaction: what the board last read from the LMS for the course (the once-a-minute
 * claims with their outcomes, and the roster). Both are copies of the LMS, read again when a board next asks; the
 * students' own steps (`exb_exam_day_student`) are a record of what they did and stay until retention.
 */
export async function deleteCourseLmsReads(tx: SqlOnClient, courseId: string): Promise<void> {
  if (!isLmsId(courseId)) throw new RangeError('course id is not a canonical LMS id');
  await tx.execute('delete from exb_exam_day_lms_read where course_id = ?', [courseId], 'run');
  await tx.execute('delete from exb_exam_day_roster where course_id = ?', [courseId], 'run');
}

/**
 * The home of `exb_exam_day_lms_read` and `exb_exam_day_roster`, and of the attempt columns of `exb_exam_day_student`
 * (the student flow writes the other columns). The once-a-minute budget is a claim on a row, so it holds across
 * instances: of all readers within a minute exactly one wins the conditional upsert and reads the LMS.
 */
export class ExamDayLmsStore {
  constructor(private readonly orm: MikroORM) {}

  private get connection() {
    return this.orm.em.getConnection();
  }

  /** Claims the read of `kind` unless one was claimed within `intervalMs` before `now`; true when this caller won it. */
  async claim(courseId: string, contentId: string, kind: LmsReadKind, now: Date, intervalMs: number): Promise<boolean> {
    const rows = await this.connection.execute<unknown[]>(
      `insert into exb_exam_day_lms_read (course_id, content_id, kind, claimed_at) values (?, ?, ?, ?)
       on conflict (course_id, content_id, kind) do update set claimed_at = excluded.claimed_at
         where exb_exam_day_lms_read.claimed_at <= ?
       returning 1`,
      [courseId, contentId, kind, now, new Date(now.getTime() - intervalMs)],
    );
    return rows.length === 1;
  }

  async recordOutcome(courseId: string, contentId: string, kind: LmsReadKind, outcome: ReadOutcome, now: Date): Promise<void> {
    await this.connection.execute(
      outcome.ok
        ? `update exb_exam_day_lms_read set succeeded_at = ?, missing_scope = null, failure = null
           where course_id = ? and content_id = ? and kind = ?`
        : `update exb_exam_day_lms_read set missing_scope = ?, failure = ? where course_id = ? and content_id = ? and kind = ?`,
      outcome.ok ? [now, courseId, contentId, kind] : [outcome.missingScope, outcome.failure, courseId, contentId, kind],
      'run',
    );
  }

  /** How the last read of `kind` went; a read never made has no time and no problem. */
  async lastRead(courseId: string, contentId: string, kind: LmsReadKind): Promise<LmsRead> {
    const rows = await this.connection.execute<ReadRow[]>(
      'select succeeded_at, missing_scope, failure from exb_exam_day_lms_read where course_id = ? and content_id = ? and kind = ?',
      [courseId, contentId, kind],
    );
    const row = rows[0];
    return { readAt: iso(row?.succeeded_at ?? null), missingScope: row?.missing_scope ?? null, failure: row?.failure ?? null };
  }

  /**
   * Writes what the LMS says of the assessment's attempts, in one statement: each student with an attempt gets its
   * times (a row is created for a student with no step yet); rows whose times are unchanged are left alone, so a read
   * that finds nothing new writes nothing. A student the answer leaves out keeps what was stored: the LMS shows a
   * reader only the sections they may see, so an absence says nothing about the attempt.
   */
  async writeAttempts(courseId: string, contentId: string, attempts: readonly AttemptTimes[]): Promise<void> {
    if (attempts.length === 0) return;
    await this.connection.execute(
      `insert into exb_exam_day_student (course_id, content_id, lms_user_id, attempt_started_at, attempt_submitted_at)
       select ?, ?, a.lms_user_id, a.started_at, a.submitted_at
         from jsonb_to_recordset(?::jsonb) as a(lms_user_id text, started_at timestamptz, submitted_at timestamptz)
       on conflict (course_id, content_id, lms_user_id) do update
         set attempt_started_at = excluded.attempt_started_at, attempt_submitted_at = excluded.attempt_submitted_at, updated_at = now()
         where exb_exam_day_student.attempt_started_at is distinct from excluded.attempt_started_at
            or exb_exam_day_student.attempt_submitted_at is distinct from excluded.attempt_submitted_at`,
      [
        courseId,
        contentId,
        JSON.stringify(attempts.map((attempt) => ({ lms_user_id: attempt.lmsUserId, started_at: attempt.startedAt, submitted_at: attempt.submittedAt }))),
      ],
      'run',
    );
  }

  /**
   * Stores the roster just read, in one transaction: its students are (re)stamped with `now`, and students no read
   * has listed for `staleAfterMs` leave. Like attempts, one reader's roster may be only their sections, so a single
   * read does not remove anyone; a student who left the course leaves the board once reads stop listing them.
   */
  async writeRoster(courseId: string, roster: readonly RosterStudent[], now: Date, staleAfterMs: number): Promise<void> {
    await this.orm.em.fork().transactional(async (em) => {
      if (roster.length > 0) {
        await em.execute(
          `insert into exb_exam_day_roster (course_id, lms_user_id, display_name, read_at)
           select ?, r.lms_user_id, r.display_name, ? from jsonb_to_recordset(?::jsonb) as r(lms_user_id text, display_name text)
           on conflict (course_id, lms_user_id) do update set display_name = excluded.display_name, read_at = excluded.read_at`,
          [courseId, now, JSON.stringify(roster.map((student) => ({ lms_user_id: student.lmsUserId, display_name: student.name })))],
          'run',
        );
      }
      await em.execute('delete from exb_exam_day_roster where course_id = ? and read_at < ?', [courseId, new Date(now.getTime() - staleAfterMs)], 'run');
    });
  }

  /** Forgets reads and roster students older than `cutoff` (housekeeping); returns how many rows went. */
  async purgeOlderThan(cutoff: Date): Promise<number> {
    const reads = await this.connection.execute<{ affectedRows: number }>('delete from exb_exam_day_lms_read where claimed_at < ?', [cutoff], 'run');
    const roster = await this.connection.execute<{ affectedRows: number }>('delete from exb_exam_day_roster where read_at < ?', [cutoff], 'run');
    return reads.affectedRows + roster.affectedRows;
  }

  async roster(courseId: string): Promise<RosterStudent[]> {
    const rows = await this.connection.execute<{ lms_user_id: string; display_name: string | null }[]>(
      'select lms_user_id, display_name from exb_exam_day_roster where course_id = ?',
      [courseId],
    );
    return rows.map((row) => ({ lmsUserId: row.lms_user_id, name: row.display_name }));
  }
}
