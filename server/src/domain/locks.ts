import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { leaseNames, withLease, type LeaseName } from '../db/leases.js';
import { DomainError } from '../domain-error.js';

/**
 * The management locks, as rows of the `lease` table so every instance sees them:
 * - `assessment:{courseId}:{contentId}`: one mutation of an assessment at a time (enforcement, policy, code).
 * - `course-write:{courseId}`: one course-level write at a time (defaults, discovery, tool copies into the course).
 * - `course-reset:{courseId}`: set by the administrator's course reset while it runs; every mutation checks it, and the
 *   reset's journal (`course_reset_journal`), which outlives a reset whose process died until it is settled.
 *
 * A lock is never waited for: an overlapping request is refused with 409 and may simply be retried, which keeps
 * requests short and makes a double click harmless.
 *
 * Lifetimes only matter when a holder dies without releasing; they must outlast the slowest legitimate holder, or a
 * second request could take the lock while the first is still writing. An assessment mutation makes one LMS call
 * (15 s deadline, which may first wait up to 20 s for another request's token refresh) plus a few statements: 60 s.
 * A course write may list a whole course or the user's courses (45 s per listing): 120 s.
 */
export const ASSESSMENT_LOCK_TTL_SECONDS = 60;
export const COURSE_WRITE_LOCK_TTL_SECONDS = 120;

export const lockNames = {
  assessment: leaseNames.assessment,
  courseWrite: leaseNames.courseWrite,
  courseReset: leaseNames.courseReset,
} as const;

export function assessmentBusyError(): DomainError {
  return new DomainError(ErrorCodes.ASSESSMENT_OPERATION_IN_PROGRESS,
    'Another change to this assessment is in progress. Try again in a moment.',
  );
}

export function courseUpdateInProgressError(): DomainError {
  return new DomainError(ErrorCodes.COURSE_UPDATE_IN_PROGRESS, 'Another change to this course is in progress. Try again in a moment.');
}

export function courseResetInProgressError(): DomainError {
  return new DomainError(ErrorCodes.COURSE_RESET_IN_PROGRESS, 'This course is being reset. Try again when the reset has finished.');
}

export class ManagementLocks {
  constructor(
    private readonly orm: MikroORM,
    private readonly logger: Logger,
  ) {}

  /**
   * Refuses with `COURSE_RESET_IN_PROGRESS` while a reset of the course runs, or one that was interrupted has not been
   * finished or undone yet (its journal is still there): a change made meanwhile would be overwritten by the codes the
   * recovery puts back, or deleted by the transaction it finishes.
   */
  async assertNoReset(courseId: string): Promise<void> {
    const rows = await this.orm.em.getConnection().execute<{ held: number }[]>(
      `select 1 as held from lease where name = ? and expires_at > now()
       union all select 1 from course_reset_journal where course_id = ? limit 1`,
      [lockNames.courseReset(courseId), courseId],
    );
    if (rows.length > 0) throw courseResetInProgressError();
  }

  /**
   * Runs `work` holding the assessment's operation lock. The reset marker is checked after the lock is taken: a reset
   * sets its marker before it looks for assessment locks, so either it sees this lock (and stops) or this sees its
   * marker (and stops), never neither.
   */
  withAssessmentLock<T>(courseId: string, contentId: string, work: () => Promise<T>): Promise<T> {
    return this.withLock(lockNames.assessment(courseId, contentId), ASSESSMENT_LOCK_TTL_SECONDS, assessmentBusyError, courseId, work);
  }

  /** Runs `work` holding the course write lock; same reset ordering as {@link withAssessmentLock}. */
  withCourseWriteLock<T>(courseId: string, work: () => Promise<T>): Promise<T> {
    return this.withLock(lockNames.courseWrite(courseId), COURSE_WRITE_LOCK_TTL_SECONDS, courseUpdateInProgressError, courseId, work);
  }

  private async withLock<T>(
    name: LeaseName,
    ttlSeconds: number,
    busy: () => DomainError,
    courseId: string,
    work: () => Promise<T>,
  ): Promise<T> {
    const outcome = await withLease(this.orm, { name, ttlSeconds, logger: this.logger }, async () => {
      await this.assertNoReset(courseId);
      return work();
    });
    if (!outcome.held) throw busy();
    return outcome.value;
  }
}
