import { notAuthorized } from '../authorization.js';
import type { LmsRuntime } from '../runtime.js';
import { apiErrors, jsonResponse } from '../errors.js';
import { paginate } from '../pagination.js';
import { canGrade, canSeeUnpublished, coursePermissions } from '../permissions.js';
import { apiRoute, type RouteDef } from '../router.js';
import type { AssignmentSubmission, Course, Quiz, QuizSubmission } from '../state.js';
import { existingCourse, numericId, readableCourse } from './lookups.js';

/**
 * Attempts and submissions, as the exam-day board reads them:
 * - `GET /api/v1/courses/:course_id/quizzes/:quiz_id/submissions` follows
 *   `app/controllers/quizzes/quiz_submissions_api_controller.rb#index`: graders (`manage_grades` or `view_all_grades`)
 *   get the current attempt of every student of the course, paginated, wrapped in `{"quiz_submissions": [...]}`; a
 *   student who may take the quiz gets their own (the attempt in progress, else every finished one); anyone else is
 *   not authorized.
 * - `GET /api/v1/courses/:course_id/assignments/:assignment_id/submissions` follows
 *   `app/controllers/submissions_api_controller.rb#index`: graders only, checked before the assignment is looked up;
 *   one submission per student of the course, `unsubmitted` ones included, ordered by user id, paginated.
 */

/** A classic quiz of the course (404 otherwise, `Filters::Quizzes#require_quiz`). */
function courseQuiz(lms: LmsRuntime, course: Course, idParam: string | undefined): Quiz {
  const id = numericId(idParam);
  const quiz = id === undefined ? undefined : lms.state.quizzes.get(id);
  if (!quiz || quiz.deleted || quiz.courseId !== course.id) throw apiErrors.notFound();
  return quiz;
}

/** `Api::V1::QuizSubmission#quiz_submission_json`, the fields an attempt without grading carries. */
function quizSubmissionJson(lms: LmsRuntime, quiz: Quiz, submission: QuizSubmission) {
  const assignmentSubmission = quiz.assignmentId === null ? null : lms.state.assignmentSubmission(quiz.assignmentId, submission.userId);
  return {
    id: submission.id,
    quiz_id: quiz.id,
    user_id: submission.userId,
    submission_id: assignmentSubmission?.id ?? null,
    started_at: submission.startedAt,
    finished_at: submission.finishedAt,
    end_at: quiz.timeLimit === null ? null : new Date(Date.parse(submission.startedAt) + quiz.timeLimit * 60_000).toISOString(),
    attempt: submission.attempt,
    extra_attempts: null,
    extra_time: null,
    manually_unlocked: null,
    time_spent: submission.finishedAt === null ? null : Math.round((Date.parse(submission.finishedAt) - Date.parse(submission.startedAt)) / 1000),
    score: null,
    score_before_regrade: null,
    kept_score: null,
    fudge_points: null,
    has_seen_results: false,
    workflow_state: submission.finishedAt === null ? 'untaken' : 'complete',
    overdue_and_needs_submission: false,
    html_url: `${lms.baseUrl}/courses/${quiz.courseId}/quizzes/${quiz.id}/submissions/${submission.id}`,
    result_url: `${lms.baseUrl}/courses/${quiz.courseId}/quizzes/${quiz.id}/history?quiz_submission_id=${submission.id}`,
  };
}

/** `Api::V1::Submission#submission_json` without includes. */
function submissionJson(lms: LmsRuntime, course: Course, submission: AssignmentSubmission) {
  return {
    id: submission.id,
    assignment_id: submission.assignmentId,
    user_id: submission.userId,
    attempt: submission.attempt,
    body: null,
    grade: null,
    score: null,
    grade_matches_current_submission: true,
    graded_at: null,
    grader_id: null,
    submitted_at: submission.submittedAt,
    submission_type: submission.submittedAt === null ? null : 'basic_lti_launch',
    workflow_state: submission.workflowState,
    late: false,
    missing: false,
    excused: null,
    late_policy_status: null,
    points_deducted: null,
    seconds_late: 0,
    preview_url: `${lms.baseUrl}/courses/${course.id}/assignments/${submission.assignmentId}/submissions/${submission.userId}?preview=1`,
  };
}

export function submissionRoutes(): RouteDef[] {
  return [
    apiRoute('GET', '/api/v1/courses/:course_id/quizzes/:quiz_id/submissions', ({ lms, auth, params, url }) => {
      const userId = auth!.user.id;
      // The course and the quiz are found first (`require_context`, `require_quiz`), the caller's rights asked after.
      const course = existingCourse(lms, params.course_id);
      const quiz = courseQuiz(lms, course, params.quiz_id);
      if (canGrade(lms.state, userId, course.id)) {
        const latest = lms.state
          .studentIdsOf(course.id)
          .flatMap((studentId) => lms.state.latestQuizAttempt(quiz.id, studentId) ?? [])
          .sort((a, b) => a.id - b.id);
        const page = paginate(lms.baseUrl, url, latest, { path: `/api/v1/courses/${course.id}/quizzes/${quiz.id}/submissions` });
        return jsonResponse({ quiz_submissions: page.items.map((submission) => quizSubmissionJson(lms, quiz, submission)) }, 200, { link: page.link });
      }
      const maySubmit = coursePermissions(lms.state, userId, course.id).has('participate_as_student') && (quiz.published || canSeeUnpublished(lms.state, userId, course.id));
      if (!maySubmit) throw notAuthorized(lms);
      const own = [...lms.state.quizSubmissions.values()].filter((submission) => submission.quizId === quiz.id && submission.userId === userId);
      const current = lms.state.latestQuizAttempt(quiz.id, userId);
      const shown = current?.finishedAt === null ? [current] : own.filter((submission) => submission.finishedAt !== null).sort((a, b) => a.attempt - b.attempt);
      return jsonResponse({ quiz_submissions: shown.map((submission) => quizSubmissionJson(lms, quiz, submission)) });
    }),

    apiRoute('GET', '/api/v1/courses/:course_id/assignments/:assignment_id/submissions', ({ lms, auth, params, url }) => {
      const userId = auth!.user.id;
      const course = readableCourse(lms, userId, params.course_id);
      if (!canGrade(lms.state, userId, course.id)) throw notAuthorized(lms);
      const id = numericId(params.assignment_id);
      const assignment = id === undefined ? undefined : lms.state.assignments.get(id);
      if (!assignment || assignment.deleted || assignment.courseId !== course.id) throw apiErrors.notFound();
      const submissions = lms.state.studentIdsOf(course.id).map((studentId) => lms.state.assignmentSubmission(assignment.id, studentId));
      const page = paginate(lms.baseUrl, url, submissions, { path: `/api/v1/courses/${course.id}/assignments/${assignment.id}/submissions` });
      return jsonResponse(page.items.map((submission) => submissionJson(lms, course, submission)), 200, { link: page.link });
    }),
  ];
}
