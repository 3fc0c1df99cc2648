import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { ADMIN_TOOL_PRESET_LIMITS, type PresetDefinition, type PresetTool } from '@exb/shared/admin-tool-presets.js';
import { exbUrlRuleSchema, EXB_POLICY_LIMITS } from '@exb/shared/exb-policy.js';
import { lockAccount } from '../admin/admin-accounts.js';

/** A stored preset with its assignment counts (Document 2, "Preset"). */
export interface StoredPreset extends PresetDefinition {
  readonly id: string;
  readonly accountId: string;
  readonly assignedCourseIds: string[];
  readonly pendingAssignmentCount: number;
  readonly failedAssignmentCount: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

// Re-checked on the way out, so a row written by a bug elsewhere cannot reach a course catalog.
const storedToolSchema = z.object({
  label: z.string().min(1).max(EXB_POLICY_LIMITS.toolLabelLength),
  url: z.string().min(1).max(EXB_POLICY_LIMITS.urlLength),
  resourceRules: z.array(exbUrlRuleSchema).max(EXB_POLICY_LIMITS.resourceRules),
});

export function storedTool(value: unknown): PresetTool {
  return storedToolSchema.parse(value);
}

interface Row {
  id: string;
  account_id: string;
  name: string;
  description: string;
  tool: unknown;
  created_at: Date;
  updated_at: Date;
  assigned_course_ids: string[] | null;
  pending: string | number;
  failed: string | number;
}

const SELECT = `
  select p.id, p.account_id, p.name, p.description, p.tool, p.created_at, p.updated_at,
    (select array_agg(a.course_id order by length(a.course_id), a.course_id) from admin_tool_preset_assignment a
      where a.preset_id = p.id and a.desired_assigned) as assigned_course_ids,
    (select count(*) from admin_tool_preset_assignment a where a.preset_id = p.id and a.status = 'pending') as pending,
    (select count(*) from admin_tool_preset_assignment a where a.preset_id = p.id and a.status = 'failed') as failed
  from admin_tool_preset p`;

function toPreset(row: Row): StoredPreset {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    description: row.description,
    tool: storedTool(row.tool),
    assignedCourseIds: row.assigned_course_ids ?? [],
    pendingAssignmentCount: Number(row.pending),
    failedAssignmentCount: Number(row.failed),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

export type CreateOutcome = { readonly created: StoredPreset } | { readonly limitReached: true };

/** The presets of root accounts. Every read and write names the account; another account's preset is never found. */
export class PresetStore {
  constructor(private readonly orm: MikroORM) {}

  private run<T>(sql: string, params: unknown[], em?: EntityManager): Promise<T[]> {
    return (em ?? this.orm.em.getConnection()).execute<T[]>(sql, params);
  }

  async list(accountId: string): Promise<StoredPreset[]> {
    const rows = await this.run<Row>(`${SELECT} where p.account_id = ? order by p.created_at, p.id`, [accountId]);
    return rows.map(toPreset);
  }

  async find(accountId: string, presetId: string, em?: EntityManager): Promise<StoredPreset | null> {
    const rows = await this.run<Row>(`${SELECT} where p.account_id = ? and p.id = ?`, [accountId, presetId], em);
    return rows[0] === undefined ? null : toPreset(rows[0]);
  }

  /**
   * Creates a preset unless the account already has the maximum. The account's row is locked for the transaction
   * (`lockAccount`), so parallel creations count one after the other and never pass the limit together.
   */
  create(accountId: string, definition: PresetDefinition, byLmsUserId: string): Promise<CreateOutcome> {
    return this.orm.em.fork().transactional(async (em) => {
      await lockAccount(em, accountId);
      const [count] = await em.execute<{ n: string }[]>('select count(*) as n from admin_tool_preset where account_id = ?', [accountId]);
      if (Number(count!.n) >= ADMIN_TOOL_PRESET_LIMITS.perAccount) return { limitReached: true as const };
      const id = randomUUID();
      await em.execute(
        `insert into admin_tool_preset (id, account_id, name, description, tool, created_by_lms_user_id, updated_by_lms_user_id)
         values (?, ?, ?, ?, ?::jsonb, ?, ?)`,
        [id, accountId, definition.name, definition.description, JSON.stringify(definition.tool), byLmsUserId, byLmsUserId],
        'run',
      );
      return { created: (await this.find(accountId, id, em))! };
    });
  }

  /**
   * Replaces the definition and, in the same transaction, turns every wanted assignment `pending` with a new revision,
   * so the next pass propagates the change. Returns the requeued count, or `null` when the preset is not the account's.
   */
  update(accountId: string, presetId: string, definition: PresetDefinition, byLmsUserId: string): Promise<number | null> {
    return this.orm.em.fork().transactional(async (em) => {
      const updated = await em.execute<{ id: string }[]>(
        `update admin_tool_preset set name = ?, description = ?, tool = ?::jsonb, updated_by_lms_user_id = ?, updated_at = now()
         where account_id = ? and id = ? returning id`,
        [definition.name, definition.description, JSON.stringify(definition.tool), byLmsUserId, accountId, presetId],
      );
      if (updated.length === 0) return null;
      const requeued = await em.execute<{ affectedRows: number }>(
        `update admin_tool_preset_assignment set status = 'pending', revision = revision + 1, last_error_code = null, updated_at = now()
         where preset_id = ? and desired_assigned`,
        [presetId],
        'run',
      );
      return requeued.affectedRows;
    });
  }

  /**
   * Deletes a preset whose assignments are all settled removals: none wanted, none still on its way out of a course.
   * The applied records go first, then the preset, in one transaction; the rows are locked so an assignment made
   * meanwhile waits for the outcome. Returns `refused` while any assignment is active.
   */
  delete(accountId: string, presetId: string): Promise<{ deleted: true; removedRecords: number } | { refused: true } | null> {
    return this.orm.em.fork().transactional(async (em) => {
      const preset = await em.execute<{ id: string }[]>('select id from admin_tool_preset where account_id = ? and id = ? for update', [accountId, presetId]);
      if (preset.length === 0) return null;
      const active = await em.execute<{ n: string }[]>(
        `select count(*) as n from admin_tool_preset_assignment where preset_id = ? and (desired_assigned or status <> 'applied')`,
        [presetId],
      );
      if (Number(active[0]!.n) > 0) return { refused: true as const };
      const removed = await em.execute<{ affectedRows: number }>('delete from admin_tool_preset_assignment where preset_id = ?', [presetId], 'run');
      await em.execute('delete from admin_tool_preset where id = ?', [presetId], 'run');
      return { deleted: true as const, removedRecords: removed.affectedRows };
    });
  }

  /** The desired presets of one course, with their current definitions and the assignment revisions read. */
  async desiredFor(courseId: string, em: EntityManager): Promise<{ presetId: string; tool: PresetTool; desired: boolean; revision: number }[]> {
    const rows = await em.execute<{ preset_id: string; tool: unknown; desired_assigned: boolean; revision: number }[]>(
      `select a.preset_id, p.tool, a.desired_assigned, a.revision from admin_tool_preset_assignment a
       join admin_tool_preset p on p.id = a.preset_id and p.account_id = a.account_id
       where a.course_id = ? order by a.preset_id`,
      [courseId],
    );
    return rows.map((row) => ({ presetId: row.preset_id, tool: storedTool(row.tool), desired: row.desired_assigned, revision: Number(row.revision) }));
  }

  /** Summary counts of an account. */
  async counts(accountId: string) {
    const [row] = await this.run<{ presets: string; pending: string; failed: string }>(
      `select (select count(*) from admin_tool_preset where account_id = ?) as presets,
         count(*) filter (where status = 'pending') as pending, count(*) filter (where status = 'failed') as failed
       from admin_tool_preset_assignment where account_id = ?`,
      [accountId, accountId],
    );
    return {
      toolPresetCount: Number(row?.presets ?? 0),
      pendingPresetAssignmentCount: Number(row?.pending ?? 0),
      failedPresetAssignmentCount: Number(row?.failed ?? 0),
    };
  }
}
