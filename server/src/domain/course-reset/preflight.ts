import type { LmsApi } from '../../lms/api.js';
import { LmsNotFoundError } from '../../lms/errors.js';
import { courseNotConnected } from '../connected-courses/errors.js';
import { inRootAccount } from '../connected-courses/course-facts.js';
import type { LocalRecords } from './local-records.js';
import type { CapturedAssessment, EnforcedAssessment, ResetPlan } from './model.js';
import { accessCodeHidden, identityUnavailable } from './reset-refusals.js';
import { classicQuizCode, listingIdentity, named, newQuizCode, type LmsListing } from './reset-rules.js';

/**
 * Phase 1 of a course reset: read-only. With the administrator's grant it confirms the course is still in the root
 * account, lists the course's assessments in the LMS, and reads every enforced assessment to capture its exact current
 * access code, classic and new quizzes alike. It changes nothing anywhere, so any refusal here leaves everything as it
 * was: a missing identifier (`ADMIN_COURSE_RESET_ASSESSMENT_IDENTITY_UNAVAILABLE`), a code the LMS will not show
 * (`LMS_PERMISSION_DENIED`), or an LMS error as it came (an expired authorization, a denied read, an outage).
 */
export async function preflight(courseId: string, accountId: string, local: LocalRecords, lms: LmsApi): Promise<ResetPlan> {
  if (local.unidentified.length > 0) throw identityUnavailable(local.unidentified);
  const course = await lms.getCourse(courseId);
  if (course.id !== courseId || !inRootAccount(course, accountId)) throw courseNotConnected();
  const [quizzes, assignments] = await Promise.all([lms.listQuizzes(courseId), lms.listAssignments(courseId)]);
  const listing: LmsListing = { quizzes, assignments };

  const unidentified = local.enforced.filter((assessment) => listingIdentity(assessment, courseId, listing) === 'unidentified');
  if (unidentified.length > 0) throw identityUnavailable(unidentified.map(named));

  // One at a time, in content id order: the capture is a handful of reads, and a refusal names the first assessment.
  const enforced: CapturedAssessment[] = [];
  for (const assessment of local.enforced) enforced.push(await capture(courseId, assessment, lms));
  return { courseId, courseName: course.name, assessments: local.assessments, enforced };
}

/**
 * Reads one enforced assessment where its code lives. The answer must name the assessment that was asked for, or the
 * code could be removed through one identifier and restored through another; and it must show the code, or the code
 * could not be put back exactly.
 */
async function capture(courseId: string, assessment: EnforcedAssessment, lms: LmsApi): Promise<CapturedAssessment> {
  try {
    if (assessment.contentType === 'CLASSIC_QUIZ') {
      const quiz = await lms.getQuiz(courseId, assessment.lmsAssessmentId);
      if (quiz.id !== assessment.lmsAssessmentId) throw identityUnavailable([named(assessment)]);
      const code = classicQuizCode(quiz);
      if (code === undefined) throw accessCodeHidden([named(assessment)]);
      return { ...assessment, state: code === null ? 'no-code' : 'code', code };
    }
    const quiz = await lms.getNewQuiz(courseId, assessment.lmsAssessmentId);
    if (quiz.assignmentId !== assessment.lmsAssessmentId) throw identityUnavailable([named(assessment)]);
    const code = newQuizCode(quiz);
    return { ...assessment, state: code === null ? 'no-code' : 'code', code };
  } catch (error) {
    // Deleted in the LMS: no code is left there to remove, and none to restore.
    if (error instanceof LmsNotFoundError) return { ...assessment, state: 'gone', code: null };
    throw error;
  }
}
