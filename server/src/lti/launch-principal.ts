import { isLmsId } from '@exb/shared/content-id.js';
import {
  ACCOUNT_ADMIN_CUSTOM_FIELDS,
  COURSE_CUSTOM_FIELDS,
  isUnexpandedSubstitution,
} from '@exb/shared/lti-custom-fields.js';
import type { CourseRole, Principal } from '../identity/principal.js';
import { LmsLtiConfigurationError, type RefusalText } from './errors.js';
import { DEEP_LINKING_REQUEST, type LaunchClaims, type LaunchContextClaim } from './id-token.js';

const LIS = 'http://purl.imsglobal.org/vocab/lis/v2/';

/** Signed context roles (LMS-computed `roles` claim) that make a course instructor: teachers, TAs and designers. */
const INSTRUCTOR_CONTEXT_ROLES = new Set([`${LIS}membership#Instructor`, `${LIS}membership#ContentDeveloper`]);
const STUDENT_CONTEXT_ROLES = new Set([`${LIS}membership#Learner`]);
const TEACHING_ASSISTANT_ROLE = `${LIS}membership/Instructor#TeachingAssistant`;
const TEACHER_ROLE = `${LIS}membership#Instructor`;
const DESIGNER_ROLE = `${LIS}membership#ContentDeveloper`;

/** Custom-field values, which may only narrow what the signed roles give. */
const INSTRUCTOR_ENROLLMENTS = new Set(['TeacherEnrollment', 'DesignerEnrollment', 'TaEnrollment']);
const STUDENT_ENROLLMENTS = new Set(['StudentEnrollment', 'StudentViewEnrollment']);

/**
 * The signed administrator role claim (DESIGN.md §7): the LMS gives every account administrator
 * `institution/person#Administrator`; site administrators carry `system/person#SysAdmin`.
 */
const ADMINISTRATOR_ROLES = new Set([
  `${LIS}institution/person#Administrator`,
  `${LIS}system/person#Administrator`,
  `${LIS}system/person#SysAdmin`,
]);

const COURSE_CONTEXT_TYPES = new Set([`${LIS}course#CourseOffering`, 'CourseOffering']);
const ACCOUNT_CONTEXT_TYPE = 'Account';

export type LaunchOutcome =
  | { kind: 'principal'; principal: Principal }
  | { kind: 'deep-linking' }
  | { kind: 'not-authorized'; reason: string; administratorInCourse?: true };

type CourseKind = 'instructor' | 'student';

/**
 * Turns validated launch claims into a principal (Document 1, role mapping; DESIGN.md, trust model). What the platform
 * alone computes decides: the kind of context (`context.type`), the roles (`roles` claim) and the subject (`sub`).
 * The custom claim, which course authors can override per link, supplies only the numeric ids, which the identity
 * bindings check before anything acts on them, and may narrow a role but never widen it. A course context never yields
 * an administrator; an account context never yields a course principal. Throws {@link LmsLtiConfigurationError} when
 * the LMS left a requested substitution unexpanded (a stale registration).
 */
export function resolveLaunchOutcome(claims: LaunchClaims): LaunchOutcome {
  if (claims.messageType === DEEP_LINKING_REQUEST) return { kind: 'deep-linking' };
  const { context } = claims;
  if (!context) return { kind: 'not-authorized', reason: 'no context claim' };
  if (context.types.some((type) => COURSE_CONTEXT_TYPES.has(type))) return courseOutcome(claims, context);
  if (context.types.includes(ACCOUNT_CONTEXT_TYPE)) return accountAdminOutcome(claims, context);
  return { kind: 'not-authorized', reason: 'neither a course nor an account context' };
}

/** The custom surface must be present (else the registration is stale) and agree with the signed context. */
function surfaceAgrees(custom: Record<string, unknown>, expected: 'course' | 'account_admin'): boolean {
  const surface = custom.exb_launch_surface;
  if (surface === undefined) {
    throw new LmsLtiConfigurationError([{ detail: 'surfaceMissing' }]);
  }
  return surface === expected;
}

/** Every requested field of the surface must be present and expanded; reports all problems at once. */
function checkExpanded(custom: Record<string, unknown>, fields: Record<string, string>): void {
  const problems: RefusalText[] = [];
  for (const [name, substitution] of Object.entries(fields)) {
    if (!substitution.startsWith('$')) continue;
    const value = custom[name];
    if (value === undefined) problems.push({ detail: 'customFieldMissing', values: { name, substitution } });
    else if (isUnexpandedSubstitution(value)) {
      // The received literal tells an old registration (`$Lms...`) from a guard that failed (`$Canvas...`).
      problems.push({ detail: 'customFieldUnexpanded', values: { name, substitution, received: shortened(value as string) } });
    }
  }
  if (problems.length > 0) throw new LmsLtiConfigurationError(problems);
}

/** Custom values are author-controlled on link launches: the page names at most the first 80 characters. */
function shortened(value: string): string {
  return value.length > 80 ? `${value.slice(0, 80)}…` : value;
}

function requireLmsId(custom: Record<string, unknown>, name: string): string {
  // Numbers are accepted as well as strings: the LMS stringifies numeric substitutions, but not every version did.
  const raw = custom[name];
  const value = typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw;
  if (!isLmsId(value)) throw new LmsLtiConfigurationError([{ detail: 'customFieldNotLmsId', values: { name } }]);
  return value;
}

function commaList(value: unknown): string[] {
  return typeof value === 'string' ? value.split(',').map((entry) => entry.trim()).filter(Boolean) : [];
}

