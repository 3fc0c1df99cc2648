import type { MikroORM } from '@mikro-orm/postgresql';
import { isLmsId } from '@exb/shared/content-id.js';
import type { SqlOnClient } from '../../db/pg-transaction.js';
import { verificationStatusSchema, type VerificationStatus } from '@exb/shared/verification-status.js';
import type { ContentType } from '../settings/model.js';

/**
 * The statements of the pre-exam sweep (`Migration20261129500000_pre_exam_sweep`): which starts are due a sweep, the
 * claim of one, what it found, and the alerts the views read. The one home of the `pre_exam_sweep` and
 * `course_sweep_option` tables.
 */

/** An hour before a start, then ten minutes before it. */
export const SWEEP_STAGES = ['hour', 'ten-minutes'] as const;
export type SweepStage = (typeof SWEEP_STAGES)[number];
export const SWEEP_WINDOW_MINUTES: Record<SweepStage, number> = { hour: 60, 'ten-minutes': 10 };

/** What one sweep of an assessment did. */
export type SweepOutcome = 'in-place' | 'repaired' | 'alerted' | 'repair-failed' | 'unchecked';

/**
 * One sweep an enforced, published assessment is due: one of its starts is within the stage's window. Its starts are
 * the unlock and due times of the base dates and of every override, so a section that starts earlier than the base
 * dates is swept before its own start.
 */
export interface SweepDue {
  readonly courseId: string;
  readonly contentId: string;
  readonly contentType: ContentType;
  readonly lmsAssessmentId: string;
  readonly verifiedByLmsUserId: string | null;
  readonly startsAt: Date;
  readonly stage: SweepStage;
}

/** A drift a sweep found before a start, as the teacher's view and the administrator's dashboard show it. */
export interface DriftAlert {
  readonly courseId: string;
  readonly contentId: string;
  readonly title: string | null;
  readonly startsAt: Date;
  readonly stage: SweepStage;
  readonly sweptAt: Date;
  /** `missing` (the LMS lost the code) or `stale` (another code, or the quiz is gone). */
  readonly found: VerificationStatus;
  readonly repaired: boolean;
  readonly outcome: SweepOutcome;
}

/** Sweeps are kept this long after their start (`purgeExpired`). */
export const SWEEP_RETENTION_DAYS = 7;

/** Alerts stay up while the exam may still be running. */
const ALERT_HOURS_AFTER_START = 3;

/**
 * Course reset, in the caller's transaction: the course's sweeps (and so its alerts and the claims of starts) and its
 * opt-in to automatic repairs, which belongs with the course defaults the reset clears. The audit trail keeps every
 * repair. Returns how many sweeps went.
 */
export async function deleteCourseSweeps(tx: SqlOnClient, courseId: string): Promise<number> {
  if (!isLmsId(courseId)) throw new RangeError('course id is not a canonical LMS id');
  const swept = await tx.execute('delete from pre_exam_sweep where course_id = ?', [courseId], 'run');
  await tx.execute('delete from course_sweep_option where course_id = ?', [courseId], 'run');
  return swept.affectedRows;
}

export class SweepRecords {
  constructor(private readonly orm: MikroORM) {}

  /**
   * The sweeps due at `now`, soonest start first: every enforced assessment of a published quiz one of whose unlock or
   * due times (base or override, `assessment.override_starts`) lies within the next hour (stage `hour`) or the next ten
   * minutes (stage `ten-minutes`), and which that stage has not swept for that start yet. A start that moves in the LMS is a new start, swept anew.
   */
  async due(now: Date, limit: number): Promise<SweepDue[]> {
    const rows = await this.orm.em.getConnection().execute<
      {
        course_id: string;
        content_id: string;
        content_type: ContentType;
        lms_assessment_id: string;
        verified_by_lms_user_id: string | null;
        starts_at: Date;
        stage: SweepStage;
      }[]
    >(
      `select s.course_id, s.content_id, a.content_type, a.lms_assessment_id, s.verified_by_lms_user_id, t.starts_at, g.stage
       from assessment_setting s
       join assessment a on a.course_id = s.course_id and a.content_id = s.content_id
       cross join lateral (select distinct x from unnest(array[a.unlock_at, a.due_at] || a.override_starts) x where x is not null) t(starts_at)
       cross join lateral (values ('hour', 60), ('ten-minutes', 10)) g(stage, minutes)
       where s.exb_required and s.enabled and a.published
         and t.starts_at > ?::timestamptz and t.starts_at <= ?::timestamptz + g.minutes * interval '1 minute'
         and not exists (select 1 from pre_exam_sweep p where p.course_id = s.course_id and p.content_id = s.content_id
                           and p.starts_at = t.starts_at and p.stage = g.stage)
       order by t.starts_at, s.course_id, s.content_id, g.stage
       limit ?`,
      [now, now, limit],
    );
    return rows.map((row) => ({
      courseId: row.course_id,
      contentId: row.content_id,
      contentType: row.content_type,
      lmsAssessmentId: row.lms_assessment_id,
      verifiedByLmsUserId: row.verified_by_lms_user_id,
      startsAt: new Date(row.starts_at),
      stage: row.stage,
    }));
  }

