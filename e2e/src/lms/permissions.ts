import type { EnrollmentType } from './seed.js';
import type { Course, Enrollment, LmsState } from './state.js';

/**
 * Rights as the LMS's default roles grant them. Only the rights the API and the launch depend on are modelled;
 * names are the LMS's permission names, so `$Canvas.membership.permissions<...>` and the account permissions endpoint
 * answer with real names.
 */
const COURSE_CONTENT = ['manage_course_content_add', 'manage_course_content_edit', 'manage_course_content_delete'];
const ASSIGNMENTS = ['manage_assignments_add', 'manage_assignments_edit', 'manage_assignments_delete'];
/** Adding and editing LTI tools and resource links (with their custom parameters). */
const LTI = ['manage_lti_add', 'manage_lti_edit', 'manage_lti_delete'];
const STAFF = ['read', 'read_as_admin', 'read_course_content', 'read_roster', ...ASSIGNMENTS, ...COURSE_CONTENT, ...LTI];

export const ENROLLMENT_PERMISSIONS: Record<EnrollmentType, readonly string[]> = {
  teacher: [...STAFF, 'manage_grades', 'view_all_grades', 'send_messages'],
  ta: [...STAFF, 'manage_grades', 'view_all_grades', 'send_messages'],
  designer: STAFF,
  student: ['read', 'read_course_content', 'read_roster', 'participate_as_student', 'send_messages'],
  observer: ['read', 'read_course_content'],
};

/** What remains of a role once the course is concluded or the enrollment completed: read-only access. */
const CONCLUDED_PERMISSIONS: Record<EnrollmentType, readonly string[]> = {
  teacher: ['read', 'read_as_admin', 'read_course_content', 'read_roster', 'view_all_grades'],
  ta: ['read', 'read_as_admin', 'read_course_content', 'read_roster', 'view_all_grades'],
  designer: ['read', 'read_as_admin', 'read_course_content', 'read_roster'],
  student: ['read', 'read_course_content'],
  observer: ['read', 'read_course_content'],
};

/** Granular course-management rights; the legacy `manage_courses` exists only where granular permissions are off. */
export const MANAGE_COURSES_GRANULAR = [
  'manage_courses_admin',
  'manage_courses_add',
  'manage_courses_publish',
  'manage_courses_conclude',
  'manage_courses_reset',
  'manage_courses_delete',
] as const;

const ACCOUNT_ADMIN_ACCOUNT_PERMISSIONS = [
  'read',
  'read_course_list',
  'read_terms',
  'read_sis',
  'manage_sis',
  'manage_account_settings',
  'manage_account_memberships',
  'manage_developer_keys',
  'manage_grades',
  'view_all_grades',
  'read_as_admin',
  'read_roster',
  'read_course_content',
  ...MANAGE_COURSES_GRANULAR,
  ...ASSIGNMENTS,
  ...COURSE_CONTENT,
  ...LTI,
];

/** Every account permission name the permissions endpoint knows (its answer when `permissions[]` is omitted). */
export const ALL_ACCOUNT_PERMISSIONS = [...new Set([...ACCOUNT_ADMIN_ACCOUNT_PERMISSIONS, 'manage_courses', 'participate_as_student'])].sort();

export interface PermissionSettings {
  /** When true the LMS still answers the legacy `manage_courses` for administrators (granular permissions off). */
  legacyManageCourses: boolean;
}

export const ENROLLMENT_ROLE_NAMES: Record<EnrollmentType, string> = {
  teacher: 'TeacherEnrollment',
  student: 'StudentEnrollment',
  ta: 'TaEnrollment',
  designer: 'DesignerEnrollment',
  observer: 'ObserverEnrollment',
};

export const ENROLLMENT_ROLE_IDS: Record<EnrollmentType, number> = {
  student: 3,
  teacher: 4,
  ta: 5,
  designer: 6,
  observer: 7,
};

/** The state an enrollment shows through the API: a concluded course completes every enrollment in it. */
export function effectiveEnrollmentState(enrollment: Enrollment, course: Course): Enrollment['state'] {
  if (course.concluded && (enrollment.state === 'active' || enrollment.state === 'invited')) return 'completed';
  return enrollment.state;
}

/** Students and observers cannot see an unpublished course at all. */
function enrollmentSeesCourse(enrollment: Enrollment, course: Course): boolean {
  if (course.deleted) return false;
  if (course.published) return true;
  return enrollment.type !== 'student' && enrollment.type !== 'observer';
}

