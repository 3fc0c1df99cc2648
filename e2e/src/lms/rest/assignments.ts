import { jsonResponse } from '../errors.js';
import { paginate } from '../pagination.js';
import { listParam, stringParam } from '../params.js';
import { canGrade, canManageAssignments, canSeeUnpublished } from '../permissions.js';
import { apiRoute, type RouteDef } from '../router.js';
import { readableCourse } from './lookups.js';
import { assignmentJson } from './serializers.js';
import { checkSearchTerm } from './validation.js';

export function assignmentRoutes(): RouteDef[] {
  return [
    apiRoute('GET', '/api/v1/courses/:course_id/assignments', ({ lms, auth, params, url, query }) => {
      const userId = auth!.user.id;
      const course = readableCourse(lms, userId, params.course_id);
      const searchTerm = stringParam(query, 'search_term');
      checkSearchTerm(searchTerm);
      const only = new Set(listParam(query, 'assignment_ids').map(Number));
      const seeUnpublished = canSeeUnpublished(lms.state, userId, course.id);
      const assignments = [...lms.state.assignments.values()]
        .filter((a) => a.courseId === course.id && !a.deleted && (a.published || seeUnpublished))
        .filter((a) => only.size === 0 || only.has(a.id))
        .filter((a) => !searchTerm || a.name.toLowerCase().includes(searchTerm.toLowerCase()))
        .sort((a, b) => a.position - b.position || a.id - b.id);
      // The LMS builds these links from the course it found, so they name it by number even when the request used
      // `lti_context_id:` or `uuid:`.
      const page = paginate(lms.baseUrl, url, assignments, { path: `/api/v1/courses/${course.id}/assignments` });
      const options = { include: listParam(query, 'include'), seesAllDates: canGrade(lms.state, userId, course.id) || canManageAssignments(lms.state, userId, course.id) };
      return jsonResponse(page.items.map((a) => assignmentJson(lms, a, options)), 200, { link: page.link });
    }),
  ];
}
