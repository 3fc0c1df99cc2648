import { ENROLLMENT_ROLE_NAMES, effectiveEnrollmentState, isAnyAccountAdmin } from '../permissions.js';
import type { EnrollmentType } from '../seed.js';
import type { Account, AccountAdmin, Course, Enrollment, LmsState, User } from '../state.js';

const LIS = 'http://purl.imsglobal.org/vocab/lis/v2/';

export const LTI_ROLES = {
  instructor: `${LIS}membership#Instructor`,
  learner: `${LIS}membership#Learner`,
  teachingAssistant: `${LIS}membership/Instructor#TeachingAssistant`,
  contentDeveloper: `${LIS}membership#ContentDeveloper`,
  mentor: `${LIS}membership#Mentor`,
  institutionInstructor: `${LIS}institution/person#Instructor`,
  institutionStudent: `${LIS}institution/person#Student`,
  institutionAdministrator: `${LIS}institution/person#Administrator`,
  systemUser: `${LIS}system/person#User`,
  systemSysAdmin: `${LIS}system/person#SysAdmin`,
  systemNone: `${LIS}system/person#None`,
} as const;

const ENROLLMENT_LTI_ROLES: Record<EnrollmentType, string[]> = {
  teacher: [LTI_ROLES.instructor],
  student: [LTI_ROLES.learner],
  ta: [LTI_ROLES.teachingAssistant, LTI_ROLES.instructor],
  designer: [LTI_ROLES.contentDeveloper],
  observer: [LTI_ROLES.mentor],
};

export type LaunchContext = { kind: 'course'; course: Course } | { kind: 'account'; account: Account };

export function contextAccountId(context: LaunchContext): number {
  return context.kind === 'course' ? context.course.accountId : context.account.id;
}

/** The user's current memberships in the launch context: active enrollments, and admin roles up the account chain. */
export function currentMemberships(
  state: LmsState,
  user: User,
  context: LaunchContext,
): { enrollments: Enrollment[]; admin: AccountAdmin[] } {
  const enrollments =
    context.kind === 'course'
      ? state
          .enrollmentsOf(user.id, context.course.id)
          .filter((enrollment) => effectiveEnrollmentState(enrollment, context.course) === 'active')
      : [];
  const chain = new Set(state.accountChain(contextAccountId(context)).map((account) => account.id));
  const admin = state.adminMembershipsOf(user.id).filter((membership) => chain.has(membership.accountId));
  return { enrollments, admin };
}

/** The root account of the launch context: institution roles and root-admin checks are about this school. */
export function contextRootAccount(state: LmsState, context: LaunchContext): Account {
  return state.rootAccountOf(contextAccountId(context));
}

/**
 * The `roles` claim: context roles from current enrollments in the course, institution roles from what the user is
 * anywhere in the context's school (teacher or TA → Instructor, student → Student, any account admin there →
 * Administrator, root admins included: the LMS has no separate root-admin role), `system/person#User` for everyone;
 * de-duplicated and sorted. Only enrollments and admin memberships count, never custom parameters.
 */
export function ltiRoles(state: LmsState, user: User | null, context: LaunchContext): string[] {
  if (!user) return [LTI_ROLES.systemNone];
  const root = contextRootAccount(state, context);
  const school = state.accountSubtree(root.id);
  const roles = new Set<string>([LTI_ROLES.systemUser]);
  for (const enrollment of currentMemberships(state, user, context).enrollments) {
    for (const role of ENROLLMENT_LTI_ROLES[enrollment.type]) roles.add(role);
  }
  for (const enrollment of state.enrollmentsOf(user.id)) {
    const course = state.courses.get(enrollment.courseId);
    if (enrollment.state !== 'active' || !course || !school.has(course.accountId)) continue;
    if (enrollment.type === 'teacher' || enrollment.type === 'ta') roles.add(LTI_ROLES.institutionInstructor);
    if (enrollment.type === 'student') roles.add(LTI_ROLES.institutionStudent);
  }
  if (isAnyAccountAdmin(state, user.id, root.id)) roles.add(LTI_ROLES.institutionAdministrator);
  if (user.siteAdmin) roles.add(LTI_ROLES.systemSysAdmin);
  return [...roles].sort();
}

function adminRoleName(role: string): string {
  return role === 'AccountAdmin' ? 'Account Admin' : role;
}

/** `$Canvas.membership.roles`: LMS role names, e.g. `TeacherEnrollment,Account Admin`. */
export function membershipRoleNames(state: LmsState, user: User, context: LaunchContext): string {
  const { enrollments, admin } = currentMemberships(state, user, context);
  const names = [
    ...enrollments.map((enrollment) => ENROLLMENT_ROLE_NAMES[enrollment.type]),
    ...admin.map((membership) => adminRoleName(membership.role)),
  ];
  return [...new Set(names)].join(',');
}

/** `$com.Instructure.membership.roles`: the same memberships as LIS role URIs. */
export function membershipLisRoles(state: LmsState, user: User, context: LaunchContext): string {
  const { enrollments, admin } = currentMemberships(state, user, context);
  const uris = [
    ...enrollments.flatMap((enrollment) => ENROLLMENT_LTI_ROLES[enrollment.type]),
    ...(admin.length > 0 ? [LTI_ROLES.institutionAdministrator] : []),
  ];
  return [...new Set(uris)].join(',');
}
