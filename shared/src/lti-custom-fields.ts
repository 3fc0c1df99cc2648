/**
 * The LTI custom fields the registration document requests per placement: Document 1's `lms_*` keys, with the LMS's own
 * substitution names as values (DESIGN.md §7). Document 1 writes them as `$Lms...` placeholders, but the LMS expands only
 * the names it registers (`$Canvas...`, `$com.Instructure...`) and sends any other `$...` value back literally, so the
 * document must request Canvas's names.
 */
export const COURSE_PERMISSIONS_REQUESTED = ['manage_assignments_edit', 'manage_course_content_edit'] as const;

export const COURSE_CUSTOM_FIELDS = {
  lms_user_id: '$Canvas.user.id',
  lms_membership_roles: '$Canvas.membership.roles',
  lms_lis_membership_roles: '$com.Instructure.membership.roles',
  exb_launch_surface: 'course',
  lms_course_id: '$Canvas.course.id',
  lms_membership_permissions: `$Canvas.membership.permissions<${COURSE_PERMISSIONS_REQUESTED.join(',')}>`,
} as const;

export const ACCOUNT_ADMIN_CUSTOM_FIELDS = {
  lms_user_id: '$Canvas.user.id',
  exb_launch_surface: 'account_admin',
  lms_account_id: '$Canvas.account.id',
  lms_root_account_id: '$Canvas.rootAccount.id',
  lms_user_is_root_account_admin: '$Canvas.user.isRootAccountAdmin',
} as const;

/**
 * A substitution name left literal: the LMS's own names (`$Canvas...`, `$com.Instructure...`) come back unexpanded when
 * their guard fails or the name is misspelt; the contract's `$Lms...` placeholders come back from a developer key made
 * from an older registration document. Both mean the developer key must be updated from the current document.
 */
const UNEXPANDED_SUBSTITUTION = /^\$(?:Canvas\.|com\.Instructure\.|Lms\.|com\.Lms\.)/;

/** True when a custom field value is an LMS substitution the platform left unexpanded. */
export function isUnexpandedSubstitution(value: unknown): boolean {
  return typeof value === 'string' && UNEXPANDED_SUBSTITUTION.test(value);
}