  /**
   * Claims sweeps before the LMS is asked: one statement whose primary key lets one claimant win each, so a sweep is
   * never made twice even if two instances got past the lease. Returns the ones this call claimed.
   */
  async claim(items: readonly SweepDue[]): Promise<SweepDue[]> {
    if (items.length === 0) return [];
    const rows = await this.orm.em.getConnection().execute<{ content_id: string; starts_at: Date; stage: string }[]>(
      `insert into pre_exam_sweep (course_id, content_id, starts_at, stage)
       select x.course_id, x.content_id, x.starts_at, x.stage
       from jsonb_to_recordset(?::jsonb) x(course_id text, content_id text, starts_at timestamptz, stage text)
       on conflict do nothing
       returning content_id, starts_at, stage`,
      [JSON.stringify(items.map((item) => ({ course_id: item.courseId, content_id: item.contentId, starts_at: item.startsAt.toISOString(), stage: item.stage })))],
    );
    const won = new Set(rows.map((row) => `${row.content_id}|${new Date(row.starts_at).toISOString()}|${row.stage}`));
    return items.filter((item) => won.has(`${item.contentId}|${item.startsAt.toISOString()}|${item.stage}`));
  }

  /** Gives claimed sweeps back (the call budget ran out, or the service is stopping), so a later run makes them. */
  async release(items: readonly SweepDue[]): Promise<void> {
    for (const item of items) {
      await this.orm.em.getConnection().execute(
        "delete from pre_exam_sweep where course_id = ? and content_id = ? and starts_at = ? and stage = ? and outcome = 'pending'",
        [item.courseId, item.contentId, item.startsAt, item.stage],
        'run',
      );
    }
  }

  async complete(items: readonly SweepDue[], found: VerificationStatus | null, outcome: SweepOutcome): Promise<void> {
    for (const item of items) {
      await this.orm.em.getConnection().execute(
        `update pre_exam_sweep set found = ?, repaired = ?, outcome = ?, swept_at = now()
         where course_id = ? and content_id = ? and starts_at = ? and stage = ?`,
        [found, outcome === 'repaired', outcome, item.courseId, item.contentId, item.startsAt, item.stage],
        'run',
      );
    }
  }

  /** The course's drift alerts: sweeps that found the code missing or replaced, for starts not long past, newest first. */
  async courseAlerts(courseId: string, now: Date): Promise<DriftAlert[]> {
    if (!isLmsId(courseId)) return [];
    return this.alerts('p.course_id = ?', [courseId], now);
  }

  /** The drift alerts of every course connected in a root account (the administrator's dashboard). */
  async accountAlerts(accountId: string, now: Date): Promise<DriftAlert[]> {
    if (!isLmsId(accountId)) return [];
    return this.alerts('p.course_id in (select c.course_id from admin_course c where c.account_id = ?)', [accountId], now);
  }

  private async alerts(where: string, params: unknown[], now: Date): Promise<DriftAlert[]> {
    const rows = await this.orm.em.getConnection().execute<
      { course_id: string; content_id: string; title: string | null; starts_at: Date; stage: SweepStage; swept_at: Date; found: string; repaired: boolean; outcome: SweepOutcome }[]
    >(
      `select distinct on (p.course_id, p.content_id, p.starts_at) p.course_id, p.content_id, a.title, p.starts_at, p.stage,
         p.swept_at, p.found, p.repaired, p.outcome
       from pre_exam_sweep p left join assessment a on a.course_id = p.course_id and a.content_id = p.content_id
       where ${where} and p.found in ('missing', 'stale') and p.starts_at > ?::timestamptz - ? * interval '1 hour'
       order by p.course_id, p.content_id, p.starts_at, p.swept_at desc
       limit 200`,
      [...params, now, ALERT_HOURS_AFTER_START],
    );
    return rows
      .map((row) => ({
        courseId: row.course_id,
        contentId: row.content_id,
        title: row.title,
        startsAt: new Date(row.starts_at),
        stage: row.stage,
        sweptAt: new Date(row.swept_at),
        found: verificationStatusSchema.parse(row.found),
        repaired: row.repaired,
        outcome: row.outcome,
      }))
      .sort((a, b) => b.sweptAt.getTime() - a.sweptAt.getTime());
  }

  /**
   * Housekeeping: drops sweeps of starts more than `SWEEP_RETENTION_DAYS` past. The audit trail keeps every repair;
   * these rows only feed the alerts and the claims, which never look that far back.
   */
  async purgeExpired(): Promise<number> {
    const rows = await this.orm.em
      .getConnection()
      .execute<{ one: number }[]>(`delete from pre_exam_sweep where starts_at < now() - ? * interval '1 day' returning 1 as one`, [SWEEP_RETENTION_DAYS]);
    return rows.length;
  }

  /** Whether the course opted in to automatic repairs before a start (off unless a teacher or administrator said so). */
  async autoRepair(courseId: string): Promise<boolean> {
    if (!isLmsId(courseId)) return false;
    const rows = await this.orm.em
      .getConnection()
      .execute<{ auto_repair_before_start: boolean }[]>('select auto_repair_before_start from course_sweep_option where course_id = ?', [courseId]);
    return rows[0]?.auto_repair_before_start === true;
  }

  async setAutoRepair(courseId: string, enabled: boolean): Promise<void> {
    if (!isLmsId(courseId)) throw new RangeError('course id is not a canonical LMS id');
    await this.orm.em.getConnection().execute(
      `insert into course_sweep_option (course_id, auto_repair_before_start) values (?, ?)
       on conflict (course_id) do update set auto_repair_before_start = excluded.auto_repair_before_start, updated_at = now()`,
      [courseId, enabled],
      'run',
    );
  }
}
