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

/**
 * Scopes the exam-day board reads with when a grant carries them: the quiz attempts of a classic quiz, the submissions
 * of a new quiz's assignment, and the course's student enrollments. They are not in the sets above, which the
 * contract fixes: the LMS refuses a whole authorization that asks for a scope its developer key lacks, so asking for
 * them by default would lock out every school whose key was set up by the contract. The service asks for them only
 * with `LMS_OAUTH_EXAM_DAY_SCOPES`; where a grant lacks one, the board says which and shows the rest.
 */
export const EXAM_DAY_SCOPES = {
  quizSubmissions: 'url:GET|/api/v1/courses/:course_id/quizzes/:quiz_id/submissions',
  assignmentSubmissions: 'url:GET|/api/v1/courses/:course_id/assignments/:assignment_id/submissions',
  enrollments: 'url:GET|/api/v1/courses/:course_id/enrollments',
} as const;
