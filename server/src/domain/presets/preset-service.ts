import { z } from 'zod';
import {
  ADMIN_TOOL_PRESET_LIMITS,
  canonicalCourseIds,
  normalizePresetInput,
  type BulkAssignmentInput,
  type PresetDefinition,
} from '@exb/shared/admin-tool-presets.js';
import { isLmsId } from '@exb/shared/content-id.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { audited, auditEntry, refusedOrFailed, type AuditDetails } from '../../audit/audited.js';
import type { LmsApi } from '../../lms/api.js';
import type { CourseConnections } from '../connected-courses/course-connections.js';
import { courseNotConnected, invalidCourseIds } from '../connected-courses/errors.js';
import type { Principal } from '../../identity/principal.js';
import type { AssignmentStore, FailedAssignment } from './assignment-store.js';
import type { CourseSync } from './course-sync.js';
import { InvalidPresetError, presetBusy, presetLimitReached, presetNotFound, presetStillAssigned, rolloutFailed, rolloutLimit } from './errors.js';
import type { PresetStore, StoredPreset } from './preset-store.js';
import type { PassResult, PresetReconciler } from './reconciler.js';
import { presetView, type PresetHistoryEntry, type PresetView } from './views.js';

type AdminPrincipal = Extract<Principal, { kind: 'admin' }>;

/** Who acts, and the request the change is recorded with. */
export interface Actor {
  readonly principal: AdminPrincipal;
  readonly requestId?: string;
}

export interface PresetServiceDependencies {
  readonly presets: PresetStore;
  readonly assignments: AssignmentStore;
  readonly connections: CourseConnections;
  readonly sync: CourseSync;
  readonly reconciler: PresetReconciler;
  readonly audit: AuditLog;
  readonly baseUrl: string;
  readonly batchSize: number;
}

export interface Rollout extends PassResult {
  readonly pending: number;
}

const uuid = z.uuid();
const HISTORY_LIMIT = 50;

/**
 * Document 2's tool presets: the account's presets, their assignments to connected courses and the reconciled rollout.
 * Every change is recorded in the audit trail with who made it; details say which fields and how many courses, never
 * a secret.
 */
export class PresetService {
  constructor(private readonly deps: PresetServiceDependencies) {}

  async list(accountId: string): Promise<PresetView[]> {
    return (await this.deps.presets.list(accountId)).map(presetView);
  }

  async create(actor: Actor, input: unknown): Promise<PresetView> {
    const definition = this.definition(input);
    const created = await this.audited(
      actor,
      { action: 'tool-preset.create', details: { name: definition.name, toolHost: new URL(definition.tool.url).host } },
      async () => {
        const outcome = await this.deps.presets.create(actor.principal.accountId, definition, actor.principal.lmsUserId);
        if ('limitReached' in outcome) throw presetLimitReached(ADMIN_TOOL_PRESET_LIMITS.perAccount);
        return outcome.created;
      },
      (preset) => ({ presetId: preset.id }),
    );
    return presetView(created);
  }

  async update(actor: Actor, presetId: string, input: unknown): Promise<PresetView> {
    const before = await this.preset(actor.principal.accountId, presetId);
    const definition = this.definition(input);
    await this.audited(
      actor,
      { action: 'tool-preset.update', details: { presetId: before.id, name: definition.name, changedFields: changedFields(before, definition) } },
      async () => {
        const requeued = await this.deps.presets.update(actor.principal.accountId, before.id, definition, actor.principal.lmsUserId);
        if (requeued === null) throw presetNotFound();
        return requeued;
      },
      (requeued) => ({ requeued }),
    );
    return presetView(await this.preset(actor.principal.accountId, before.id));
  }

