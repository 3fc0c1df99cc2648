/**
 * Every `error_code` the service answers with, and the HTTP status it answers with. The contract's error tables
 * (Documents 1 to 3) in one place: the server's refusals take their code, and `DomainError` its status, from here; the
 * client and the detector compare the codes they read against `ErrorCodes`.
 *
 * A `null` status marks a code that is only ever reported per item inside a successful answer (a connect result, a copy
 * result, a preset assignment's failure), never as the status of an answer of its own.
 *
 * A few codes are answered with another status on one route, as the contract asks: `ROUTE_ERROR_STATUS` names the
 * route and the status. Everything else answers with the status given here; this file is the only place a refusal's
 * status is chosen.
 *
 * Code outside this file names a code through `ErrorCodes` (`ErrorCodes.COURSE_MISMATCH`), never as a string of its
 * own, so each code is written once, here (`shared/test/error-code-literals.test.ts` keeps it so).
 *
 * Kept elsewhere, each as one typed list of its own, because the contract does not name them:
 * - the LTI login and launch refusals shown on the refusal page: `LAUNCH_REFUSAL_STATUS` in `launch-refusal-status.ts`, with their statuses
 *   (the two the contract names, `LmsLtiConfigurationError` and `RATE_LIMITED`, are codes of `ERROR_STATUS` and keep
 *   its status there);
 * - the OAuth callback's failure names (the `oauth-error` view, not an `error_code`): `CallbackFailure` in
 *   `server/src/oauth/callback.ts`.
 */
export const ERROR_STATUS = {
  // Requests the service cannot read, and its own failures
  INVALID_REQUEST: 400,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,

  // Sessions, roles and cross-site guards
  UNAUTHORIZED: 401,
  /** 401 at the OAuth authorization starts and the popup ticket (`ROUTE_ERROR_STATUS`). */
  LTI_PRINCIPAL_REQUIRED: 403,
  LTI_STUDENT_REQUIRED: 403,
  INSTRUCTOR_REQUIRED: 403,
  ADMIN_REQUIRED: 403,
  ADMIN_NOT_CONFIRMED: 403,
  USER_MISMATCH: 403,
  COURSE_MISMATCH: 403,
  CROSS_SITE_REQUEST: 403,
  CORS_NOT_ALLOWED: 403,
  INVALID_ACTION_TOKEN: 403,

  // LMS OAuth authorization starts (Document 1)
  CROSS_SITE_AUTHORIZATION_START: 403,
  OAUTH_ROLE_MISMATCH: 403,
  OAUTH_USER_MISMATCH: 403,
  OAUTH_COURSE_MISMATCH: 403,
  LMS_OAUTH_NOT_CONFIGURED: 503,

  // The LMS's answers, as the domain reports them
  LMS_AUTHORIZATION_REQUIRED: 401,
  LMS_PERMISSION_DENIED: 403,
  LMS_NOT_FOUND: 404,
  LMS_RATE_LIMITED: 503,
  LMS_TIMEOUT: 504,
  LMS_REQUEST_REJECTED: 502,
  LMS_UNAVAILABLE: 502,
  LMS_INVALID_RESPONSE: 502,
  LMS_ACCESS_CODE_NOT_APPLIED: 502,

  // Instructor and administrator settings (Document 2)
  ASSESSMENT_NOT_FOUND: 404,
  ASSESSMENT_OPERATION_IN_PROGRESS: 409,
  COURSE_UPDATE_IN_PROGRESS: 409,
  COURSE_RESET_IN_PROGRESS: 409,
  EXB_NOT_ENABLED: 409,
  EXB_QUIT_PASSWORD_REQUIRED: 409,
  INVALID_EXB_URL_POLICY: 400,
  INVALID_EXB_DOMAIN_POLICY: 400,
  INVALID_EXB_TOOL_POLICY: 400,
  INVALID_EXB_TOOL_SELECTION: 400,
  QUIZ_TOOL_DEFINITIONS_NOT_ALLOWED: 400,
  INVALID_COPY_TARGETS: 400,
  EXAM_TOOL_NOT_FOUND: 404,
  EXAM_TOOL_MANAGED: 409,
  COPY_TARGET_NOT_AUTHORIZED: null,
  COPY_TARGET_RESET: null,
  ADMIN_COURSE_NOT_CONNECTED: 404,
  ADMIN_COURSE_NOT_IN_ACCOUNT: null,
  INVALID_ADMIN_COURSE_IDS: 400,
  INVALID_ADMIN_TOOL_PRESET: 400,
  ADMIN_TOOL_PRESET_NOT_FOUND: 404,
  ADMIN_TOOL_PRESET_LIMIT: 409,
  ADMIN_TOOL_PRESET_ASSIGNED: 409,
  ADMIN_TOOL_PRESET_ROLLOUT_FAILED: 502,
  ADMIN_TOOL_PRESET_ROLLOUT_LIMIT: 409,
  /** Not in the contract's table: the overlapping-operation 409 the contract gives every operation lock. */
  ADMIN_TOOL_PRESET_BUSY: 409,
  // Course reset (Document 2)
  ADMIN_COURSE_RESET_CONFIRMATION_REQUIRED: 400,
  ADMIN_COURSE_RESET_ASSESSMENT_BUSY: 409,
  ADMIN_COURSE_RESET_ASSESSMENT_IDENTITY_UNAVAILABLE: 409,
  ADMIN_COURSE_RESET_ROLLBACK_VERIFY_REQUIRED: 409,
  ADMIN_COURSE_RESET_VERIFY_REQUIRED: 409,
  // Access-code verification and repair (additions)
  ASSESSMENT_NOT_IN_LMS: 409,
  LMS_ACCESS_CODE_HIDDEN: 409,
  LMS_ACCESS_CODE_MISSING: 409,
  LMS_ACCESS_CODE_MANAGED: 409,
  // Audit trail paging (addition)
  INVALID_CURSOR: 400,
  CATALOG_FULL: null,
  TOOL_ID_TAKEN: null,

  // Student exam-browser routes (Document 3)
  LMS_SESSION_AUTHORIZATION_REQUIRED: 403,
  LMS_SESSION_READINESS_FAILED: 502,
  LMS_SESSION_UNAVAILABLE: 503,
  LMS_COURSE_UNVERIFIED: 403,
  EXB_CLASSIC_QUIZ_ONLY: 403,
  EXB_CONFIG_GRANT_INVALID: 403,
  EXB_CONFIG_UNAVAILABLE: 400,
  /** 400 on the configuration download (`ROUTE_ERROR_STATUS`); 503 on the setup check's configuration. */
  EXB_CERTIFICATE_UNAVAILABLE: 503,
  INVALID_EXB_CONFIG_PROOF: 403,
  INVALID_EXB_PROOF_TOKEN: 403,
  INVALID_EXB_SETUP_CHECK_PROOF: 403,
  /** Addition (exam day): no unused, unexpired exemption from the exam browser for this student and assessment. */
  EXAM_DAY_EXEMPTION_UNAVAILABLE: 410,

  // LTI launches (Document 1), shown as the code of the launch error page rather than as an `error_code`
  /** The LMS left a signed substitution the registration asks for unexpanded: the registration is out of date. */
  LmsLtiConfigurationError: 400,
} as const satisfies Record<string, number | null>;

