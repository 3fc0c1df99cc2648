import { isLmsId } from '@exb/shared/content-id.js';
import {
  ACCOUNT_ADMIN_CUSTOM_FIELDS,
  COURSE_CUSTOM_FIELDS,
  isUnexpandedSubstitution,
} from '@exb/shared/lti-custom-fields.js';
import type { Principal } from '../domain/principal.js';
import { LmsLtiConfigurationError } from './errors.js';
import { DEEP_LINKING_REQUEST, type LaunchClaims } from './id-token.js';

const LIS = 'http://purl.imsglobal.org/vocab/lis/v2/';

/** Context roles (roles claim and the LIS custom field) that make a course instructor. */
const INSTRUCTOR_LIS_ROLES = new Set([`${LIS}membership#Instructor`]);
/** LMS enrollment types (the membership-roles custom field). */
const INSTRUCTOR_ENROLLMENTS = new Set(['TeacherEnrollment', 'DesignerEnrollment']);
const STUDENT_ENROLLMENTS = new Set(['StudentEnrollment']);

/**
 * The signed administrator role claim (DESIGN.md §7): the LMS gives every account administrator
 * `institution/person#Administrator`; site administrators carry `system/person#SysAdmin`. Being a *root*-account
 * administrator is proven only by the root-admin substitution on the `account_admin` surface.
 */
const ADMINISTRATOR_ROLES = new Set([
  `${LIS}institution/person#Administrator`,
  `${LIS}system/person#Administrator`,
  `${LIS}system/person#SysAdmin`,
]);

export type LaunchOutcome =
  | { kind: 'principal'; principal: Principal }
  | { kind: 'deep-linking' }
  | { kind: 'not-authorized'; reason: string };

type Surface = 'course' | 'account_admin';

/**
 * Turns validated launch claims into a principal (Document 1, role mapping), using signed claims only:
 * instructor from `Instructor`, `TeacherEnrollment` or `DesignerEnrollment`; student from `StudentEnrollment`; root-account
 * administrator from the administrator role claim plus the root-admin substitution being `true` on the `account_admin`
 * surface. Any other role is not authorized. Throws {@link LmsLtiConfigurationError} when the LMS left a substitution
 * unexpanded (a stale registration).
 */
export function resolveLaunchOutcome(claims: LaunchClaims): LaunchOutcome {
  if (claims.messageType === DEEP_LINKING_REQUEST) return { kind: 'deep-linking' };
  // Without a user (a public course visitor) there is nobody to authorize.
  if (claims.subject === undefined) return { kind: 'not-authorized', reason: 'no user' };

  const surface = readSurface(claims.custom);
  return surface === 'account_admin' ? accountAdminOutcome(claims) : courseOutcome(claims);
}

function readSurface(custom: Record<string, unknown>): Surface {
  const surface = custom.exb_launch_surface;
  if (surface === 'course' || surface === 'account_admin') return surface;
  throw new LmsLtiConfigurationError([
    surface === undefined
      ? 'The custom field exb_launch_surface is missing: the placement has no custom fields from this tool’s registration.'
      : 'The custom field exb_launch_surface has an unexpected value.',
  ]);
}

/** Every requested field of the surface must be present and expanded; reports all problems at once. */
function checkExpanded(custom: Record<string, unknown>, fields: Record<string, string>): void {
  const problems: string[] = [];
  for (const [name, substitution] of Object.entries(fields)) {
    if (!substitution.startsWith('$')) continue;
    const value = custom[name];
    if (value === undefined) problems.push(`The custom field ${name} (${substitution}) is missing.`);
    else if (isUnexpandedSubstitution(value)) problems.push(`The LMS did not expand ${name}: it still reads ${substitution}.`);
  }
  if (problems.length > 0) throw new LmsLtiConfigurationError(problems);
}

function requireLmsId(custom: Record<string, unknown>, name: string): string {
  // Numbers are accepted as well as strings: the LMS stringifies numeric substitutions, but not every version did.
  const raw = custom[name];
  const value = typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw;
  if (!isLmsId(value)) throw new LmsLtiConfigurationError([`The custom field ${name} is not a numeric LMS id.`]);
  return value;
}

function commaList(value: unknown): string[] {
  return typeof value === 'string' ? value.split(',').map((entry) => entry.trim()).filter(Boolean) : [];
}

function courseOutcome(claims: LaunchClaims): LaunchOutcome {
  const { custom } = claims;
  checkExpanded(custom, COURSE_CUSTOM_FIELDS);
  const lmsUserId = requireLmsId(custom, 'lms_user_id');
  const courseId = requireLmsId(custom, 'lms_course_id');

  const enrollments = commaList(custom.lms_membership_roles);
  const lisRoles = new Set([...claims.roles, ...commaList(custom.lms_lis_membership_roles)]);
  const instructor =
    enrollments.some((role) => INSTRUCTOR_ENROLLMENTS.has(role)) || [...lisRoles].some((role) => INSTRUCTOR_LIS_ROLES.has(role));
  // Instructor wins: a teacher who is also enrolled as a student manages the course.
  const kind = instructor ? 'instructor' : enrollments.some((role) => STUDENT_ENROLLMENTS.has(role)) ? 'student' : undefined;
  if (!kind) return { kind: 'not-authorized', reason: 'no instructor or student role in the course' };

  return {
    kind: 'principal',
    principal: {
      kind,
      lmsUserId,
      ltiSubject: claims.subject!,
      issuer: claims.issuer,
      deploymentId: claims.deploymentId,
      courseId,
      ...(claims.name !== undefined ? { name: claims.name } : {}),
      ...(claims.contextTitle !== undefined ? { courseName: claims.contextTitle } : {}),
    },
  };
}

function accountAdminOutcome(claims: LaunchClaims): LaunchOutcome {
  const { custom } = claims;
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
      ltiSubject: claims.subject!,
      issuer: claims.issuer,
      deploymentId: claims.deploymentId,
      accountId: rootAccountId,
      ...(claims.name !== undefined ? { name: claims.name } : {}),
      ...(claims.contextTitle !== undefined ? { accountName: claims.contextTitle } : {}),
    },
  };
}
