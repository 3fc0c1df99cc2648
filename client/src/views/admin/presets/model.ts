import { ErrorCodes } from '@exb/shared/error-codes.js';
import type { RouterOutputs } from '../../../lib/trpc';

type Presets = RouterOutputs['admin']['toolPresets'];

export type Preset = Presets['list']['presets'][number];
export type RolloutAnswer = Presets['assign'];
export type Rollout = RolloutAnswer['rollout'];
export type FailedCourse = Presets['failures']['courses'][number];
export type HistoryEntry = Presets['history']['entries'][number];

/** Why a course could not be updated, in words, for the failure list. */
export function failureReason(errorCode: string | null): string {
  switch (errorCode) {
    case ErrorCodes.COURSE_UPDATE_IN_PROGRESS:
      return 'Another change to the course was running.';
    case ErrorCodes.COURSE_RESET_IN_PROGRESS:
      return 'The course was being reset.';
    case ErrorCodes.ADMIN_COURSE_NOT_CONNECTED:
      return 'The course is no longer in this account.';
    case ErrorCodes.CATALOG_FULL:
      return 'The course already has 50 exam tools.';
    case ErrorCodes.TOOL_ID_TAKEN:
      return 'A course tool already uses this preset’s id.';
    case ErrorCodes.LMS_AUTHORIZATION_REQUIRED:
      return 'The LMS no longer accepts your authorization.';
    case ErrorCodes.LMS_PERMISSION_DENIED:
      return 'The LMS refused access to the course.';
    default:
      return errorCode?.startsWith('LMS_') ? 'The LMS did not answer as expected.' : 'The course could not be updated.';
  }
}

const ACTIONS: Record<string, string> = {
  'tool-preset.create': 'Created',
  'tool-preset.update': 'Changed',
  'tool-preset.delete': 'Deleted',
  'tool-preset.assign': 'Assignment of one course',
  'tool-preset.rollout': 'Rollout started',
  'tool-preset.reconcile': 'Rollout pass',
};

/** One history line: what happened, with the counts or fields the entry recorded. */
export function describeEntry(entry: HistoryEntry): string {
  const details = entry.details as Record<string, unknown>;
  const action = ACTIONS[entry.action] ?? entry.action;
  const parts: string[] = [];
  if (Array.isArray(details.changedFields) && details.changedFields.length > 0) parts.push(`fields: ${details.changedFields.join(', ')}`);
  if (typeof details.assigned === 'boolean') parts.push(details.assigned ? 'assign' : 'unassign');
  if (entry.courseId !== null) parts.push(`course ${entry.courseId}`);
  if (typeof details.status === 'string') parts.push(String(details.status));
  if (typeof details.queued === 'number') parts.push(`${details.queued} queued`);
  if (typeof details.processed === 'number') parts.push(`${details.applied as number} applied, ${details.failed as number} failed, ${details.pending as number} pending`);
  if (typeof details.requeued === 'number' && details.requeued > 0) parts.push(`${details.requeued} courses to update`);
  return parts.length > 0 ? `${action} (${parts.join('; ')})` : action;
}
