import { ErrorCodes } from '@exb/shared/error-codes.js';
import type { LmsApi } from '../../lms/api.js';
import { LmsInvalidResponseError, LmsTimeoutError, LmsUnavailableError } from '../../lms/errors.js';
import { DomainError } from '../../domain-error.js';
import type { AssessmentRef } from '../assessments/scope.js';

export type AccessCodeTarget = Pick<AssessmentRef, 'courseId' | 'contentType' | 'lmsAssessmentId'>;

/**
 * Sets (`code`) or removes (`null`) the access code of an assessment in the LMS, through the API of its kind:
 * classic quizzes take `quiz[access_code]` on the quiz update, new quizzes take `require_student_access_code` and
 * `student_access_code` on the new-quiz settings. The answer is checked where the LMS shows the code: an LMS that
 * accepted the call but kept another code would otherwise leave students with a code that opens nothing.
 */
export async function writeLmsAccessCode(lms: LmsApi, target: AccessCodeTarget, code: string | null): Promise<void> {
  if (target.contentType === 'CLASSIC_QUIZ') {
    const quiz = await lms.updateQuiz(target.courseId, target.lmsAssessmentId, { accessCode: code });
    // `undefined`: the LMS does not show codes to this caller, so there is nothing to compare.
    if (quiz.accessCode !== undefined && quiz.accessCode !== code) throw accessCodeNotApplied();
    return;
  }
  const quiz = await lms.patchNewQuiz(target.courseId, target.lmsAssessmentId, {
    requireStudentAccessCode: code !== null,
    studentAccessCode: code,
  });
  const shown = quiz.studentAccessCode;
  // An answer without settings shows no code; only a code other than the one sent, or one that stayed, is a failure.
  if (code !== null ? shown !== null && shown !== code : shown !== null || quiz.requireStudentAccessCode) throw accessCodeNotApplied();
}

function accessCodeNotApplied(): DomainError {
  return new DomainError(ErrorCodes.LMS_ACCESS_CODE_NOT_APPLIED, 'The LMS did not apply the access code change. Try again.');
}

/**
 * Failures of an access-code write after which the LMS may or may not have applied it (a timeout, a dropped connection,
 * a server error, an unusable answer, an answer showing another code); refusals (4xx) applied nothing.
 */
export function isOutcomeUnknown(error: unknown): boolean {
  return (
    error instanceof LmsTimeoutError ||
    error instanceof LmsUnavailableError ||
    error instanceof LmsInvalidResponseError ||
    (error instanceof DomainError && error.errorCode === ErrorCodes.LMS_ACCESS_CODE_NOT_APPLIED)
  );
}
