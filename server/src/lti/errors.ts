import { ErrorCodes, errorStatus } from '@exb/shared/error-codes.js';

/**
 * Why a login or launch was refused. Codes are shown on the error page (they name the failed check, never a value), so
 * an administrator can tell a stale registration from an expired launch without reading server logs. The two the
 * contract names come from the error-code catalogue.
 */
export const LTI_ERROR_CODES = [
  // Login initiation
  'LTI_LOGIN_INVALID_REQUEST',
  'LTI_LOGIN_ISSUER',
  'LTI_LOGIN_CLIENT_ID',
  'LTI_LOGIN_TARGET',
  'LTI_LOGIN_DEPLOYMENT',
  // Launch envelope, state and browser binding
  'LTI_LAUNCH_PLATFORM_ERROR',
  'LTI_LAUNCH_INVALID_ENVELOPE',
  'LTI_LAUNCH_STATE_INVALID',
  'LTI_LAUNCH_TRANSACTION_MISSING',
  'LTI_LAUNCH_TRANSACTION_MISMATCH',
  'LTI_LAUNCH_STATE_REPLAYED',
  // Token validation
  'LTI_TOKEN_MALFORMED',
  'LTI_TOKEN_ALGORITHM',
  'LTI_TOKEN_UNKNOWN_KEY',
  'LTI_PLATFORM_KEY_TOO_WEAK',
  'LTI_PLATFORM_KEYS_UNAVAILABLE',
  'LTI_TOKEN_SIGNATURE',
  'LTI_TOKEN_ISSUER',
  'LTI_TOKEN_AUDIENCE',
  'LTI_TOKEN_NONCE',
  'LTI_TOKEN_EXPIRED',
  'LTI_TOKEN_ISSUED_IN_FUTURE',
  'LTI_TOKEN_TOO_OLD',
  'LTI_TOKEN_VERSION',
  'LTI_TOKEN_MESSAGE_TYPE',
  'LTI_TOKEN_DEPLOYMENT',
  'LTI_TOKEN_TARGET',
  'LTI_TOKEN_CLAIMS',
  // Login-launch binding
  'LTI_BINDING_ISSUER',
  'LTI_BINDING_DEPLOYMENT',
  'LTI_BINDING_TARGET',
  // After validation
  ErrorCodes.LmsLtiConfigurationError,
  'LTI_DEEP_LINKING_UNSUPPORTED',
  'LTI_IDENTITY_CONFLICT',
  // Session reloads and exam-browser launches
  'LTI_CROSS_SITE_FRAME',
  'LTI_SESSION_MISMATCH',
  'EXB_LAUNCH_NOT_FOR_SESSION',
  'EXB_LAUNCH_COURSE_MISMATCH',
  'EXB_LAUNCH_NOT_FOR_ADMIN',
  // Admission
  ErrorCodes.RATE_LIMITED,
] as const;

export type LtiErrorCode = (typeof LTI_ERROR_CODES)[number];

/** A refused login or launch: the status and the page the user sees. `details` are safe to show (no token values). */
export class LtiError extends Error {
  constructor(
    readonly code: LtiErrorCode,
    readonly status: number,
    readonly title: string,
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
    this.name = 'LtiError';
  }
}

/** A check of the id_token failed: a `400` with the generic launch explanation and the failed check's code. */
export function tokenError(code: LtiErrorCode, explanation: string): LtiError {
  return new LtiError(code, 400, 'The launch could not be verified', explanation);
}

/** The LMS sent custom fields the registration asks for without expanding them: the registration is out of date. */
export class LmsLtiConfigurationError extends LtiError {
  constructor(readonly problems: string[]) {
    super(
      ErrorCodes.LmsLtiConfigurationError,
      errorStatus(ErrorCodes.LmsLtiConfigurationError),
      'The tool’s LMS registration is out of date',
      'The LMS launched the tool without the signed values the tool needs. This happens when the developer key was created from an older registration. An LMS administrator can fix it: update the developer key from the tool’s registration document (/lti/config), make sure both placements keep their custom fields, save, and open the tool again.',
      problems,
    );
    this.name = ErrorCodes.LmsLtiConfigurationError;
  }
}

/** Too many logins or launches from one network or for one login state (Document 1); answered with `retry-after`. */
export function rateLimitedError(): LtiError {
  return new LtiError(
    ErrorCodes.RATE_LIMITED,
    errorStatus(ErrorCodes.RATE_LIMITED),
    'Too many launches',
    'The tool received too many launches from your network in a short time. Wait a minute, then open the tool again from the LMS.',
  );
}
