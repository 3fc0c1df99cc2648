import type { LmsQuizSubmission, LmsSubmission } from '../../lms/index.js';

/**
 * What the LMS says of one student's current attempt, as the board records it. Pure: the LMS's answers in, the
 * attempt times out; nothing here reads or writes.
 */
export interface AttemptTimes {
  readonly lmsUserId: string;
  /** ISO instant; `null` when the LMS does not say (a new quiz's attempt in progress is not visible, note §4.10). */
  readonly startedAt: string | null;
  readonly submittedAt: string | null;
}

function instant(value: string | null): string | null {
  if (value === null) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/**
 * A classic quiz's submissions: `untaken` is an attempt in progress, `complete` and `pending_review` are submitted.
 * `settings_only` (an extension for someone who has not started) and `preview` (a teacher's) are no attempt.
 */
export function classicQuizAttempts(submissions: readonly LmsQuizSubmission[]): AttemptTimes[] {
  const attempts: AttemptTimes[] = [];
  for (const submission of submissions) {
    const startedAt = instant(submission.startedAt);
    if (submission.workflowState === 'untaken') {
      if (startedAt !== null) attempts.push({ lmsUserId: submission.userId, startedAt, submittedAt: null });
    } else if (submission.workflowState === 'complete' || submission.workflowState === 'pending_review') {
      const submittedAt = instant(submission.finishedAt);
      if (submittedAt !== null) attempts.push({ lmsUserId: submission.userId, startedAt, submittedAt });
    }
  }
  return attempts;
}

/**
 * A new quiz's assignment submissions: one per student, `unsubmitted` until the attempt is turned in. A graded
 * submission without `submitted_at` was graded without an attempt (a grade entered by hand) and counts as none.
 */
export function newQuizAttempts(submissions: readonly LmsSubmission[]): AttemptTimes[] {
  const attempts: AttemptTimes[] = [];
  for (const submission of submissions) {
    if (submission.workflowState === 'unsubmitted') continue;
    const submittedAt = instant(submission.submittedAt);
    if (submittedAt !== null) attempts.push({ lmsUserId: submission.userId, startedAt: null, submittedAt });
  }
  return attempts;
}
