import type { MikroORM } from '@mikro-orm/postgresql';
import { z } from 'zod';

/**
 * Exam-day activity of one assessment (`exb_assessment_activity`): counts of the student flow's steps and the last
 * time of each. Nothing per student: the flow's own statements increment these (see {@link countActivitySql}), and
 * the teacher's Activity panel reads them.
 */

export const ACTIVITY_KINDS = ['download', 'proof', 'release', 'exit'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

const COLUMNS: Record<ActivityKind, { count: string; last: string }> = {
  download: { count: 'downloads', last: 'last_download_at' },
  proof: { count: 'proofs', last: 'last_proof_at' },
  release: { count: 'releases', last: 'last_release_at' },
  exit: { count: 'exits', last: 'last_exit_at' },
};

/**
 * An upsert that counts one `kind` for the assessment, for use as a data-modifying CTE inside the statement (or the
 * transaction) that already writes the step, so counting costs the student flow no round trip. `course`, `content`
 * and `at` are SQL expressions (placeholders or columns of `from`); `from` decides whether the step happened, e.g.
 * `from spent` counts only when the CTE `spent` returned its row. At most one row may come from `from`.
 */
export function countActivitySql(kind: ActivityKind, values: { course: string; content: string; at: string }, from: string): string {
  return countActivitiesSql({ [kind]: '1' }, values, from);
}

/**
 * The same upsert for several kinds at once, each counted by its SQL expression over `from` (`1` or `0`), its last time
 * moved only when it counts: a statement that records two steps needs one upsert, since two upserts of the same row in
 * one statement are not allowed (the redemption counts its proof and, when it releases, the release).
 */
export function countActivitiesSql(
  increments: Partial<Record<ActivityKind, string>>,
  values: { course: string; content: string; at: string },
  from: string,
): string {
  const counted = ACTIVITY_KINDS.flatMap((kind) => (increments[kind] === undefined ? [] : [{ ...COLUMNS[kind], by: increments[kind] }]));
  const columns = counted.flatMap(({ count, last }) => [count, last]);
  const selected = counted.flatMap(({ by }) => [by, `case when ${by} > 0 then ${values.at}::timestamptz end`]);
  const updates = counted.flatMap(({ count, last }) => [`${count} = a.${count} + excluded.${count}`, `${last} = greatest(a.${last}, excluded.${last})`]);
  return `insert into exb_assessment_activity as a (course_id, content_id, ${columns.join(', ')})
      select ${values.course}::text, ${values.content}::text, ${selected.join(', ')} ${from}
      on conflict (course_id, content_id) do update set ${updates.join(', ')}`;
}

/**
 * Takes back one counted release that was withdrawn (`ProofRedemption`'s rare refusal after the statement): the count
 * drops by one, and the last release time returns to `prior` unless a later release moved it on since.
 */
export function withdrawReleaseSql(values: { course: string; content: string; at: string; prior: string }, condition: string): string {
  const { count, last } = COLUMNS.release;
  return `update exb_assessment_activity a
        set ${count} = greatest(a.${count} - 1, 0),
            ${last} = case when a.${last} = ${values.at}::timestamptz then ${values.prior}::timestamptz else a.${last} end
      where a.course_id = ${values.course}::text and a.content_id = ${values.content}::text and ${condition}`;
}

const countSchema = z.object({ count: z.number().int().nonnegative(), lastAt: z.iso.datetime().nullable() });
export const assessmentActivitySchema = z.object({
  downloads: countSchema,
  proofs: countSchema,
  releases: countSchema,
  exits: countSchema,
});
export type AssessmentActivity = z.infer<typeof assessmentActivitySchema>;

type Row = Record<string, string | number | Date | null>;

export class ActivityCounters {
  constructor(private readonly orm: MikroORM) {}

  /** One assessment's counters; all zero before its first student step. */
  async read(courseId: string, contentId: string): Promise<AssessmentActivity> {
    const [row] = await this.orm.em
      .getConnection()
      .execute<Row[]>('select * from exb_assessment_activity where course_id = ? and content_id = ?', [courseId, contentId]);
    const count = (kind: ActivityKind) => {
      const last = row?.[COLUMNS[kind].last];
      return { count: Number(row?.[COLUMNS[kind].count] ?? 0), lastAt: last ? new Date(last).toISOString() : null };
    };
    return { downloads: count('download'), proofs: count('proof'), releases: count('release'), exits: count('exit') };
  }
}
