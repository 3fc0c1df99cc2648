import type { Pool } from 'pg';
import { SETTING_MAY_REQUIRE_EXAM_BROWSER } from '../settings/settings-codec.js';

/**
 * The writes of `exb_exam_day_student`, each step of one student's way into one enforced assessment. Every step is
 * recorded by the statement the student flow already runs for it (a data-modifying CTE, as the assessment counters
 * are: `activity/activity-counters.ts`), so the record costs the start no round trip. Nothing secret is written:
 * times, a download count, the LMS user id and the name the launch gave.
 */

export const STUDENT_STEPS = ['launch', 'grant', 'download', 'proof', 'release', 'exit'] as const;
export type StudentStep = (typeof STUDENT_STEPS)[number];

const TIME_COLUMN: Record<StudentStep, string> = {
  launch: 'launched_at',
  grant: 'granted_at',
  download: 'last_download_at',
  proof: 'proven_at',
  release: 'released_at',
  exit: 'exited_at',
};

/** SQL expressions (placeholders or columns of `from`) naming the student's row and the statement's time. */
export interface StepTarget {
  readonly course: string;
  readonly content: string;
  readonly student: string;
  /** The statement's time: the row's `updated_at`, which retention counts from. */
  readonly at: string;
  /** The name the LMS gave, kept when `null`. */
  readonly name?: string;
}

/**
 * An upsert recording steps of one student, for use as a data-modifying CTE. Each step maps to the SQL expression of
 * its time, `null` where this row of `from` did not take it (e.g. `case when … end`); a download also adds one to the
 * count. A time only moves forward (`greatest`, which skips `null`), so a step recorded late by a slow request never
 * hides a newer one, and a step a re-admission cleared is set again by the next. `from` decides whether anything is
 * recorded (e.g. `from spent where spent.lms_user_id is not null`); at most one row may come from it, since one
 * statement cannot upsert the same row twice.
 */
export function recordStepsSql(steps: Partial<Record<StudentStep, string>>, target: StepTarget, from: string): string {
  const taken = STUDENT_STEPS.filter((step) => steps[step] !== undefined);
  const columns = ['course_id', 'content_id', 'lms_user_id', 'updated_at'];
  const selected = [`${target.course}::text`, `${target.content}::text`, `${target.student}::text`, `${target.at}::timestamptz`];
  const updates = ['updated_at = greatest(d.updated_at, excluded.updated_at)'];
  if (target.name !== undefined) {
    columns.push('display_name');
    selected.push(`${target.name}::text`);
    updates.push('display_name = coalesce(excluded.display_name, d.display_name)');
  }
  for (const step of taken) {
    const column = TIME_COLUMN[step];
    columns.push(column);
    selected.push(`(${steps[step]})::timestamptz`);
    updates.push(`${column} = greatest(d.${column}, excluded.${column})`);
  }
  if (steps.download !== undefined) {
    columns.push('downloads');
    selected.push(`case when (${steps.download}) is null then 0 else 1 end`);
    updates.push('downloads = d.downloads + excluded.downloads');
  }
  return `insert into exb_exam_day_student as d (${columns.join(', ')})
      select ${selected.join(', ')} ${from}
      on conflict (course_id, content_id, lms_user_id) do update set ${updates.join(', ')}`;
}

/**
 * Takes back a recorded release that was withdrawn (`ProofRedemption`'s rare refusal after the statement), as a
 * data-modifying CTE: the release time is cleared unless a later release moved it on since.
 */
export function withdrawReleaseStepSql(target: Omit<StepTarget, 'name'>): string {
  return `update exb_exam_day_student d set released_at = null
      where d.course_id = ${target.course}::text and d.content_id = ${target.content}::text and d.lms_user_id = ${target.student}::text
        and d.released_at = ${target.at}::timestamptz`;
}

/**
 * The record of a student's launch of an assessment, with the name the launch gave, as a CTE for the launch's session
 * generation read (`SessionGenerations.read`, placeholders from `$3`): written only where the assessment's setting may
 * require the exam browser, so the launch of an unenforced quiz records nothing.
 */
export function launchStep(launch: { courseId: string; contentId: string; lmsUserId: string; name: string | null; at: Date }) {
  return {
    name: 'exam-day-launch',
    cte: recordStepsSql(
      { launch: '$7' },
      { course: '$3', content: '$4', student: '$5', name: '$6', at: '$7' },
      `where exists (select 1 from assessment_setting s where s.course_id = $3 and s.content_id = $4 and ${SETTING_MAY_REQUIRE_EXAM_BROWSER})`,
    ),
    values: [launch.courseId, launch.contentId, launch.lmsUserId, launch.name, launch.at],
  } as const;
}

/**
 * A re-admission's reset of the student's way in, for use as a data-modifying CTE: the download count and the steps
 * from the download on are cleared and the re-admission time is set, so the board shows the student back at the start.
 * The launch and the last grant stay (they say the student was there). `student`, `course`, `content` and `at` are SQL
 * expressions; a student without a row gets one, so the board shows the re-admission.
 */
export function readmitStepsSql(target: Omit<StepTarget, 'name'>): string {
  return `insert into exb_exam_day_student as d (course_id, content_id, lms_user_id, readmitted_at, updated_at)
      values (${target.course}::text, ${target.content}::text, ${target.student}::text, ${target.at}::timestamptz, ${target.at}::timestamptz)
      on conflict (course_id, content_id, lms_user_id) do update set
        downloads = 0, last_download_at = null, proven_at = null, released_at = null, exited_at = null,
        readmitted_at = excluded.readmitted_at, updated_at = excluded.updated_at`;
}

/**
 * Retention (`EXAM_DAY_RETENTION_DAYS`), for the housekeeping schedule: deletes the records no step or action touched
 * for `retentionDays`; returns how many.
 */
export function studentStepsRetention(pool: Pool, retentionDays: number, now: () => number = Date.now): { purgeExpired(): Promise<number> } {
  return {
    async purgeExpired() {
      const cutoff = new Date(now() - retentionDays * 86_400_000);
      const result = await pool.query('delete from exb_exam_day_student where updated_at < $1', [cutoff]);
      return result.rowCount ?? 0;
    },
  };
}
