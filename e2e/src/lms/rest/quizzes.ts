import { z } from 'zod';
import { notAuthorized } from '../authorization.js';
import type { LmsRuntime } from '../runtime.js';
import { apiErrors, jsonResponse } from '../errors.js';
import { paginate } from '../pagination.js';
import { stringParam } from '../params.js';
import { canGrade, canManageAssignments, canSeeUnpublished, coursePermissions } from '../permissions.js';
import { apiRoute, type RouteDef } from '../router.js';
import { QUIZ_TYPES } from '../seed.js';
import type { Course, Quiz } from '../state.js';
import { numericId, readableCourse } from './lookups.js';
import { quizJson, type QuizViewer } from './serializers.js';
import { booleanish, checkSearchTerm, nullableNumberish, parseOrReject } from './validation.js';

const quizUpdateSchema = z.object({
  quiz: z
    .looseObject({
      // `null` (JSON) and `""` (an empty form field) both remove the code; the LMS stores what it was sent.
      access_code: z.string().nullable().optional(),
      title: z.string().min(1).optional(),
      description: z.string().optional(),
      published: booleanish.optional(),
      quiz_type: z.enum(QUIZ_TYPES).optional(),
      time_limit: nullableNumberish.optional(),
      notify_of_update: booleanish.optional(),
    })
    .optional(),
});

function viewerOf(lms: LmsRuntime, userId: number, course: Course): QuizViewer {
  return {
    canGrade: canGrade(lms.state, userId, course.id),
    canManage: canManageAssignments(lms.state, userId, course.id),
    isStudent: coursePermissions(lms.state, userId, course.id).has('participate_as_student'),
  };
}

/** A quiz of the course; unpublished quizzes are hidden from students. */
function quizInCourse(lms: LmsRuntime, userId: number, course: Course, idParam: string | undefined): Quiz {
  const id = numericId(idParam);
  const quiz = id === undefined ? undefined : lms.state.quizzes.get(id);
  if (!quiz || quiz.deleted || quiz.courseId !== course.id) throw apiErrors.notFound();
  if (!quiz.published && !canSeeUnpublished(lms.state, userId, course.id)) throw notAuthorized(lms);
  return quiz;
}

/** Classic quizzes. New quizzes are not quizzes here (they are assignments) and never appear in these lists. */
export function quizRoutes(): RouteDef[] {
  return [
    apiRoute('GET', '/api/v1/courses/:course_id/quizzes', ({ lms, auth, params, url, query }) => {
      const userId = auth!.user.id;
      const course = readableCourse(lms, userId, params.course_id);
      const searchTerm = stringParam(query, 'search_term');
      checkSearchTerm(searchTerm);
      const seeUnpublished = canSeeUnpublished(lms.state, userId, course.id);
      const quizzes = [...lms.state.quizzes.values()]
        .filter((quiz) => quiz.courseId === course.id && !quiz.deleted && (quiz.published || seeUnpublished))
        .filter((quiz) => !searchTerm || quiz.title.toLowerCase().includes(searchTerm.toLowerCase()))
        .sort((a, b) => a.id - b.id);
      // The LMS builds these links from the course it found, so they name it by number even when the request used
      // `lti_context_id:` or `uuid:`.
      const page = paginate(lms.baseUrl, url, quizzes, { path: `/api/v1/courses/${course.id}/quizzes` });
      const viewer = viewerOf(lms, userId, course);
      return jsonResponse(page.items.map((quiz) => quizJson(lms, quiz, viewer)), 200, { link: page.link });
    }),

    apiRoute('GET', '/api/v1/courses/:course_id/quizzes/:id', ({ lms, auth, params }) => {
      const userId = auth!.user.id;
      const course = readableCourse(lms, userId, params.course_id);
      const quiz = quizInCourse(lms, userId, course, params.id);
      return jsonResponse(quizJson(lms, quiz, viewerOf(lms, userId, course)));
    }),

    apiRoute('PUT', '/api/v1/courses/:course_id/quizzes/:id', ({ lms, auth, params, body }) => {
      const userId = auth!.user.id;
      const course = readableCourse(lms, userId, params.course_id);
      const quiz = quizInCourse(lms, userId, course, params.id);
      if (!canManageAssignments(lms.state, userId, course.id)) throw notAuthorized(lms);
      const update = parseOrReject(quizUpdateSchema, body).quiz ?? {};
      if (update.access_code !== undefined) quiz.accessCode = update.access_code;
      if (update.title !== undefined) quiz.title = update.title;
      if (update.description !== undefined) quiz.description = update.description;
      if (update.published !== undefined) quiz.published = update.published;
      if (update.quiz_type !== undefined) quiz.quizType = update.quiz_type;
      if (update.time_limit !== undefined) quiz.timeLimit = update.time_limit;
      quiz.updatedAt = lms.clock.date().toISOString();
      if (quiz.assignmentId !== null) {
        const assignment = lms.state.assignments.get(quiz.assignmentId);
        if (assignment) {
          assignment.name = quiz.title;
          assignment.published = quiz.published;
        }
      }
      return jsonResponse(quizJson(lms, quiz, viewerOf(lms, userId, course)));
    }),

    apiRoute('POST', '/api/v1/courses/:course_id/quizzes/:id/validate_access_code', ({ lms, auth, params, body, query }) => {
      const userId = auth!.user.id;
      const course = readableCourse(lms, userId, params.course_id);
      const quiz = quizInCourse(lms, userId, course, params.id);
      const given = stringParam(body, 'access_code') ?? stringParam(query, 'access_code');
      const valid = !!quiz.accessCode && given === quiz.accessCode;
      return jsonResponse(valid);
    }),
  ];
}
