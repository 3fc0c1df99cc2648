import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { AssignmentStatus } from '@exb/shared/admin-tool-presets.js';

/** Anything that runs SQL: the ORM's connection or a transaction's entity manager. */
interface SqlRunner {
  execute(sql: string, params: unknown[], method: 'run'): Promise<{ affectedRows: number }>;
}

/**
 * Deletes every preset assignment of one course (course reset, Document 2 phase 3), in the caller's transaction. The
 * course's catalog is cleared by the reset itself, so nothing is left to synchronize; presets stay.
 */
export async function deleteCourseAssignments(executor: SqlRunner, courseId: string): Promise<number> {
  const result = await executor.execute('delete from admin_tool_preset_assignment where course_id = ?', [courseId], 'run');
  return result.affectedRows;
}

/** One assignment row a pass claimed. */
export interface ClaimedAssignment {
  readonly presetId: string;
  readonly courseId: string;
}

/** What a pass may take: one preset's rows, or the account's pending rows of any preset (background). */
export interface ClaimScope {
  readonly accountId: string;
  readonly presetId?: string;
  readonly statuses: readonly AssignmentStatus[];
}

export interface FailedAssignment {
  readonly courseId: string;
  readonly name: string;
  readonly courseCode: string;
  readonly errorCode: string | null;
  readonly attempts: number;
  readonly updatedAt: Date;
}

/** How long a pass may hold its rows; a pass that died gives them up after this (see `locks.ts` for the reasoning). */
export const ASSIGNMENT_CLAIM_TTL_SECONDS = 120;
const FAILURE_LIST_LIMIT = 200;

/** The assignment rows of presets: the desired state, the queue of synchronizations and its outcome. */
export class AssignmentStore {
  constructor(private readonly orm: MikroORM) {}

  private get connection() {
    return this.orm.em.getConnection();
  }

  /** Sets what is wanted for one course and queues it with a new revision; returns that revision. */
  async setDesired(accountId: string, presetId: string, courseId: string, assigned: boolean): Promise<number> {
    const rows = await this.connection.execute<{ revision: number }[]>(
      `insert into admin_tool_preset_assignment (preset_id, course_id, account_id, desired_assigned, status)
       values (?, ?, ?, ?, 'pending')
       on conflict (preset_id, course_id) do update set desired_assigned = excluded.desired_assigned, status = 'pending',
         revision = admin_tool_preset_assignment.revision + 1, last_error_code = null, updated_at = now()
       returning revision`,
      [presetId, courseId, accountId, assigned],
    );
    return Number(rows[0]!.revision);
  }

  /**
   * Queues courses of a bulk rollout in one statement: assigning creates or requeues a row per connected course of the
   * account among `courseIds` (`null`: all of them); unassigning requeues the rows that exist. Returns how many.
   */
  async queue(accountId: string, presetId: string, assigned: boolean, courseIds: readonly string[] | null): Promise<number> {
    const filter = courseIds === null ? '' : 'and c.course_id in (select jsonb_array_elements_text(?::jsonb))';
    const params = courseIds === null ? [] : [JSON.stringify(courseIds)];
    const result = assigned
      ? await this.connection.execute<{ affectedRows: number }>(
          `insert into admin_tool_preset_assignment (preset_id, course_id, account_id, desired_assigned, status)
           select ?, c.course_id, c.account_id, true, 'pending' from admin_course c where c.account_id = ? ${filter}
           on conflict (preset_id, course_id) do update set desired_assigned = true, status = 'pending',
             revision = admin_tool_preset_assignment.revision + 1, last_error_code = null, updated_at = now()`,
          [presetId, accountId, ...params],
          'run',
        )
      : await this.connection.execute<{ affectedRows: number }>(
          `update admin_tool_preset_assignment a set desired_assigned = false, status = 'pending', revision = a.revision + 1,
             last_error_code = null, updated_at = now()
           from admin_course c where c.course_id = a.course_id and c.account_id = ? and a.preset_id = ? ${filter}`,
          [accountId, presetId, ...params],
          'run',
        );
    return result.affectedRows;
  }

