import { z } from 'zod';
import {
  ADMIN_TOOL_PRESET_LIMITS,
  canonicalCourseIds,
  normalizePresetInput,
  type BulkAssignmentInput,
  type PresetDefinition,
} from '@exb/shared/admin-tool-presets.js';
import { isLmsId } from '@exb/shared/content-id.js';
import { auditActor, type AuditEntryInput, type AuditLog } from '../../audit/audit-log.js';
import type { LmsApi } from '../../lms/api.js';
import type { CourseConnections } from '../admin/course-connections.js';
import { courseNotConnected, invalidCourseIds } from '../admin/errors.js';
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
    const outcome = await this.deps.presets.create(actor.principal.accountId, definition, actor.principal.lmsUserId);
    if ('limitReached' in outcome) throw presetLimitReached(ADMIN_TOOL_PRESET_LIMITS.perAccount);
    await this.record(actor, 'tool-preset.create', { presetId: outcome.created.id, name: definition.name, toolHost: new URL(definition.tool.url).host });
    return presetView(outcome.created);
  }

  async update(actor: Actor, presetId: string, input: unknown): Promise<PresetView> {
    const before = await this.preset(actor.principal.accountId, presetId);
    const definition = this.definition(input);
    const requeued = await this.deps.presets.update(actor.principal.accountId, before.id, definition, actor.principal.lmsUserId);
    if (requeued === null) throw presetNotFound();
    await this.record(actor, 'tool-preset.update', { presetId: before.id, name: definition.name, changedFields: changedFields(before, definition), requeued });
    return presetView(await this.preset(actor.principal.accountId, before.id));
  }

  async delete(actor: Actor, presetId: string): Promise<{ success: true; deleted: string; removedRecords: number }> {
    const preset = await this.preset(actor.principal.accountId, presetId);
    const outcome = await this.deps.presets.delete(actor.principal.accountId, preset.id);
    if (outcome === null) throw presetNotFound();
    if ('refused' in outcome) throw presetStillAssigned();
    await this.record(actor, 'tool-preset.delete', { presetId: preset.id, name: preset.name, removedRecords: outcome.removedRecords });
    return { success: true, deleted: preset.id, removedRecords: outcome.removedRecords };
  }

  /** `PUT .../courses/:courseId`: the wish saved, then one synchronization of that course; its failure is a 502. */
  async assignCourse(actor: Actor, presetId: string, courseId: string, assigned: boolean, lms: LmsApi) {
    const { accountId } = actor.principal;
    const preset = await this.preset(accountId, presetId);
    if (!isLmsId(courseId) || (await this.deps.connections.find(accountId, courseId)) === null) throw courseNotConnected();
    await this.deps.assignments.setDesired(accountId, preset.id, courseId, assigned);
    const outcome = await this.deps.sync.synchronize(accountId, courseId, lms);
    const status = (await this.deps.assignments.status(preset.id, courseId)) ?? 'pending';
    await this.record(actor, 'tool-preset.assign', { presetId: preset.id, assigned, status, ...(outcome.ok ? {} : { failure: outcome.errorCode }) }, {
      courseId,
      outcome: outcome.ok ? 'success' : 'failed',
    });
    if (!outcome.ok) throw rolloutFailed(outcome.errorCode);
    return { success: true as const, preset: { id: preset.id }, courseId, assigned, status };
  }

  /** `PUT .../assignments`: every targeted course queued, then a first batch synchronized at once. */
  async assign(actor: Actor, presetId: string, input: BulkAssignmentInput, lms: LmsApi) {
    const { accountId } = actor.principal;
    const preset = await this.preset(accountId, presetId);
    const targets = await this.targets(accountId, input);
    const queuedCount = await this.deps.assignments.queue(accountId, preset.id, input.assigned, targets);
    const pass = (await this.deps.reconciler.presetPass(accountId, preset.id, ['pending'], lms, this.deps.batchSize)) ?? { processed: 0, applied: 0, failed: 0 };
    const counts = await this.deps.assignments.counts(preset.id);
    await this.record(actor, 'tool-preset.rollout', { presetId: preset.id, assigned: input.assigned, all: input.all, queued: queuedCount, ...pass, pending: counts.pending });
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
    const pass = await this.deps.reconciler.presetPass(actor.principal.accountId, preset.id, statuses, lms, this.deps.batchSize);
    if (pass === null) throw presetBusy();
    const counts = await this.deps.assignments.counts(preset.id);
    if (pass.processed > 0) await this.record(actor, 'tool-preset.reconcile', { presetId: preset.id, retryFailed, ...pass, pending: counts.pending });
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

  private record(
    actor: Actor,
    action: string,
    details: AuditEntryInput['details'],
    extra: { courseId?: string; outcome?: 'success' | 'failed' } = {},
  ): Promise<void> {
    return this.deps.audit.record({
      action,
      outcome: extra.outcome ?? 'success',
      actor: auditActor(actor.principal),
      rootAccountId: actor.principal.accountId,
      courseId: extra.courseId ?? null,
      requestId: actor.requestId ?? null,
      details,
    });
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
