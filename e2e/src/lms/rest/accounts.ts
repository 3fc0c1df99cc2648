import { notAuthorized } from '../authorization.js';
import type { LmsRuntime } from '../runtime.js';
import { LmsHttpError, jsonResponse } from '../errors.js';
import { paginate } from '../pagination.js';
import { booleanValue, listParam, stringParam, type ParamObject } from '../params.js';
import { ALL_ACCOUNT_PERMISSIONS, accountPermissions, isAccountAdmin } from '../permissions.js';
import { apiRoute, type RouteDef } from '../router.js';
import type { Account, Course } from '../state.js';
import { accountParam } from './lookups.js';
import { courseJson, termJson } from './serializers.js';
import { checkSearchTerm } from './validation.js';

/**
 * The account as the API shows it. A user who manages the account gets the full object; one who may only read it (a
 * teacher of a course directly in it) gets the reduced one the LMS gives read-only viewers.
 */
function accountJson(lms: LmsRuntime, account: Account, options: { manage: boolean; sis: boolean }) {
  const reduced = {
    id: account.id,
    name: account.name,
    uuid: account.uuid,
    parent_account_id: account.parentAccountId,
    root_account_id: account.parentAccountId === null ? null : lms.state.rootAccountOf(account.id).id,
    workflow_state: 'active',
    default_time_zone: account.defaultTimeZone,
  };
  if (!options.manage) return reduced;
  return {
    ...reduced,
    default_storage_quota_mb: 500,
    default_user_storage_quota_mb: 50,
    default_group_storage_quota_mb: 50,
    ...(options.sis ? { sis_account_id: account.sisAccountId, integration_id: null } : {}),
    lti_guid: account.ltiGuid,
  };
}

function requireRight(lms: LmsRuntime, userId: number, account: Account, right: string): Set<string> {
  const rights = accountPermissions(lms.state, userId, account.id, lms.settings);
  if (!rights.has(right)) throw notAuthorized(lms);
  return rights;
}

/** Database states the account course search filters on (`state[]`). */
function dbState(course: Course): 'claimed' | 'available' | 'completed' | 'deleted' {
  if (course.deleted) return 'deleted';
  if (course.concluded) return 'completed';
  return course.published ? 'available' : 'claimed';
}

function teacherNames(lms: LmsRuntime, course: Course): string[] {
  return [...lms.state.enrollments.values()]
    .filter((e) => e.courseId === course.id && e.type === 'teacher' && e.state !== 'deleted')
    .map((e) => lms.state.users.get(e.userId)?.name ?? '');
}

function accountCourses(lms: LmsRuntime, userId: number, account: Account, url: URL, q: ParamObject): Response {
  const rights = requireRight(lms, userId, account, 'read_course_list');
  const searchTerm = stringParam(q, 'search_term');
  checkSearchTerm(searchTerm);
  const searchBy = stringParam(q, 'search_by') ?? 'course';
  const termId = stringParam(q, 'enrollment_term_id');
  const published = booleanValue(stringParam(q, 'published'));
  const completed = booleanValue(stringParam(q, 'completed'));
  const withEnrollments = booleanValue(stringParam(q, 'with_enrollments'));
  const hideEnrollmentless = booleanValue(stringParam(q, 'hide_enrollmentless_courses'));
  const states = listParam(q, 'state');
  const bySubaccounts = listParam(q, 'by_subaccounts').map(Number);
  const include = listParam(q, 'include').filter((name) => !['sections', 'needs_grading_count', 'total_scores', 'permissions'].includes(name));
  const sort = stringParam(q, 'sort') ?? 'course_name';
  const order = stringParam(q, 'order') === 'desc' ? -1 : 1;

  const scope = new Set<number>();
  for (const root of bySubaccounts.length > 0 ? bySubaccounts : [account.id]) {
    if (lms.state.accountSubtree(account.id).has(root)) for (const id of lms.state.accountSubtree(root)) scope.add(id);
  }
  const hasEnrollments = (course: Course) => [...lms.state.enrollments.values()].some((e) => e.courseId === course.id && e.state !== 'deleted');
  const term = searchTerm?.toLowerCase();
  const courses = [...lms.state.courses.values()].filter((course) => {
    if (!scope.has(course.accountId)) return false;
    const state = dbState(course);
    if (states.includes('all')) {
      // every state, deleted included
    } else if (states.length > 0) {
      if (!states.includes(state) && !(state === 'claimed' && states.includes('created'))) return false;
    } else if (state === 'deleted') {
      return false;
    }
    if (termId !== undefined && String(course.termId) !== termId) return false;
    if (published === true && state !== 'available') return false;
    if (published === false && state === 'available') return false;
    if (completed === true && !course.concluded) return false;
    if (completed === false && course.concluded) return false;
    if (withEnrollments === true && !hasEnrollments(course)) return false;
    if (withEnrollments === false && hasEnrollments(course)) return false;
    if (hideEnrollmentless === true && !hasEnrollments(course)) return false;
    if (term) {
      const haystack =
        searchBy === 'teacher'
          ? teacherNames(lms, course)
          : [course.name, course.courseCode, ...(rights.has('read_sis') && course.sisCourseId ? [course.sisCourseId] : [])];
      const byId = searchBy !== 'teacher' && String(course.id) === term;
      if (!byId && !haystack.some((value) => value.toLowerCase().includes(term))) return false;
    }
    return true;
  });
  const sortKey = (course: Course): string => {
    switch (sort) {
      case 'sis_course_id':
        return course.sisCourseId ?? '';
      case 'teacher':
        return teacherNames(lms, course).sort()[0] ?? '';
      case 'account_name':
        return lms.state.accounts.get(course.accountId)?.name ?? '';
      default:
        return course.name;
    }
  };
  courses.sort((a, b) => order * (sortKey(a).localeCompare(sortKey(b)) || a.id - b.id));
  // The account course search does not count its total, so its Link header has no `last`.
  const page = paginate(lms.baseUrl, url, courses, { countTotal: false });
  return jsonResponse(
    page.items.map((course) => courseJson(lms, course, { include, sis: rights.has('read_sis') })),
    200,
    { link: page.link },
  );
}