/** A code the service answers with. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * Every code by its own name, `ErrorCodes.COURSE_MISMATCH === 'COURSE_MISMATCH'`, built from `ERROR_STATUS` so that a code
 * is written once. The way code outside this file writes a code.
 */
export const ErrorCodes = Object.freeze(Object.fromEntries(Object.keys(ERROR_STATUS).map((code) => [code, code]))) as {
  readonly [C in ErrorCode]: C;
};

/** A code that is the status of an answer of its own (not only reported per item). */
export type AnswerErrorCode = { [C in ErrorCode]: (typeof ERROR_STATUS)[C] extends number ? C : never }[ErrorCode];

/** The status `code` answers with. */
export function errorStatus<C extends AnswerErrorCode>(code: C): (typeof ERROR_STATUS)[C] {
  return ERROR_STATUS[code];
}

/**
 * The routes whose contract answers a code with a status other than its own:
 * - `authorizationStart`: the LMS OAuth authorization starts and the popup ticket need a principal first, and answer
 *   its absence `401` (Document 1);
 * - `configDownload`: the exam browser's configuration download answers `403` for its grant and `400` for every
 *   configuration it cannot build, whatever the cause (Document 3, Errors).
 */
export const ROUTE_ERROR_STATUS = {
  authorizationStart: { LTI_PRINCIPAL_REQUIRED: 401 },
  configDownload: { EXB_CERTIFICATE_UNAVAILABLE: 400 },
} as const satisfies Record<string, Partial<Record<AnswerErrorCode, number>>>;

/** A route whose contract answers some codes with a status of its own. */
export type ErrorRoute = keyof typeof ROUTE_ERROR_STATUS;

/** The status `code` answers with on `route`: the route's own where the contract gives one, else the code's. */
export function errorStatusAt(code: AnswerErrorCode, route?: ErrorRoute): number {
  const own = route === undefined ? undefined : (ROUTE_ERROR_STATUS[route] as Partial<Record<AnswerErrorCode, number>>)[code];
  return own ?? ERROR_STATUS[code];
}

/**
 * Refusals the contract answers with a page of their own and a status but no `error_code` (Document 3, Errors). Other
 * codeless refusals answer with the status of the code they stand for (`NOT_FOUND` for an address that names nothing,
 * `SERVICE_UNAVAILABLE` for a readiness probe that finds the service not ready).
 */
export const PAGE_REFUSAL_STATUS = {
  /** An exit grant that is missing, expired, or for a setting no longer active. */
  exitGrantInvalid: 403,
  /** The quit and manual-exit paths without a grant, which are never available. */
  exitUnbound: 410,
  /** A session-start key already used or expired (an addition: the key existed, and is gone). */
  sessionKeySpent: 410,
} as const satisfies Record<string, number>;


/** Whether `value` is a code of this catalogue (for codes read back from storage or from an answer). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_STATUS, value);
}
