import { ACCOUNT_ADMIN_CUSTOM_FIELDS, COURSE_CUSTOM_FIELDS } from '@exb/shared/lti-custom-fields.js';
import { LTI_LAUNCH_ROUTE, LTI_LOGIN_ROUTE, TOOL_KEYS_ROUTE } from '@exb/shared/service-paths.js';

export interface RegistrationInput {
  baseUrl: string;
  lmsPlatform: string;
  courseNavigationVisibleToStudents: boolean;
}

export const TOOL_TITLE = 'Exam browser enforcement';

/** The account navigation's link to the administration, as the LMS shows it (pages that send administrators there name it). */
export const ACCOUNT_NAVIGATION_TEXT = 'Exam browser administration';
const TOOL_DESCRIPTION =
  'Requires chosen quizzes to be taken inside a secure exam browser: the access code is released only to a correctly configured browser.';

/** The LTI 1.3 registration document (`GET /lti/config`) an administrator pastes into the LMS developer key. */
export function buildRegistrationDocument(input: RegistrationInput) {
  const launchUrl = `${input.baseUrl}${LTI_LAUNCH_ROUTE.path}`;
  return {
    title: TOOL_TITLE,
    description: TOOL_DESCRIPTION,
    oidc_initiation_url: `${input.baseUrl}${LTI_LOGIN_ROUTE.path}`,
    target_link_uri: launchUrl,
    public_jwk_url: `${input.baseUrl}${TOOL_KEYS_ROUTE.path}`,
    scopes: [] as string[],
    // Assessment links (`/exb/launch/:contentId` in a module or assignment) carry only tool-level custom fields; the
    // course set makes those launches course-surface launches. Placements override these keys with their own.
    custom_fields: { ...COURSE_CUSTOM_FIELDS },
    extensions: [
      {
        platform: input.lmsPlatform,
        privacy_level: 'public',
        settings: {
          text: TOOL_TITLE,
          placements: [
            {
              placement: 'course_navigation',
              message_type: 'LtiResourceLinkRequest',
              target_link_uri: launchUrl,
              text: 'Exam browser',
              // In the LMS, course navigation `admins` means teachers, designers and administrators only.
              visibility: input.courseNavigationVisibleToStudents ? 'members' : 'admins',
              default: 'enabled',
              enabled: true,
              custom_fields: { ...COURSE_CUSTOM_FIELDS },
            },
            {
              placement: 'account_navigation',
              message_type: 'LtiResourceLinkRequest',
              target_link_uri: launchUrl,
              text: ACCOUNT_NAVIGATION_TEXT,
              visibility: 'admins',
              required_permissions: 'manage_course_content_edit',
              default: 'enabled',
              enabled: true,
              display_type: 'full_width_in_context',
              root_account_only: true,
              custom_fields: { ...ACCOUNT_ADMIN_CUSTOM_FIELDS },
            },
          ],
        },
      },
    ],
  };
}