  /**
   * Takes up to `limit` rows for one pass: unclaimed (or claim expired) rows of the scope's statuses, oldest change
   * first, skipping rows another pass is taking at this moment. A row is held by one pass at a time.
   */
  async claim(owner: string, scope: ClaimScope, limit: number): Promise<ClaimedAssignment[]> {
    const presetFilter = scope.presetId === undefined ? '' : 'and preset_id = ?';
    const rows = await this.connection.execute<{ preset_id: string; course_id: string }[]>(
      `update admin_tool_preset_assignment a set claim_owner = ?, claim_expires_at = now() + (? * interval '1 second')
       from (
         select preset_id, course_id from admin_tool_preset_assignment
         where account_id = ? ${presetFilter} and status in (select jsonb_array_elements_text(?::jsonb))
           and (claim_expires_at is null or claim_expires_at <= now())
         order by updated_at, course_id limit ? for update skip locked
       ) picked
       where a.preset_id = picked.preset_id and a.course_id = picked.course_id
       returning a.preset_id, a.course_id`,
      [
        owner,
        ASSIGNMENT_CLAIM_TTL_SECONDS,
        scope.accountId,
        ...(scope.presetId === undefined ? [] : [scope.presetId]),
        JSON.stringify(scope.statuses),
        limit,
      ],
    );
    return rows.map((row) => ({ presetId: row.preset_id, courseId: row.course_id }));
  }

  async release(owner: string): Promise<void> {
    await this.connection.execute<{ affectedRows: number }>(
      'update admin_tool_preset_assignment set claim_owner = null, claim_expires_at = null where claim_owner = ?',
      [owner],
      'run',
    );
  }

  /** Marks applied exactly the rows of the course whose revision is still the one the synchronization read. */
  async markApplied(em: EntityManager, courseId: string, read: readonly { presetId: string; revision: number }[]): Promise<void> {
    if (read.length === 0) return;
    await em.execute(
      `update admin_tool_preset_assignment set status = 'applied', applied_revision = revision, applied_at = now(),
         last_error_code = null, updated_at = now()
       where course_id = ? and (preset_id::text || ':' || revision) in (select jsonb_array_elements_text(?::jsonb))`,
      [courseId, JSON.stringify(read.map((row) => `${row.presetId}:${row.revision}`))],
      'run',
    );
  }

  /**
   * Marks the course's unfinished rows failed, to be retried. A row another synchronization has applied meanwhile stays
   * applied.
   */
  async markFailed(courseId: string, errorCode: string): Promise<void> {
    await this.connection.execute<{ affectedRows: number }>(
      `update admin_tool_preset_assignment set status = 'failed', last_error_code = ?, attempts = attempts + 1, updated_at = now()
       where course_id = ? and status <> 'applied'`,
      [errorCode.slice(0, 64), courseId],
      'run',
    );
  }

  async status(presetId: string, courseId: string): Promise<AssignmentStatus | null> {
    const rows = await this.connection.execute<{ status: AssignmentStatus }[]>(
      'select status from admin_tool_preset_assignment where preset_id = ? and course_id = ?',
      [presetId, courseId],
    );
    return rows[0]?.status ?? null;
  }

  async counts(presetId: string): Promise<{ pending: number; failed: number }> {
    const [row] = await this.connection.execute<{ pending: string; failed: string }[]>(
      `select count(*) filter (where status = 'pending') as pending, count(*) filter (where status = 'failed') as failed
       from admin_tool_preset_assignment where preset_id = ?`,
      [presetId],
    );
    return { pending: Number(row?.pending ?? 0), failed: Number(row?.failed ?? 0) };
  }

  /** The failed courses of a preset with their names, for the dashboard's retry list (the first 200). */
  async failures(presetId: string): Promise<FailedAssignment[]> {
    const rows = await this.connection.execute<
      { course_id: string; name: string | null; course_code: string | null; last_error_code: string | null; attempts: number; updated_at: Date }[]
    >(
      `select a.course_id, c.name, c.course_code, a.last_error_code, a.attempts, a.updated_at
       from admin_tool_preset_assignment a left join admin_course c on c.course_id = a.course_id
       where a.preset_id = ? and a.status = 'failed' order by a.updated_at, a.course_id limit ?`,
      [presetId, FAILURE_LIST_LIMIT],
    );
    return rows.map((row) => ({
      courseId: row.course_id,
      name: row.name ?? `Course ${row.course_id}`,
      courseCode: row.course_code ?? '',
      errorCode: row.last_error_code,
      attempts: Number(row.attempts),
      updatedAt: new Date(row.updated_at),
    }));
  }
}
