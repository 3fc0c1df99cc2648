import type { LmsAssignment, LmsNewQuiz, LmsQuiz } from '../../lms/schemas.js';
import type { CapturedAssessment, EnforcedAssessment, ResetAssessment, ResetPlan, ResetPreview } from './model.js';

/**
 * The pure rules of a course reset, apart from HTTP, the LMS client and storage, so each can be read and tested on its
 * own.
 */

/** Document 2: `confirmation` must be present and equal to the path's course id, before anything else happens. */
export function isConfirmed(confirmation: unknown, courseId: string): boolean {
  return typeof confirmation === 'string' && confirmation === courseId;
}

/**
 * A stored setting the service enforces: it requires the exam browser, is switched on, or still holds a code. The same
 * test as the disable of one assessment, so the reset removes exactly the codes a disable would have removed, and an
 * access code an instructor set in the LMS by hand on an assessment the service never enforced is left alone.
 */
export function isEnforced(setting: { readonly exbRequired: boolean; readonly enabled: boolean; readonly hasAccessCode: boolean }): boolean {
  return setting.exbRequired || setting.enabled || setting.hasAccessCode;
}

/** What the course's live LMS listing says about an enforced assessment's identity. */
export type ListingIdentity = 'listed' | 'unlisted' | 'unidentified';

export interface LmsListing {
  readonly quizzes: readonly Pick<LmsQuiz, 'id'>[];
  readonly assignments: readonly Pick<LmsAssignment, 'id' | 'isNewQuiz' | 'courseId'>[];
}

/**
 * How the LMS's listing identifies an enforced assessment:
 * - `listed`: the LMS names it as the kind of assessment its content id says, in this course;
 * - `unlisted`: the listing does not name it; the assessment's own read decides (it may be gone);
 * - `unidentified`: the LMS lists the assignment a new quiz lives in, but no longer as a new quiz of this course, so
 *   there is no new-quiz identifier to remove its code through.
 */
export function listingIdentity(assessment: EnforcedAssessment, courseId: string, listing: LmsListing): ListingIdentity {
  if (assessment.contentType === 'CLASSIC_QUIZ') {
    return listing.quizzes.some((quiz) => quiz.id === assessment.lmsAssessmentId) ? 'listed' : 'unlisted';
  }
  const assignment = listing.assignments.find((candidate) => candidate.id === assessment.lmsAssessmentId);
  if (assignment === undefined) return 'unlisted';
  const inCourse = assignment.courseId === null || assignment.courseId === courseId;
  return assignment.isNewQuiz && inCourse ? 'listed' : 'unidentified';
}

/**
 * The access code a classic quiz's answer shows. `undefined`: the LMS hides codes from this caller, so the code cannot
 * be captured (and so could not be restored); `null`: none (the LMS treats `null` and `""` alike).
 */
export function classicQuizCode(quiz: Pick<LmsQuiz, 'accessCode'>): string | null | undefined {
  return quiz.accessCode;
}

/** The code a new quiz enforces: only a required code counts; a stored code that is not required opens nothing. */
export function newQuizCode(quiz: Pick<LmsNewQuiz, 'requireStudentAccessCode' | 'studentAccessCode'>): string | null {
  return quiz.requireStudentAccessCode && quiz.studentAccessCode !== null ? quiz.studentAccessCode : null;
}

/** The assessments whose access codes the LMS phase removes, in the plan's (content id) order. */
export function removals(plan: Pick<ResetPlan, 'enforced'>): CapturedAssessment[] {
  return plan.enforced.filter((assessment) => assessment.state === 'code' && assessment.code !== null);
}

/** Names an assessment for people, without anything of its setting. */
export function named(assessment: ResetAssessment): ResetAssessment {
  return { id: assessment.id, title: assessment.title, contentType: assessment.contentType };
}

export function byContentId<T extends { readonly id: string }>(a: T, b: T): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The preview the dialog shows: what would be cleared, and which codes would be removed in the LMS. */
export function previewOf(plan: ResetPlan): ResetPreview {
  const enforced = new Map(plan.enforced.map((assessment) => [assessment.id, assessment]));
  return {
    success: true,
    courseId: plan.courseId,
    courseName: plan.courseName,
    assessmentsCleared: plan.assessments.length,
    accessCodesRemoved: removals(plan).length,
    assessments: plan.assessments.map((assessment) => ({
      ...named(assessment),
      enforced: enforced.has(assessment.id),
      lms: enforced.get(assessment.id)?.state ?? null,
    })),
  };
}
