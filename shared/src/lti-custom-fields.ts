/**
 * The LTI custom fields the registration document requests per placement, with the LMS substitution names of the
 * contract (Document 1). The LMS expands each `$Lms...` value at launch; a value still starting with `$Lms` or
 * `$com.Lms` after the launch means the LMS did not expand it (a stale registration).
 */
export const COURSE_PERMISSIONS_REQUESTED = ['manage_assignments_edit', 'manage_course_content_edit'] as const;

export const COURSE_CUSTOM_FIELDS = {
  lms_user_id: '$Lms.user.id',
  lms_membership_roles: '$Lms.membership.roles',
  lms_lis_membership_roles: '$com.Lms.membership.roles',
  exb_launch_surface: 'course',
  lms_course_id: '$Lms.course.id',
  lms_membership_permissions: `$Lms.membership.permissions<${COURSE_PERMISSIONS_REQUESTED.join(',')}>`,
} as const;

export const ACCOUNT_ADMIN_CUSTOM_FIELDS = {
  lms_user_id: '$Lms.user.id',
  exb_launch_surface: 'account_admin',
  lms_account_id: '$Lms.account.id',
  lms_root_account_id: '$Lms.rootAccount.id',
  lms_user_is_root_account_admin: '$Lms.user.isRootAccountAdmin',
} as const;

/** True when a custom field value is an LMS substitution the platform left unexpanded. */
export function isUnexpandedSubstitution(value: unknown): boolean {
  return typeof value === 'string' && /^\$(com\.)?Lms\./.test(value);
}
