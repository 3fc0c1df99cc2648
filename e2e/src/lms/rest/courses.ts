import type { LmsRuntime } from '../runtime.js';
import { apiErrors, jsonResponse } from '../errors.js';
import { paginate } from '../pagination.js';
import { listParam, stringParam, type ParamObject } from '../params.js';
import { effectiveEnrollmentState, isAccountAdmin } from '../permissions.js';
import { apiRoute, type RouteDef } from '../router.js';
import { ENROLLMENT_TYPES, type EnrollmentType } from '../seed.js';
import type { Course, Enrollment } from '../state.js';
import { readableCourse } from './lookups.js';
import { courseJson, courseWorkflowState } from './serializers.js';

function enrollmentStateMatches(filter: string | undefined, enrollment: Enrollment, course: Course): boolean {
  const state = effectiveEnrollmentState(enrollment, course);
  switch (filter) {
    case 'active':
      return state === 'active';
    case 'invited_or_pending':
      return state === 'invited';
    case 'completed':
      return state === 'completed';
    default:
      // Without a filter the list holds current courses: active or invited, not concluded.
      return state === 'active' || state === 'invited';
  }
}

/**
 * `GET /api/v1/courses`: the courses the caller is enrolled in (administrators' account courses are not listed),
 * filtered by enrollment type and state, each with the caller's enrollments.
 */
function listCourses(lms: LmsRuntime, userId: number, url: URL, query: ParamObject): Response {
  const enrollmentType = stringParam(query, 'enrollment_type');
  if (enrollmentType !== undefined && !ENROLLMENT_TYPES.includes(enrollmentType as EnrollmentType)) {
    throw apiErrors.invalid([{ message: 'Invalid enrollment_type' }]);
  }
  const enrollmentState = stringParam(query, 'enrollment_state');
  const courseStates = listParam(query, 'state');
  const include = listParam(query, 'include');

  const byCourse = new Map<number, Enrollment[]>();
  for (const enrollment of lms.state.enrollmentsOf(userId)) {
    const course = lms.state.courses.get(enrollment.courseId);
    if (!course) continue;
    if (enrollmentType !== undefined && enrollment.type !== enrollmentType) continue;
    const workflow = courseWorkflowState(course);
    if (courseStates.length > 0) {
      if (!courseStates.includes(workflow)) continue;
    } else {
      if (!enrollmentStateMatches(enrollmentState, enrollment, course)) continue;
      if (workflow === 'deleted') continue;
      const learner = enrollment.type === 'student' || enrollment.type === 'observer';
      // Students and observers get published courses only.
      if (learner && workflow === 'unpublished') continue;
      if (learner && enrollmentState === undefined && workflow !== 'available') continue;
    }
    const list = byCourse.get(course.id) ?? [];
    list.push(enrollment);
    byCourse.set(course.id, list);
  }
  const courses = [...byCourse.keys()].sort((a, b) => a - b).map((id) => lms.state.courses.get(id)!);
  const page = paginate(lms.baseUrl, url, courses);
  return jsonResponse(
    page.items.map((course) => courseJson(lms, course, { include, enrollments: byCourse.get(course.id) ?? [] })),
    200,
    { link: page.link },
  );
}

export function courseRoutes(): RouteDef[] {
  return [
    apiRoute('GET', '/api/v1/courses', ({ lms, auth, url, query }) => listCourses(lms, auth!.user.id, url, query)),
    apiRoute('GET', '/api/v1/courses/:id', ({ lms, auth, params, query }) => {
      const userId = auth!.user.id;
      const course = readableCourse(lms, userId, params.id);
      const enrollments = lms.state.enrollmentsOf(userId, course.id);
      return jsonResponse(
        courseJson(lms, course, {
          include: listParam(query, 'include'),
          ...(enrollments.length > 0 ? { enrollments } : {}),
          sis: isAccountAdmin(lms.state, userId, course.accountId),
        }),
      );
    }),
  ];
}
