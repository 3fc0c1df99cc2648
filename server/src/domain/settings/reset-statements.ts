import type { SqlOnClient } from '../../db/pg-transaction.js';
import { checkCourse } from './settings-scope.js';

/** The statements a course reset makes on the settings tables, each in the caller's transaction. */

/** Deletes every assessment setting of the course; returns their content ids. */
export async function deleteCourseSettings(tx: SqlOnClient, courseId: string): Promise<string[]> {
  checkCourse(courseId);
  const rows = await tx.execute<{ content_id: string }[]>('delete from assessment_setting where course_id = ? returning content_id', [courseId]);
  return rows.map((row) => row.content_id);
}

/**
 * Clears the course policy (URL rules, tool catalog, passwords, setup flag) and advances the reset generation, keeping
 * the row so the generation only ever grows. A course without defaults gets a row at generation 1, so a copy that read
 * generation 0 before the reset fails. Returns the new generation.
 */
export async function clearCoursePolicy(tx: SqlOnClient, courseId: string): Promise<number> {
  checkCourse(courseId);
  const rows = await tx.execute<{ reset_generation: number }[]>(
    `insert into course_defaults (course_id, reset_generation) values (?, 1)
     on conflict (course_id) do update set
       url_rules = '[]', external_tools = '[]', start_password_sealed = null, start_password_key_id = null,
       exit_password_sealed = null, exit_password_key_id = null, setup_completed = false,
       reset_generation = course_defaults.reset_generation + 1, updated_at = now()
     returning reset_generation`,
    [courseId],
  );
  return Number(rows[0]!.reset_generation);
}
