import { ASSIGNMENT_STATUSES, type AssignmentStatus } from '@exb/shared/admin-tool-presets.js';
import { i18next } from '../../../i18n/i18n';
import type { RouterOutputs } from '../../../lib/trpc';
import { courseFailureReason } from '../failure-reasons';

type Presets = RouterOutputs['admin']['toolPresets'];

export type Preset = Presets['list']['presets'][number];
export type RolloutAnswer = Presets['assign'];
export type Rollout = RolloutAnswer['rollout'];
export type FailedCourse = Presets['failures']['courses'][number];
export type HistoryEntry = Presets['history']['entries'][number];

/** Why a course could not be updated, in words, for the failure list. */
export function failureReason(errorCode: string | null): string {
  return courseFailureReason(errorCode, i18next.t('admin:failure.notUpdated'));
}

const ACTIONS = {
  'tool-preset.create': 'created',
  'tool-preset.update': 'changed',
  'tool-preset.delete': 'deleted',
  'tool-preset.assign': 'assignedOne',
  'tool-preset.rollout': 'rolloutStarted',
  'tool-preset.reconcile': 'rolloutPass',
} as const;

const isKnownAction = (action: string): action is keyof typeof ACTIONS => Object.hasOwn(ACTIONS, action);
const number = (value: unknown) => (typeof value === 'number' ? value.toLocaleString(i18next.language) : '?');

/** One history line: what happened, with the counts or fields the entry recorded. */
export function describeEntry(entry: HistoryEntry): string {
  const t = i18next.t;
  const details = entry.details as Record<string, unknown>;
  const action = isKnownAction(entry.action) ? t(`admin:presets.history.action.${ACTIONS[entry.action]}`) : entry.action;
  const parts: string[] = [];
  if (Array.isArray(details.changedFields) && details.changedFields.length > 0) {
    parts.push(t('admin:presets.history.fields', { fields: details.changedFields.map(fieldLabel).join(', ') }));
  }
  if (typeof details.assigned === 'boolean') parts.push(details.assigned ? t('admin:presets.history.assign') : t('admin:presets.history.unassign'));
  if (entry.courseId !== null) parts.push(t('admin:presets.history.course', { id: entry.courseId }));
  if (typeof details.status === 'string') parts.push(statusLabel(details.status));
  if (typeof details.queued === 'number') parts.push(t('admin:presets.history.queued', { number: number(details.queued) }));
  if (typeof details.processed === 'number') {
    parts.push(t('admin:presets.history.pass', { applied: number(details.applied), failed: number(details.failed), pending: number(details.pending) }));
  }
  if (typeof details.requeued === 'number' && details.requeued > 0) {
    parts.push(t('admin:presets.history.requeued', { count: details.requeued, number: number(details.requeued) }));
  }
  return parts.length > 0 ? t('admin:presets.history.line', { action, details: parts.join('; ') }) : action;
}

const isStatus = (value: string): value is AssignmentStatus => (ASSIGNMENT_STATUSES as readonly string[]).includes(value);

/** An assignment's status as the history records it (`pending`, `applied`, `failed`), in words. */
function statusLabel(status: string): string {
  return isStatus(status) ? i18next.t(`admin:presets.status.${status}`) : status;
}

const FIELDS = { name: 'name', description: 'description', 'tool.label': 'toolLabel', 'tool.url': 'toolUrl', 'tool.resourceRules': 'resourceRules' } as const;

/** A changed field as the history names it (`tool.url`), in words. */
function fieldLabel(field: unknown): string {
  const name = String(field);
  return Object.hasOwn(FIELDS, name) ? i18next.t(`admin:presets.history.field.${FIELDS[name as keyof typeof FIELDS]}`) : name;
}
