import { ERROR_STATUS, ErrorCodes } from './error-codes.js';

// Beside the catalogue rather than in it: only the service's launch pages read these, and the scripts the LMS loads
// import the catalogue (a table that reads `ERROR_STATUS` cannot be left out of their bundles).

/**
 * The refusals of LTI logins and launches, each with its status. A code names the failed check on the launch refusal
 * page (worded by the `launch:` catalogue), not an `error_code` of a JSON answer, so the contract does not list them and
 * the `errors:` messages do not word them; the two the contract names take their status from `ERROR_STATUS`.
 */
export const LAUNCH_REFUSAL_STATUS = {
  // Login initiation
  LTI_LOGIN_INVALID_REQUEST: 400,
  LTI_LOGIN_ISSUER: 400,
  LTI_LOGIN_CLIENT_ID: 400,
  LTI_LOGIN_TARGET: 400,
  LTI_LOGIN_DEPLOYMENT: 400,
  // Launch envelope, state and browser binding
  LTI_LAUNCH_PLATFORM_ERROR: 400,
  LTI_LAUNCH_INVALID_ENVELOPE: 400,
  LTI_LAUNCH_STATE_INVALID: 400,
  LTI_LAUNCH_TRANSACTION_MISSING: 400,
  LTI_LAUNCH_TRANSACTION_MISMATCH: 400,
  LTI_LAUNCH_STATE_REPLAYED: 400,
  // Token validation
  LTI_TOKEN_MALFORMED: 400,
  LTI_TOKEN_ALGORITHM: 400,
  LTI_TOKEN_UNKNOWN_KEY: 400,
  LTI_PLATFORM_KEY_TOO_WEAK: 400,
  LTI_PLATFORM_KEYS_UNAVAILABLE: 400,
  LTI_TOKEN_SIGNATURE: 400,
  LTI_TOKEN_ISSUER: 400,
  LTI_TOKEN_AUDIENCE: 400,
  LTI_TOKEN_NONCE: 400,
  LTI_TOKEN_EXPIRED: 400,
  LTI_TOKEN_ISSUED_IN_FUTURE: 400,
  LTI_TOKEN_TOO_OLD: 400,
  LTI_TOKEN_VERSION: 400,
  LTI_TOKEN_MESSAGE_TYPE: 400,
  LTI_TOKEN_DEPLOYMENT: 400,
  LTI_TOKEN_TARGET: 400,
  LTI_TOKEN_CLAIMS: 400,
  // Login-launch binding
  LTI_BINDING_ISSUER: 400,
  LTI_BINDING_DEPLOYMENT: 400,
  LTI_BINDING_TARGET: 400,
  // After validation
  [ErrorCodes.LmsLtiConfigurationError]: ERROR_STATUS.LmsLtiConfigurationError,
  LTI_DEEP_LINKING_UNSUPPORTED: 410,
  LTI_IDENTITY_CONFLICT: 400,
  // Session reloads and exam-browser launches
  LTI_CROSS_SITE_FRAME: 403,
  LTI_SESSION_MISMATCH: 403,
  EXB_LAUNCH_NOT_FOR_SESSION: 403,
  EXB_LAUNCH_COURSE_MISMATCH: 403,
  EXB_LAUNCH_NOT_FOR_ADMIN: 403,
  // Admission
  [ErrorCodes.RATE_LIMITED]: ERROR_STATUS.RATE_LIMITED,
} as const satisfies Record<string, number>;

/** A refusal of an LTI login or launch. */
export type LaunchRefusalCode = keyof typeof LAUNCH_REFUSAL_STATUS;