  async delete(actor: Actor, presetId: string): Promise<{ success: true; deleted: string; removedRecords: number }> {
    const preset = await this.preset(actor.principal.accountId, presetId);
    const removedRecords = await this.audited(
      actor,
      { action: 'tool-preset.delete', details: { presetId: preset.id, name: preset.name } },
      async () => {
        const outcome = await this.deps.presets.delete(actor.principal.accountId, preset.id);
        if (outcome === null) throw presetNotFound();
        if ('refused' in outcome) throw presetStillAssigned();
        return outcome.removedRecords;
      },
      (removed) => ({ removedRecords: removed }),
    );
    return { success: true, deleted: preset.id, removedRecords };
  }

  /** `PUT .../courses/:courseId`: the wish saved, then one synchronization of that course; its failure is a 502. */
  async assignCourse(actor: Actor, presetId: string, courseId: string, assigned: boolean, lms: LmsApi) {
    const { accountId } = actor.principal;
    const preset = await this.preset(accountId, presetId);
    if (!isLmsId(courseId) || (await this.deps.connections.find(accountId, courseId)) === null) throw courseNotConnected();
    // Entered before anything changes, like every audited change; completed with the synchronization's outcome, which
    // (unlike a thrown error) still answers 502 after the wish was saved.
    const attempt = await this.deps.audit.begin(auditEntry(actor, { action: 'tool-preset.assign', courseId }, 'pending', { presetId: preset.id, assigned }));
    let outcome: Awaited<ReturnType<CourseSync['synchronize']>>;
    let status: string;
    try {
      await this.deps.assignments.setDesired(accountId, preset.id, courseId, assigned);
      outcome = await this.deps.sync.synchronize(accountId, courseId, lms);
      status = (await this.deps.assignments.status(preset.id, courseId)) ?? 'pending';
    } catch (error) {
      const { outcome: failed, errorCode } = refusedOrFailed(error);
      await this.deps.audit.complete(attempt, failed, { errorCode });
      throw error;
    }
    await this.deps.audit.complete(attempt, outcome.ok ? 'success' : 'failed', { status, ...(outcome.ok ? {} : { failure: outcome.errorCode }) });
    if (!outcome.ok) throw rolloutFailed(outcome.errorCode);
    return { success: true as const, preset: { id: preset.id }, courseId, assigned, status };
  }

  /** `PUT .../assignments`: every targeted course queued, then a first batch synchronized at once. */
  async assign(actor: Actor, presetId: string, input: BulkAssignmentInput, lms: LmsApi) {
    const { accountId } = actor.principal;
    const preset = await this.preset(accountId, presetId);
    const targets = await this.targets(accountId, input);
    const { queuedCount, pass, counts } = await this.audited(
      actor,
      { action: 'tool-preset.rollout', details: { presetId: preset.id, assigned: input.assigned, all: input.all } },
      async () => {
        const queuedCount = await this.deps.assignments.queue(accountId, preset.id, input.assigned, targets);
        const pass = (await this.deps.reconciler.presetPass(accountId, preset.id, ['pending'], lms, this.deps.batchSize)) ?? { processed: 0, applied: 0, failed: 0 };
        return { queuedCount, pass, counts: await this.deps.assignments.counts(preset.id) };
      },
      (done) => ({ queued: done.queuedCount, ...done.pass, pending: done.counts.pending }),
    );
    return {
      success: true as const,
      queuedCount,
      preset: { id: preset.id, pendingAssignmentCount: counts.pending },
      rollout: { ...pass, pending: counts.pending },
    };
  }

  /** `POST .../assignments/reconcile`: one pass over pending rows (and failed ones on request) under the preset lock. */
  async reconcile(actor: Actor, presetId: string, retryFailed: boolean, lms: LmsApi) {
    const preset = await this.preset(actor.principal.accountId, presetId);
    const statuses = retryFailed ? (['pending', 'failed'] as const) : (['pending'] as const);
    const { pass, counts } = await this.audited(
      actor,
      { action: 'tool-preset.reconcile', details: { presetId: preset.id, retryFailed } },
      async () => {
        const pass = await this.deps.reconciler.presetPass(actor.principal.accountId, preset.id, statuses, lms, this.deps.batchSize);
        if (pass === null) throw presetBusy();
        return { pass, counts: await this.deps.assignments.counts(preset.id) };
      },
      (done) => ({ ...done.pass, pending: done.counts.pending }),
    );
    return {
      success: true as const,
      preset: { id: preset.id, pendingAssignmentCount: counts.pending, failedAssignmentCount: counts.failed },
      rollout: { ...pass, pending: counts.pending },
    };
  }

