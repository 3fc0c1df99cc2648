import { z } from 'zod';
import { notAuthorized } from '../authorization.js';
import type { LmsRuntime } from '../runtime.js';
import { apiErrors, jsonResponse } from '../errors.js';
import { canManageAssignments, canSeeUnpublished } from '../permissions.js';
import { apiRoute, type RouteDef } from '../router.js';
import type { Assignment, Course } from '../state.js';
import { numericId, readableCourse } from './lookups.js';
import { newQuizJson } from './serializers.js';
import { booleanish, nullableNumberish, parseOrReject } from './validation.js';

const newQuizUpdateSchema = z.object({
  quiz: z
    .looseObject({
      title: z.string().min(1).optional(),
      instructions: z.string().optional(),
      points_possible: nullableNumberish.optional(),
      quiz_settings: z
        .looseObject({
          require_student_access_code: booleanish.optional(),
          // "Should be null if no restriction."
          student_access_code: z.string().nullable().optional(),
          has_time_limit: booleanish.optional(),
          session_time_limit_in_seconds: nullableNumberish.optional(),
          shuffle_answers: booleanish.optional(),
          shuffle_questions: booleanish.optional(),
        })
        .optional(),
    })
    .optional(),
});

/** The new quiz addressed by `:assignment_id`; other assignments are not new quizzes (404). */
function newQuizInCourse(lms: LmsRuntime, userId: number, course: Course, idParam: string | undefined): Assignment {
  const id = numericId(idParam);
  const assignment = id === undefined ? undefined : lms.state.assignments.get(id);
  if (!assignment || assignment.deleted || assignment.courseId !== course.id || !assignment.newQuiz) {
    throw apiErrors.notFound();
  }
  if (!assignment.published && !canSeeUnpublished(lms.state, userId, course.id)) throw notAuthorized(lms);
  return assignment;
}

/** The new-quiz API (`/api/quiz/v1`), ids as strings, settings nested under `quiz_settings`. */
export function newQuizRoutes(): RouteDef[] {
  return [
    apiRoute('GET', '/api/quiz/v1/courses/:course_id/quizzes/:assignment_id', ({ lms, auth, params }) => {
      const userId = auth!.user.id;
      const course = readableCourse(lms, userId, params.course_id);
      const assignment = newQuizInCourse(lms, userId, course, params.assignment_id);
      return jsonResponse(newQuizJson(assignment, { showAccessCode: canManageAssignments(lms.state, userId, course.id) }));
    }),

    apiRoute('PATCH', '/api/quiz/v1/courses/:course_id/quizzes/:assignment_id', ({ lms, auth, params, body }) => {
      const userId = auth!.user.id;
      const course = readableCourse(lms, userId, params.course_id);
      const assignment = newQuizInCourse(lms, userId, course, params.assignment_id);
      if (!canManageAssignments(lms.state, userId, course.id)) throw notAuthorized(lms);
      const update = parseOrReject(newQuizUpdateSchema, body).quiz ?? {};
      const quiz = assignment.newQuiz!;
      const settings = { ...quiz.quizSettings };
      const patch = update.quiz_settings ?? {};
      if (patch.require_student_access_code !== undefined) settings.require_student_access_code = patch.require_student_access_code;
      if (patch.student_access_code !== undefined) settings.student_access_code = patch.student_access_code;
      if (patch.has_time_limit !== undefined) settings.has_time_limit = patch.has_time_limit;
      if (patch.session_time_limit_in_seconds !== undefined) {
        settings.session_time_limit_in_seconds = patch.session_time_limit_in_seconds;
      }
      if (patch.shuffle_answers !== undefined) settings.shuffle_answers = patch.shuffle_answers;
      if (patch.shuffle_questions !== undefined) settings.shuffle_questions = patch.shuffle_questions;
      if (settings.require_student_access_code && !settings.student_access_code) {
        throw apiErrors.invalid([{ message: 'student_access_code is required when require_student_access_code is true' }]);
      }
      quiz.quizSettings = settings;
      if (update.instructions !== undefined) quiz.instructions = update.instructions;
      if (update.title !== undefined) assignment.name = update.title;
      if (update.points_possible !== undefined) assignment.pointsPossible = update.points_possible;
      assignment.updatedAt = lms.clock.date().toISOString();
      return jsonResponse(newQuizJson(assignment, { showAccessCode: true }));
    }),
  ];
}
