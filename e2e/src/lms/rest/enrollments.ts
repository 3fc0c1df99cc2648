import { notAuthorized } from '../authorization.js';
import { jsonResponse } from '../errors.js';
import { paginate } from '../pagination.js';
import { listParam } from '../params.js';
import { coursePermissions, effectiveEnrollmentState, ENROLLMENT_ROLE_IDS, ENROLLMENT_ROLE_NAMES } from '../permissions.js';
import { apiRoute, type RouteDef } from '../router.js';
import { SEED_CREATED_AT } from '../seed-loader.js';
import type { Enrollment } from '../state.js';
import { readableCourse } from './lookups.js';

/**
 * `GET /api/v1/courses/:course_id/enrollments`, after `app/controllers/enrollments_api_controller.rb#index` and
 * `#course_index_enrollments`: whoever holds `read_roster`, `view_all_grades` or `manage_grades` in the course lists
 * its enrollments, each with its user; `type[]` and `state[]` filter. Without `state[]` the list holds active and
 * invited enrollments, and inactive ones too for a caller with `read_as_admin` (`all_active_or_pending`). Ordered by
 * type, then the user's sortable name, then id; paginated.
 */
export function enrollmentRoutes(): RouteDef[] {
  return [
    apiRoute('GET', '/api/v1/courses/:course_id/enrollments', ({ lms, auth, params, url, query }) => {
      const userId = auth!.user.id;
      const course = readableCourse(lms, userId, params.course_id);
      const rights = coursePermissions(lms.state, userId, course.id);
      if (!['read_roster', 'view_all_grades', 'manage_grades'].some((right) => rights.has(right))) throw notAuthorized(lms);
      const types = new Set(listParam(query, 'type'));
      const requestedStates = new Set(listParam(query, 'state'));
      const states =
        requestedStates.size > 0 ? requestedStates : new Set(rights.has('read_as_admin') ? ['active', 'invited', 'inactive'] : ['active', 'invited']);
      const typeName = (enrollment: Enrollment) => ENROLLMENT_ROLE_NAMES[enrollment.type];
      const sortableName = (enrollment: Enrollment) => lms.state.users.get(enrollment.userId)?.sortableName ?? '';
      const enrollments = [...lms.state.enrollments.values()]
        .filter((enrollment) => enrollment.courseId === course.id && lms.state.users.has(enrollment.userId))
        .filter((enrollment) => types.size === 0 || types.has(typeName(enrollment)))
        .filter((enrollment) => states.has(effectiveEnrollmentState(enrollment, course)))
        .sort((a, b) => typeName(a).localeCompare(typeName(b)) || sortableName(a).localeCompare(sortableName(b)) || a.id - b.id);
      const page = paginate(lms.baseUrl, url, enrollments, { path: `/api/v1/courses/${course.id}/enrollments` });
      const root = lms.state.rootAccountOf(course.accountId).id;
      return jsonResponse(
        page.items.map((enrollment) => {
          const user = lms.state.users.get(enrollment.userId)!;
          return {
            id: enrollment.id,
            user_id: enrollment.userId,
            course_id: course.id,
            type: typeName(enrollment),
            created_at: SEED_CREATED_AT,
            updated_at: SEED_CREATED_AT,
            associated_user_id: null,
            start_at: null,
            end_at: null,
            course_section_id: course.id,
            root_account_id: root,
            limit_privileges_to_course_section: false,
            enrollment_state: effectiveEnrollmentState(enrollment, course),
            role: typeName(enrollment),
            role_id: ENROLLMENT_ROLE_IDS[enrollment.type],
            last_activity_at: null,
            html_url: `${lms.baseUrl}/courses/${course.id}/users/${user.id}`,
            user: { id: user.id, name: user.name, created_at: SEED_CREATED_AT, sortable_name: user.sortableName, short_name: user.name },
          };
        }),
        200,
        { link: page.link },
      );
    }),
  ];
}
