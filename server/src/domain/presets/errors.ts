import { ErrorCodes, type ErrorCode } from '@exb/shared/error-codes.js';
import type { PresetRefusal } from '@exb/shared/admin-tool-presets.js';
import { DomainError } from '../../domain-error.js';

/** The tool-preset refusals of Document 2's error table, worded once. */

/** An invalid preset, with where in the body the problem is, so the dashboard shows it at the field. */
export class InvalidPresetError extends DomainError {
  readonly path: (string | number)[];

  constructor(refusal: PresetRefusal) {
    super(refusal.errorCode, refusal.message);
    this.name = 'InvalidPresetError';
    this.path = [...refusal.path];
  }
}

export function presetNotFound(): DomainError {
  return new DomainError(ErrorCodes.ADMIN_TOOL_PRESET_NOT_FOUND, 'There is no such tool preset in your account.');
}

export function presetLimitReached(limit: number): DomainError {
  return new DomainError(ErrorCodes.ADMIN_TOOL_PRESET_LIMIT, `Your account already has ${limit} tool presets. Delete one before adding another.`);
}

export function presetStillAssigned(): DomainError {
  return new DomainError(ErrorCodes.ADMIN_TOOL_PRESET_ASSIGNED,
    'This preset is still assigned to courses, or is still being removed from some. Unassign it everywhere and let the rollout finish, then delete it.',
  );
}

export function rolloutFailed(errorCode: ErrorCode): DomainError {
  return new DomainError(ErrorCodes.ADMIN_TOOL_PRESET_ROLLOUT_FAILED,
    `The assignment is saved, but the course could not be updated yet (${errorCode}). It is retried with the next reconciliation.`,
  );
}

export function rolloutLimit(limit: number): DomainError {
  return new DomainError(ErrorCodes.ADMIN_TOOL_PRESET_ROLLOUT_LIMIT, `One rollout can target at most ${limit.toLocaleString('en-US')} connected courses.`);
}

/** Not in the contract's table: the overlapping-operation 409 the contract gives every operation lock. */
export function presetBusy(): DomainError {
  return new DomainError(ErrorCodes.ADMIN_TOOL_PRESET_BUSY, 'Another reconciliation of this preset is running. Try again in a moment.');
}
