import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { z } from 'zod';
import { isAuditAction } from '@exb/shared/audit-actions.js';
import type { Principal } from '../identity/principal.js';

/**
 * The audit trail (`Migration20261125050000_audit_entry`): who changed what in enforcement and its secrets, when, with
 * which outcome. One writer for every feature, so an exam board reads one list.
 */

/**
 * `pending`: an attempt entered before it changes anything, completed with its outcome after (`audited`); one that
 * stays `pending` was attempted but its outcome could not be written. `started`, `recovered` and `compensated`: a course
 * reset begun, and one finished or undone after its process died.
 */
export const AUDIT_OUTCOMES = ['pending', 'success', 'refused', 'failed', 'rolled-back', 'verify-required', 'started', 'recovered', 'compensated'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];
export type AuditActorRole = 'instructor' | 'admin' | 'student' | 'system';

/** `details` carry which fields changed and counts; scalar values and short lists only. */
const detailValue = z.union([z.string().max(512), z.number(), z.boolean(), z.null(), z.array(z.string().max(200)).max(100)]);

/**
 * Keys that name a secret. A detail under such a key would put the secret's value in the trail, so the writer refuses
 * it outright (a programming error, not user input): record that a password changed, never what it is.
 */
const SECRET_KEY = /password|passcode|access.?code|token|secret|session|grant|cookie|credential/i;

export const auditEntrySchema = z.object({
  // Only the listed actions, so each has a label in the trail the views show.
  action: z.string().refine((value: string): boolean => isAuditAction(value), 'action is one of AUDIT_ACTIONS (`@exb/shared/audit-actions.js`)'),
  outcome: z.enum(AUDIT_OUTCOMES),
  actor: z.object({
    lmsUserId: z.string().max(64).nullable(),
    name: z.string().max(256).nullable(),
    role: z.enum(['instructor', 'admin', 'student', 'system']),
  }),
  rootAccountId: z.string().regex(/^\d{1,20}$/).nullable().default(null),
  courseId: z.string().regex(/^\d{1,20}$/).nullable().default(null),
  contentId: z.string().max(100).nullable().default(null),
  requestId: z.string().max(64).nullable().default(null),
  details: z
    .record(z.string().max(64), detailValue)
    .default({})
    .refine((details) => Object.keys(details).every((key) => !SECRET_KEY.test(key)), 'audit details never name a secret'),
});

/** What completes a pending entry: its outcome and the details its result adds (the same rules as an entry's). */
const completionSchema = auditEntrySchema.pick({ outcome: true, details: true });

export type AuditEntryInput = z.input<typeof auditEntrySchema>;
export type AuditEntry = z.output<typeof auditEntrySchema> & { id: string; occurredAt: Date };

/** The actor of an entry from a verified principal; names come from the signed launch. */
export function auditActor(principal: Principal): AuditEntryInput['actor'] {
  return { lmsUserId: principal.lmsUserId, name: principal.name ?? null, role: principal.kind };
}

export interface AuditQuery {
  rootAccountId?: string;
  /**
   * An account's trail: its administrators' entries and every entry of a course it connected (instructors' entries
   * carry no account, only their course).
   */
  accountScope?: string;
  courseId?: string;
  contentId?: string;
  actorLmsUserId?: string;
  /** An exact action, or an area prefix ending in `.` (`tool-preset.`). */
  action?: string;
  /** Entries whose details contain these values (`{ presetId }`). */
  details?: Record<string, string>;
  from?: Date;
  to?: Date;
  /** Entries older than this one (keyset paging, newest first). */
  before?: { occurredAt: Date; id: string };
  limit: number;
}

/** Anything that runs SQL: the ORM's connection, or an entity manager inside a transaction. */
export interface SqlExecutor {
  execute(sql: string, params: unknown[], method: 'run'): Promise<unknown>;
}

interface Row {
  id: string;
  occurred_at: Date;
  root_account_id: string | null;
  course_id: string | null;
  content_id: string | null;
  action: string;
  outcome: AuditOutcome;
  actor_lms_user_id: string | null;
  actor_name: string | null;
  actor_role: AuditActorRole;
  request_id: string | null;
  details: Record<string, z.infer<typeof detailValue>>;
}

/** The insert of one entry, checked against the schema (secret-looking detail keys refused). */
function insertStatement(input: AuditEntryInput): { sql: string; params: unknown[] } {
  const entry = auditEntrySchema.parse(input);
  return {
    sql: `insert into audit_entry (root_account_id, course_id, content_id, action, outcome, actor_lms_user_id, actor_name,
         actor_role, request_id, details)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb)`,
    params: [
      entry.rootAccountId,
      entry.courseId,
      entry.contentId,
      entry.action,
      entry.outcome,
      entry.actor.lmsUserId,
      entry.actor.name,
      entry.actor.role,
      entry.requestId,
      JSON.stringify(entry.details),
    ],
  };
}

