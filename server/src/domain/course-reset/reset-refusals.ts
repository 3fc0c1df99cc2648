import { ErrorCodes, type AnswerErrorCode } from '@exb/shared/error-codes.js';
import { DomainError } from '../../domain-error.js';
import { domainErrorFrom, type KnownErrorOptions } from '../known-errors.js';
import type { ResetAssessment } from './model.js';

/**
 * The answers of a reset that did not complete (Document 2, Errors), worded once. Each names, beside `error_code` and
 * `message`, how the reset ended (`outcome`) and, where something needs a person's eye, the `assessments` to check.
 *
 * - `refused`: stopped before changing anything;
 * - `rolled-back`: changes were made and every one was undone; nothing was lost;
 * - `verify-required`: the service cannot tell, or could not restore, the state of the named assessments.
 */

type Outcome = 'refused' | 'rolled-back' | 'verify-required';

function refusal(code: AnswerErrorCode, message: string, outcome: Outcome, assessments?: readonly ResetAssessment[], cause?: unknown) {
  const details = assessments === undefined ? { outcome } : { outcome, assessments: [...assessments] };
  return new DomainError(code, message, { details, ...(cause === undefined ? {} : { cause }) });
}

export function confirmationRequired(): DomainError {
  return refusal(
    ErrorCodes.ADMIN_COURSE_RESET_CONFIRMATION_REQUIRED,
    'Type the course id to confirm the reset. Nothing was changed.',
    'refused',
  );
}

export function assessmentBusy(): DomainError {
  return refusal(
    ErrorCodes.ADMIN_COURSE_RESET_ASSESSMENT_BUSY,
    'A change to one of the course’s assessments is in progress. Nothing was deleted; try the reset again in a moment.',
    'refused',
  );
}

export function courseWriteBusy(): DomainError {
  return refusal(
    ErrorCodes.COURSE_UPDATE_IN_PROGRESS,
    'Another change to this course is in progress. Nothing was deleted; try the reset again in a moment.',
    'refused',
  );
}

export function identityUnavailable(assessments: readonly ResetAssessment[]): DomainError {
  return refusal(
    ErrorCodes.ADMIN_COURSE_RESET_ASSESSMENT_IDENTITY_UNAVAILABLE,
    'The LMS did not identify every enforced assessment, so their access codes could not be removed safely. Nothing was deleted; refresh the course and check these assessments in the LMS.',
    'refused',
    assessments,
  );
}

/** The LMS hides an enforced classic quiz's code from the administrator: it could not be put back, so none is touched. */
export function accessCodeHidden(assessments: readonly ResetAssessment[]): DomainError {
  return refusal(
    ErrorCodes.LMS_PERMISSION_DENIED,
    'The LMS does not show the access code of an enforced assessment to your account. Nothing was deleted.',
    'refused',
    assessments,
  );
}

export function rollbackVerifyRequired(assessments: readonly ResetAssessment[]): DomainError {
  return refusal(
    ErrorCodes.ADMIN_COURSE_RESET_ROLLBACK_VERIFY_REQUIRED,
    'The reset stopped and the access codes of these assessments could not be put back in the LMS. Nothing was deleted here; check them in the LMS, then require the exam browser for them again.',
    'verify-required',
    assessments,
  );
}

export function verifyRequired(reason: 'lease-lost' | 'commit-unknown' | 'interrupted', assessments: readonly ResetAssessment[]): DomainError {
  const why = {
    'lease-lost': 'The reset lost its lock on the course before it finished, so it stopped.',
    'commit-unknown': 'The connection to the database was lost while the reset was being saved, and whether it was saved could not be read back.',
    interrupted: 'An earlier reset of this course was interrupted, and the access codes it removed could not be put back yet. Nothing was changed now.',
  }[reason];
  return refusal(
    ErrorCodes.ADMIN_COURSE_RESET_VERIFY_REQUIRED,
    `${why} Refresh the course and check these assessments in the LMS before trying again.`,
    'verify-required',
    assessments,
  );
}

/**
 * A stop before any change: the refusal the failure stands for (an LMS or database error as its contract code), marked
 * as refused. An error that is no refusal (a bug) stays as it is and answers 500.
 */
export function refusedBecause(error: unknown, options: KnownErrorOptions): unknown {
  const known = domainErrorFrom(error, options);
  if (known === null) return error;
  return new DomainError(known.errorCode, `${known.message} Nothing was deleted.`, {
    ...(known.authUrl === undefined ? {} : { authUrl: known.authUrl }),
    details: { outcome: 'refused', ...known.details },
    cause: error,
  });
}

/** A stop after changes that were all undone: the failure's own refusal, saying that nothing was lost. */
export function rolledBackBecause(error: unknown, options: KnownErrorOptions): DomainError {
  // A database that refused the transaction's statements (not an outage, which has its own code) is an internal error.
  const known = domainErrorFrom(error, options) ?? new DomainError(ErrorCodes.INTERNAL_ERROR, 'The reset could not be saved.');
  return new DomainError(known.errorCode, `${known.message} The reset was rolled back: every access code is back in place and nothing was deleted.`, {
    ...(known.authUrl === undefined ? {} : { authUrl: known.authUrl }),
    details: { outcome: 'rolled-back' },
    cause: error,
  });
}