/** Course kinds the signed roles give. */
function signedCourseKinds(roles: readonly string[]): Set<CourseKind> {
  const kinds = new Set<CourseKind>();
  if (roles.some((role) => INSTRUCTOR_CONTEXT_ROLES.has(role))) kinds.add('instructor');
  if (roles.some((role) => STUDENT_CONTEXT_ROLES.has(role))) kinds.add('student');
  return kinds;
}

/** Course kinds the custom membership fields claim; only used to narrow the signed set. */
function customCourseKinds(custom: Record<string, unknown>): Set<CourseKind> {
  const kinds = new Set<CourseKind>();
  for (const role of commaList(custom.lms_membership_roles)) {
    if (INSTRUCTOR_ENROLLMENTS.has(role)) kinds.add('instructor');
    if (STUDENT_ENROLLMENTS.has(role)) kinds.add('student');
  }
  for (const kind of signedCourseKinds(commaList(custom.lms_lis_membership_roles))) kinds.add(kind);
  return kinds;
}

/**
 * Instructor wins over student (a teacher also enrolled as a student manages the course). Custom fields can narrow the
 * signed set (an instructor launching a link that says "student" is a student there) but a custom role outside the
 * signed set is ignored: a link that says "teacher" on a learner's launch gives a learner.
 */
export function courseKind(roles: readonly string[], custom: Record<string, unknown>): CourseKind | undefined {
  const signed = signedCourseKinds(roles);
  const narrowed = new Set([...customCourseKinds(custom)].filter((kind) => signed.has(kind)));
  const effective = narrowed.size > 0 ? narrowed : signed;
  return effective.has('instructor') ? 'instructor' : effective.has('student') ? 'student' : undefined;
}

/**
 * The role an instructor is greeted as, from the signed roles only. The LMS gives a teaching assistant the
 * `Instructor#TeachingAssistant` sub-role beside `Instructor`, so the sub-role decides first; a designer has only
 * `ContentDeveloper`.
 */
export function courseRole(roles: readonly string[]): CourseRole | undefined {
  if (roles.includes(TEACHING_ASSISTANT_ROLE)) return 'teaching-assistant';
  if (roles.includes(TEACHER_ROLE)) return 'teacher';
  if (roles.includes(DESIGNER_ROLE)) return 'designer';
  return undefined;
}

function courseOutcome(claims: LaunchClaims, context: LaunchContextClaim): LaunchOutcome {
  const { custom } = claims;
  if (!surfaceAgrees(custom, 'course')) return { kind: 'not-authorized', reason: 'custom surface disagrees with the course context' };
  checkExpanded(custom, COURSE_CUSTOM_FIELDS);
  const lmsUserId = requireLmsId(custom, 'lms_user_id');
  const courseId = requireLmsId(custom, 'lms_course_id');

  const kind = courseKind(claims.roles, custom);
  if (!kind) {
    // An administrator of the school who opened a course's tab: the refusal points to the account navigation, where
    // the administration lives. Only the wording of the refusal depends on it; it opens nothing.
    return claims.roles.some((role) => ADMINISTRATOR_ROLES.has(role))
      ? { kind: 'not-authorized', reason: 'an administrator without a role in the course', administratorInCourse: true }
      : { kind: 'not-authorized', reason: 'no instructor or student role in the course' };
  }
  const role = kind === 'instructor' ? courseRole(claims.roles) : undefined;

  return {
    kind: 'principal',
    principal: {
      kind,
      lmsUserId,
      ltiSubject: claims.subject,
      issuer: claims.issuer,
      deploymentId: claims.deploymentId,
      ltiContextId: context.id,
      courseId,
      ...(claims.name !== undefined ? { name: claims.name } : {}),
      ...(context.title !== undefined ? { courseName: context.title } : {}),
      ...(role !== undefined ? { courseRole: role } : {}),
    },
  };
}

/**
 * Only an account context with a signed administrator role can give an administrator. The root-admin substitution
 * is required too, but only narrows: it is author-forgeable on links, so the account itself is confirmed through the
 * administrator's own grant before any administrator action (`identity/identity-service.ts`).
 */
function accountAdminOutcome(claims: LaunchClaims, context: LaunchContextClaim): LaunchOutcome {
  const { custom } = claims;
  if (!surfaceAgrees(custom, 'account_admin')) {
    return { kind: 'not-authorized', reason: 'custom surface disagrees with the account context' };
  }
  checkExpanded(custom, ACCOUNT_ADMIN_CUSTOM_FIELDS);
  const lmsUserId = requireLmsId(custom, 'lms_user_id');
  const rootAccountId = requireLmsId(custom, 'lms_root_account_id');

  const hasAdministratorClaim = claims.roles.some((role) => ADMINISTRATOR_ROLES.has(role));
  // The LMS sends the flag as a JSON boolean; older versions stringify it.
  const flag = custom.lms_user_is_root_account_admin;
  const isRootAdmin = flag === true || flag === 'true';
  if (!hasAdministratorClaim || !isRootAdmin) {
    return { kind: 'not-authorized', reason: 'not a root-account administrator' };
  }
  return {
    kind: 'principal',
    principal: {
      kind: 'admin',
      lmsUserId,
      ltiSubject: claims.subject,
      issuer: claims.issuer,
      deploymentId: claims.deploymentId,
      ltiContextId: context.id,
      accountId: rootAccountId,
      ...(claims.name !== undefined ? { name: claims.name } : {}),
      ...(context.title !== undefined ? { accountName: context.title } : {}),
    },
  };
}
