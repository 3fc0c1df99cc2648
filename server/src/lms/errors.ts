import { ErrorCodes } from '@exb/shared/error-codes.js';

/**
 * Domain errors of every LMS call. Messages name the operation and the outcome only: never a token, a code, a secret,
 * a query string or the LMS's response body, so an error can be logged or shown as it is.
 */
/** The codes of the catalogue (`@exb/shared/error-codes.js`) an LMS call fails with. */
export type LmsErrorCode =
  | typeof ErrorCodes.LMS_AUTHORIZATION_REQUIRED
  | typeof ErrorCodes.LMS_PERMISSION_DENIED
  | typeof ErrorCodes.LMS_NOT_FOUND
  | typeof ErrorCodes.LMS_REQUEST_REJECTED
  | typeof ErrorCodes.LMS_RATE_LIMITED
  | typeof ErrorCodes.LMS_TIMEOUT
  | typeof ErrorCodes.LMS_UNAVAILABLE
  | typeof ErrorCodes.LMS_INVALID_RESPONSE;

export class LmsError extends Error {
  constructor(
    readonly code: LmsErrorCode,
    readonly operation: string,
    message: string,
    /** The LMS's HTTP status, when it answered. */
    readonly status?: number,
  ) {
    super(`LMS ${operation}: ${message}`);
    this.name = new.target.name;
  }
}

/**
 * Why the service cannot act for the user without a new OAuth authorization:
 * - `no-grant`: nothing stored for the user;
 * - `reauthorization-required`: the grant was revoked or its refresh token no longer works;
 * - `token-rejected`: the LMS rejected the access token and refreshing did not help;
 * - `insufficient-scope`: the grant lacks a scope the call needs (an administrator call on an application grant);
 * - `unreadable`: the stored tokens cannot be decrypted with the configured keyring;
 * - `identity-unproven`: the stored grant is not bound to the signed identity asking (another subject's grant, or a
 *   record from before identity binding).
 */
export type AuthorizationRequiredReason =
  | 'no-grant'
  | 'reauthorization-required'
  | 'token-rejected'
  | 'insufficient-scope'
  | 'unreadable'
  | 'identity-unproven';

export class LmsAuthorizationRequiredError extends LmsError {
  constructor(
    operation: string,
    readonly reason: AuthorizationRequiredReason,
    status?: number,
  ) {
    super(ErrorCodes.LMS_AUTHORIZATION_REQUIRED, operation, `authorization required (${reason})`, status);
  }
}

export class LmsPermissionDeniedError extends LmsError {
  constructor(operation: string, status: number) {
    super(ErrorCodes.LMS_PERMISSION_DENIED, operation, `permission denied (HTTP ${status})`, status);
  }
}

export class LmsNotFoundError extends LmsError {
  constructor(operation: string) {
    super(ErrorCodes.LMS_NOT_FOUND, operation, 'not found (HTTP 404)', 404);
  }
}

/** The LMS refused the request as invalid (400, 409, 422 and other client errors without a more specific meaning). */
export class LmsRequestRejectedError extends LmsError {
  constructor(operation: string, status: number) {
    super(ErrorCodes.LMS_REQUEST_REJECTED, operation, `request rejected (HTTP ${status})`, status);
  }
}

export class LmsRateLimitedError extends LmsError {
  constructor(operation: string, status: number) {
    super(ErrorCodes.LMS_RATE_LIMITED, operation, `rate limited and the deadline left no room to retry (HTTP ${status})`, status);
  }
}

export class LmsTimeoutError extends LmsError {
  constructor(operation: string) {
    super(ErrorCodes.LMS_TIMEOUT, operation, 'no answer before the deadline');
  }
}

/** Network failure or a server error on the LMS side. */
export class LmsUnavailableError extends LmsError {
  constructor(operation: string, status?: number) {
    super(ErrorCodes.LMS_UNAVAILABLE, operation, status === undefined ? 'unreachable' : `server error (HTTP ${status})`, status);
  }
}

/** An answer the service cannot use: too large, not JSON, an unexpected shape or an unsafe link. */
export class LmsInvalidResponseError extends LmsError {
  constructor(operation: string, detail: string, status?: number) {
    super(ErrorCodes.LMS_INVALID_RESPONSE, operation, `unusable response (${detail})`, status);
  }
}

export function isLmsError(error: unknown): error is LmsError {
  return error instanceof LmsError;
}
