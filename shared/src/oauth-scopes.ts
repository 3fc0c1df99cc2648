/** LMS OAuth scope sets of Document 1, the same for every role. The LMS still enforces the user's real rights. */
export const APPLICATION_SCOPES = [
  'url:GET|/api/v1/courses',
  'url:GET|/api/v1/courses/:course_id/quizzes',
  'url:GET|/api/v1/courses/:course_id/assignments',
  'url:GET|/api/quiz/v1/courses/:course_id/quizzes/:assignment_id',
  'url:PUT|/api/v1/courses/:course_id/quizzes/:id',
  'url:PATCH|/api/quiz/v1/courses/:course_id/quizzes/:assignment_id',
  'url:GET|/api/v1/login/session_token',
] as const;

/** Additional scopes an administrator grant carries on top of the application scopes. */
export const ADMIN_SCOPES = [
  'url:GET|/api/v1/accounts/:id',
  'url:GET|/api/v1/accounts/:account_id/permissions',
  'url:GET|/api/v1/accounts/:account_id/courses',
  'url:GET|/api/v1/accounts/:account_id/terms',
  'url:GET|/api/v1/courses/:id',
  'url:GET|/api/v1/courses/:course_id/quizzes/:id',
] as const;

/** The combined set an administrator authorization requests. */
export const ADMIN_AND_APPLICATION_SCOPES = [...APPLICATION_SCOPES, ...ADMIN_SCOPES] as const;