  async failures(accountId: string, presetId: string): Promise<FailedAssignment[]> {
    return this.deps.assignments.failures((await this.preset(accountId, presetId)).id);
  }

  /** The preset's recorded changes, newest first; they outlive the preset itself. */
  async history(accountId: string, presetId: string): Promise<PresetHistoryEntry[]> {
    if (!uuid.safeParse(presetId).success) throw presetNotFound();
    const entries = await this.deps.audit.list({ rootAccountId: accountId, action: 'tool-preset.', details: { presetId: presetId.toLowerCase() }, limit: HISTORY_LIMIT });
    return entries.map((entry) => ({
      id: entry.id,
      occurredAt: entry.occurredAt.toISOString(),
      action: entry.action,
      outcome: entry.outcome,
      actorName: entry.actor.name,
      actorLmsUserId: entry.actor.lmsUserId,
      courseId: entry.courseId,
      details: entry.details,
    }));
  }

  private definition(input: unknown): PresetDefinition {
    const result = normalizePresetInput(input, { baseUrl: this.deps.baseUrl });
    if (!result.ok) throw new InvalidPresetError(result.error);
    return result.value;
  }

  /** The account's preset named by a UUID; an invalid or foreign one is not found. */
  private async preset(accountId: string, presetId: string): Promise<StoredPreset> {
    if (!uuid.safeParse(presetId).success) throw presetNotFound();
    const preset = await this.deps.presets.find(accountId, presetId.toLowerCase());
    if (preset === null) throw presetNotFound();
    return preset;
  }

  /** The courses a bulk request targets (`null`: every connected course), within the rollout limit. */
  private async targets(accountId: string, input: BulkAssignmentInput): Promise<string[] | null> {
    const limit = ADMIN_TOOL_PRESET_LIMITS.rolloutCourses;
    if (input.all) {
      if ((await this.deps.connections.counts(accountId)).courseCount > limit) throw rolloutLimit(limit);
      return null;
    }
    if (input.courseIds === undefined || input.courseIds.length === 0) throw invalidCourseIds('Name the courses to assign, or choose all connected courses.');
    const ids = canonicalCourseIds(input.courseIds);
    if (ids === null) throw invalidCourseIds('Course ids are numeric LMS course ids.');
    if (ids.length > limit) throw rolloutLimit(limit);
    const connected = await this.deps.connections.connectedAmong(accountId, ids);
    if (connected.size !== ids.length) throw courseNotConnected();
    return ids;
  }

  /** A change entered in the trail as `pending` before it runs and completed with its outcome (`audited`). */
  private audited<T>(actor: Actor, target: { action: string; details: AuditDetails }, work: () => Promise<T>, describe: (result: T) => AuditDetails): Promise<T> {
    return audited(this.deps.audit, actor, { ...target, courseId: null }, work, describe);
  }

}

function changedFields(before: PresetDefinition, after: PresetDefinition): string[] {
  const fields: string[] = [];
  if (before.name !== after.name) fields.push('name');
  if (before.description !== after.description) fields.push('description');
  if (before.tool.label !== after.tool.label) fields.push('tool.label');
  if (before.tool.url !== after.tool.url) fields.push('tool.url');
  if (JSON.stringify(before.tool.resourceRules) !== JSON.stringify(after.tool.resourceRules)) fields.push('tool.resourceRules');
  return fields;
}

