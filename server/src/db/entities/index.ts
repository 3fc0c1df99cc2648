import { Lease } from './lease.js';
import { LmsOAuthToken } from './lms-oauth-token.js';
import { OneTimeToken } from './one-time-token.js';
import { Assessment } from './assessment.js';
import { AssessmentSetting } from './assessment-setting.js';
import { CourseDefaults } from './course-defaults.js';
import { LtiContextBinding } from './lti-context-binding.js';
import { CourseResetJournal } from './course-reset-journal.js';

/** Every entity the ORM knows. Add new entities here. */
export const entities = [OneTimeToken, Lease, LmsOAuthToken, Assessment, AssessmentSetting, CourseDefaults, LtiContextBinding, CourseResetJournal];

export { Lease, LmsOAuthToken, OneTimeToken, Assessment, AssessmentSetting, CourseDefaults, LtiContextBinding, CourseResetJournal };