/** True when the user holds an administrator membership on the account or any ancestor of it. */
export function isAccountAdmin(state: LmsState, userId: number, accountId: number): boolean {
  const chain = new Set(state.accountChain(accountId).map((account) => account.id));
  return state.adminMembershipsOf(userId).some((admin) => chain.has(admin.accountId));
}

/** Administrator of the root account itself (default: the LMS's own); a sub-account administrator is not. */
export function isRootAccountAdmin(state: LmsState, userId: number, rootAccountId = state.rootAccount().id): boolean {
  return state.adminMembershipsOf(userId).some((admin) => admin.accountId === rootAccountId);
}

/** Administrator of any account below a root account (default: the LMS's own), root or sub-account alike. */
export function isAnyAccountAdmin(state: LmsState, userId: number, rootAccountId = state.rootAccount().id): boolean {
  const school = state.accountSubtree(rootAccountId);
  return state.adminMembershipsOf(userId).some((admin) => school.has(admin.accountId));
}

const INSTRUCTOR_TYPES: ReadonlySet<EnrollmentType> = new Set(['teacher', 'ta']);
const COURSE_ADMIN_TYPES: ReadonlySet<EnrollmentType> = new Set(['teacher', 'ta', 'designer']);

/**
 * The user's rights on an account. Administrators (on it or above) hold the administrator set. Others hold a little
 * by their enrollments, as the LMS's account policy grants it: a teacher, TA or designer of a course directly in the
 * account may `read` it (and sees only its reduced JSON), and a teacher or TA anywhere in a root account may read its
 * terms.
 */
export function accountPermissions(
  state: LmsState,
  userId: number,
  accountId: number,
  settings: PermissionSettings,
): Set<string> {
  if (isAccountAdmin(state, userId, accountId)) {
    const rights = new Set(ACCOUNT_ADMIN_ACCOUNT_PERMISSIONS);
    if (settings.legacyManageCourses) rights.add('manage_courses');
    return rights;
  }
  const rights = new Set<string>();
  const account = state.accounts.get(accountId);
  if (!account) return rights;
  const school = account.parentAccountId === null ? state.accountSubtree(account.id) : undefined;
  for (const enrollment of state.enrollmentsOf(userId)) {
    const course = state.courses.get(enrollment.courseId);
    if (!course || course.deleted || enrollment.state !== 'active') continue;
    if (course.accountId === account.id && COURSE_ADMIN_TYPES.has(enrollment.type)) rights.add('read');
    if (school?.has(course.accountId) && INSTRUCTOR_TYPES.has(enrollment.type)) rights.add('read_terms');
  }
  return rights;
}

/** The user's rights in a course: from their enrollments, plus everything when they administer its account. */
export function coursePermissions(state: LmsState, userId: number, courseId: number): Set<string> {
  const course = state.courses.get(courseId);
  const rights = new Set<string>();
  if (!course || course.deleted) return rights;
  if (isAccountAdmin(state, userId, course.accountId)) {
    for (const right of ACCOUNT_ADMIN_ACCOUNT_PERMISSIONS) rights.add(right);
    return rights;
  }
  for (const enrollment of state.enrollmentsOf(userId, courseId)) {
    if (!enrollmentSeesCourse(enrollment, course)) continue;
    const effective = effectiveEnrollmentState(enrollment, course);
    const granted =
      effective === 'active'
        ? ENROLLMENT_PERMISSIONS[enrollment.type]
        : effective === 'completed'
          ? CONCLUDED_PERMISSIONS[enrollment.type]
          : [];
    for (const right of granted) rights.add(right);
  }
  return rights;
}

export function canReadCourse(state: LmsState, userId: number, courseId: number): boolean {
  return coursePermissions(state, userId, courseId).has('read');
}

/** May create and edit resource links, custom parameters included (the resource-link API's two rights). */
export function canManageResourceLinks(state: LmsState, userId: number, courseId: number): boolean {
  const rights = coursePermissions(state, userId, courseId);
  return rights.has('manage_lti_add') && rights.has('manage_assignments_add');
}

/** May change assignments and quizzes (their settings, access codes). */
export function canManageAssignments(state: LmsState, userId: number, courseId: number): boolean {
  return coursePermissions(state, userId, courseId).has('manage_assignments_edit');
}

/** Graders see quiz access codes; other readers do not. */
export function canGrade(state: LmsState, userId: number, courseId: number): boolean {
  const rights = coursePermissions(state, userId, courseId);
  return rights.has('manage_grades') || rights.has('view_all_grades');
}

/** Staff see unpublished content. */
export function canSeeUnpublished(state: LmsState, userId: number, courseId: number): boolean {
  const rights = coursePermissions(state, userId, courseId);
  return rights.has('read_as_admin') || rights.has('manage_assignments_edit');
}