/** A pending entry's id (`begin`), which `complete` fills in with the outcome. */
export type AuditAttempt = { readonly id: string };

export class AuditLog {
  constructor(
    private readonly orm: MikroORM,
    private readonly logger?: Logger,
  ) {}

  /**
   * Appends one entry. Pass the transaction's executor when the entry belongs to a change made in the same transaction,
   * so the trail never claims a change that rolled back.
   */
  async record(input: AuditEntryInput, executor: SqlExecutor = this.orm.em.getConnection()): Promise<void> {
    const { sql, params } = insertStatement(input);
    await executor.execute(sql, params, 'run');
  }

  /**
   * Enters an attempt as `pending` before it changes anything. When this throws, the caller must not make the change:
   * that is what keeps every change in the trail.
   */
  async begin(input: Omit<AuditEntryInput, 'outcome'>): Promise<AuditAttempt> {
    const { sql, params } = insertStatement({ ...input, outcome: 'pending' });
    const rows = await this.orm.em.getConnection().execute<Array<{ id: string | number }>>(`${sql} returning id`, params, 'all');
    return { id: String(rows[0]!.id) };
  }

  /**
   * Completes a pending entry with the attempt's outcome, adding `details` to those it began with. Never throws: the
   * change it records has happened (or failed) by now, and the caller must get that answer, not the trail's failure;
   * the entry then stays `pending` and the failure is logged.
   */
  async complete(attempt: AuditAttempt, outcome: AuditOutcome, details: AuditEntryInput['details'] = {}): Promise<void> {
    try {
      const completion = completionSchema.parse({ outcome, details });
      await this.orm.em
        .getConnection()
        .execute(
          `update audit_entry set outcome = ?, details = details || ?::jsonb where id = ? and outcome = 'pending'`,
          [completion.outcome, JSON.stringify(completion.details), attempt.id],
          'run',
        );
    } catch (error) {
      this.logger?.error({ err: error, auditEntryId: attempt.id, outcome }, 'audit entry stays pending: its outcome could not be written');
    }
  }

  /** Newest first, filtered; `limit` bounded by the caller's page size. */
  async list(query: AuditQuery): Promise<AuditEntry[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (clause: string, ...values: unknown[]) => {
      where.push(clause);
      params.push(...values);
    };
    if (query.rootAccountId !== undefined) add('root_account_id = ?', query.rootAccountId);
    if (query.accountScope !== undefined) {
      add('(root_account_id = ? or course_id in (select course_id from admin_course where account_id = ?))', query.accountScope, query.accountScope);
    }
    if (query.courseId !== undefined) add('course_id = ?', query.courseId);
    if (query.contentId !== undefined) add('content_id = ?', query.contentId);
    if (query.actorLmsUserId !== undefined) add('actor_lms_user_id = ?', query.actorLmsUserId);
    if (query.action !== undefined) {
      if (query.action.endsWith('.')) add("starts_with(action, ?)", query.action);
      else add('action = ?', query.action);
    }
    if (query.details !== undefined) add('details @> ?::jsonb', JSON.stringify(query.details));
    if (query.from !== undefined) add('occurred_at >= ?', query.from);
    if (query.to !== undefined) add('occurred_at < ?', query.to);
    if (query.before !== undefined) add('(occurred_at, id) < (?, ?)', query.before.occurredAt, query.before.id);
    const rows = await this.orm.em.getConnection().execute<Row[]>(
      `select id, occurred_at, root_account_id, course_id, content_id, action, outcome, actor_lms_user_id, actor_name,
         actor_role, request_id, details
       from audit_entry ${where.length > 0 ? `where ${where.join(' and ')}` : ''}
       order by occurred_at desc, id desc limit ?`,
      [...params, query.limit],
    );
    return rows.map((row) => ({
      id: String(row.id),
      occurredAt: new Date(row.occurred_at),
      action: row.action,
      outcome: row.outcome,
      actor: { lmsUserId: row.actor_lms_user_id, name: row.actor_name, role: row.actor_role },
      rootAccountId: row.root_account_id,
      courseId: row.course_id,
      contentId: row.content_id,
      requestId: row.request_id,
      details: row.details,
    }));
  }

  /** Removes entries older than the retention; returns how many. Run by the housekeeping schedule. */
  async purgeOlderThan(cutoff: Date): Promise<number> {
    const result = await this.orm.em
      .getConnection()
      .execute<{ affectedRows: number }>('delete from audit_entry where occurred_at < ?', [cutoff], 'run');
    return result.affectedRows;
  }
}
