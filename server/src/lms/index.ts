export { LmsApi } from './api.js';
export type { AccountCoursesParams, CourseInclude, EnrollmentType, ListCoursesParams, NewQuizSettingsUpdate, QuizUpdate } from './api.js';
export { LmsClient } from './client.js';
export type { AccessTokenSource, CallOptions, LmsClientSettings, Page } from './client.js';
export { LmsConnector } from './connector.js';
export * from './errors.js';
export type {
  LmsAccount,
  LmsAssignment,
  LmsCourse,
  LmsCourseEnrollment,
  LmsNewQuiz,
  LmsPermissions,
  LmsQuiz,
  LmsQuizSubmission,
  LmsSessionToken,
  LmsSubmission,
  LmsTerm,
} from './schemas.js';
