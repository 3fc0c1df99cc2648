import type { EntityManager } from '@mikro-orm/postgresql';
import type { SqlOnClient } from '../../db/pg-transaction.js';
import { verificationStatusSchema, type VerificationStatus } from '@exb/shared/verification-status.js';
import type { ContentType } from './model.js';
import { checkCourse, checkScope } from './settings-scope.js';

/**
 * The checks of the LMS's access code kept on `assessment_setting`: recording one, the last of each enforced
 * assessment, and which are due again. The settings repository answers them through these statements.
 */

/** The outcome of comparing the LMS's access code with the stored one. */
export interface VerificationOutcome {
  readonly status: VerificationStatus;
  /** Why the check did not prove the code (`null` when it did). */
  readonly reason: string | null;
  /** Whose grant checked it; `null` keeps the one recorded before. */
  readonly byLmsUserId: string | null;
}

/** The last check of an enforced assessment, as the management views show it. */
export interface VerificationRecord {
  readonly status: VerificationStatus;
  readonly checkedAt: Date | null;
  readonly reason: string | null;
}

/** An enforced assessment of a published quiz the background verifier should check, oldest check first. */
export interface VerificationDue {
  readonly courseId: string;
  readonly contentId: string;
  readonly contentType: ContentType;
  readonly lmsAssessmentId: string;
  readonly verifiedByLmsUserId: string | null;
}

/**
 * Records a check of the LMS's access code. Only while the setting still has the `version` the check started from:
 * a change made meanwhile (enable, a new code) makes the comparison meaningless, so it is dropped (`false`). The
 * version is not advanced: a check is no change of the setting, and must not make a concurrent save conflict.
 */
export async function recordVerification(
  em: EntityManager,
  courseId: string,
  contentId: string,
  version: number,
  outcome: VerificationOutcome,
): Promise<boolean> {
  checkScope(courseId, contentId);
  const rows = await em.execute<{ one: number }[]>(
    `update assessment_setting set verification_status = ?, verification_reason = ?, verified_at = now(),
       verified_by_lms_user_id = coalesce(?, verified_by_lms_user_id)
     where course_id = ? and content_id = ? and version = ?
     returning 1 as one`,
    [verificationStatusOf(outcome.status), outcome.reason?.slice(0, 200) ?? null, outcome.byLmsUserId, courseId, contentId, version],
  );
  return rows.length > 0;
}

/**
 * Marks assessments whose access code a course reset is about to change in the LMS as `unverified`, with why: while
 * the reset runs (or after it was cut off) nobody knows whether the LMS still holds their codes, so no view may keep
 * saying `verified`. `verified_at` is cleared so the background verifier checks them before anything else once the
 * reset was undone. Like a check, it leaves the setting's version alone.
 */
export async function markCodesUnknown(tx: SqlOnClient, courseId: string, contentIds: readonly string[], reason: string): Promise<void> {
  checkCourse(courseId);
  if (contentIds.length === 0) return;
  await tx.execute(
    `update assessment_setting set verification_status = 'unverified', verification_reason = ?, verified_at = null
     where course_id = ? and content_id = any(?::text[])`,
    [reason.slice(0, 200), courseId, [...contentIds]],
    'run',
  );
}

/** The last check of every enforced assessment of the course, by content id. */
export async function listVerifications(em: EntityManager, courseId: string): Promise<Map<string, VerificationRecord>> {
  checkCourse(courseId);
  const rows = await em.execute<{ content_id: string; verification_status: string; verified_at: Date | null; verification_reason: string | null }[]>(
    `select content_id, verification_status, verified_at, verification_reason from assessment_setting
     where course_id = ? and exb_required and enabled`,
    [courseId],
  );
  return new Map(
    rows.map((row) => [
      row.content_id,
      {
        status: verificationStatusOf(row.verification_status),
        checkedAt: row.verified_at === null ? null : new Date(row.verified_at),
        reason: row.verification_reason,
      },
    ]),
  );
}

/**
 * Enforced assessments of published quizzes whose last check is older than `checkedBefore` (or that were never
 * checked), oldest first. An unpublished quiz cannot be taken, so it waits until discovery sees it published.
 */
export async function dueForVerification(em: EntityManager, limit: number, checkedBefore: Date): Promise<VerificationDue[]> {
  const rows = await em.execute<
    { course_id: string; content_id: string; content_type: ContentType; lms_assessment_id: string; verified_by_lms_user_id: string | null }[]
  >(
    `select s.course_id, s.content_id, a.content_type, a.lms_assessment_id, s.verified_by_lms_user_id
     from assessment_setting s
     join assessment a on a.course_id = s.course_id and a.content_id = s.content_id
     where s.exb_required and s.enabled and a.published and (s.verified_at is null or s.verified_at < ?)
     order by s.verified_at nulls first, s.course_id, s.content_id
     limit ?`,
    [checkedBefore, limit],
  );
  return rows.map((row) => ({
    courseId: row.course_id,
    contentId: row.content_id,
    contentType: row.content_type,
    lmsAssessmentId: row.lms_assessment_id,
    verifiedByLmsUserId: row.verified_by_lms_user_id,
  }));
}

function verificationStatusOf(value: unknown): VerificationStatus {
  return verificationStatusSchema.parse(value);
}