function accountTerms(lms: LmsRuntime, userId: number, account: Account, url: URL, q: ParamObject): Response {
  if (account.parentAccountId !== null) {
    throw new LmsHttpError(400, { message: 'Terms only belong to root_accounts.' });
  }
  const rights = requireRight(lms, userId, account, 'read_terms');
  const states = listParam(q, 'workflow_state');
  const wanted = states.length === 0 ? ['active'] : states;
  const name = stringParam(q, 'term_name')?.toLowerCase();
  const include = listParam(q, 'include');
  const time = (value: string | null) => (value === null ? Number.POSITIVE_INFINITY : Date.parse(value));
  const terms = [...lms.state.terms.values()]
    .filter((term) => term.rootAccountId === account.id)
    .filter((term) => wanted.includes('all') || wanted.includes(term.workflowState))
    .filter((term) => !name || term.name.toLowerCase().includes(name))
    // start_at DESC, end_at DESC (a missing date sorts first, as in the LMS's database), id ASC.
    .sort((a, b) => time(b.startAt) - time(a.startAt) || time(b.endAt) - time(a.endAt) || a.id - b.id);
  const page = paginate(lms.baseUrl, url, terms);
  return jsonResponse(
    {
      enrollment_terms: page.items.map((term) => ({
        ...termJson(term, { sis: rights.has('read_sis') }),
        ...(include.includes('course_count')
          ? { course_count: [...lms.state.courses.values()].filter((c) => c.termId === term.id && !c.deleted).length }
          : {}),
        ...(include.includes('overrides') ? { overrides: {} } : {}),
      })),
    },
    200,
    { link: page.link },
  );
}

export function accountRoutes(): RouteDef[] {
  return [
    apiRoute('GET', '/api/v1/accounts/:id', ({ lms, auth, params }) => {
      const account = accountParam(lms, params.id);
      const rights = requireRight(lms, auth!.user.id, account, 'read');
      const manage = isAccountAdmin(lms.state, auth!.user.id, account.id);
      return jsonResponse(accountJson(lms, account, { manage, sis: rights.has('read_sis') }));
    }),
    apiRoute('GET', '/api/v1/accounts/:account_id/permissions', ({ lms, auth, params, query }) => {
      const account = accountParam(lms, params.account_id);
      const rights = requireRight(lms, auth!.user.id, account, 'read');
      const asked = listParam(query, 'permissions');
      const names = asked.length > 0 ? asked : ALL_ACCOUNT_PERMISSIONS;
      // JSON booleans, one per asked name; unknown names are simply false.
      return jsonResponse(Object.fromEntries(names.map((name) => [name, rights.has(name)])));
    }),
    apiRoute('GET', '/api/v1/accounts/:account_id/courses', ({ lms, auth, params, url, query }) =>
      accountCourses(lms, auth!.user.id, accountParam(lms, params.account_id), url, query),
    ),
    apiRoute('GET', '/api/v1/accounts/:account_id/terms', ({ lms, auth, params, url, query }) =>
      accountTerms(lms, auth!.user.id, accountParam(lms, params.account_id), url, query),
    ),
  ];
}
