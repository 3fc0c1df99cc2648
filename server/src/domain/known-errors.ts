import {
  LmsAuthorizationRequiredError,
  LmsError,
  LmsNotFoundError,
  LmsPermissionDeniedError,
  LmsRateLimitedError,
  LmsTimeoutError,
} from '../lms/errors.js';
import { DomainError } from './errors.js';
import { assessmentBusyError } from './locks.js';
import { SettingsConflictError } from './settings/settings-repository.js';

export interface KnownErrorOptions {
  /**
   * Where the user authorizes the LMS again. Given (instructor routes), an authorization-required LMS error becomes the
   * contract's `requiresAuth` answer; without it, a descriptive error.
   */
  readonly reauthorizeUrl?: string;
}

/**
 * Errors of the layers below the domain (LMS client, settings repository) as the refusals the contract names. Returns
 * `null` for anything else, which stays an internal error. Messages never carry LMS bodies, tokens or codes.
 */
export function domainErrorFrom(error: unknown, options: KnownErrorOptions = {}): DomainError | null {
  if (error instanceof DomainError) return error;
  if (error instanceof SettingsConflictError) return assessmentBusyError();
  if (!(error instanceof LmsError)) return null;
  if (error instanceof LmsAuthorizationRequiredError) {
    const message = 'The LMS authorization has expired or was revoked. Authorize the tool again to continue.';
    return options.reauthorizeUrl === undefined
      ? new DomainError(401, 'LMS_AUTHORIZATION_REQUIRED', message, { cause: error })
      : new DomainError(401, 'LMS_AUTHORIZATION_REQUIRED', message, { requiresAuth: true, authUrl: options.reauthorizeUrl, cause: error });
  }
  if (error instanceof LmsPermissionDeniedError) {
    return new DomainError(403, 'LMS_PERMISSION_DENIED', 'The LMS did not allow this change with your account.', { cause: error });
  }
  if (error instanceof LmsNotFoundError) {
    return new DomainError(404, 'LMS_NOT_FOUND', 'The LMS no longer has this item. Refresh the assessment list.', { cause: error });
  }
  if (error instanceof LmsRateLimitedError) {
    return new DomainError(503, 'LMS_RATE_LIMITED', 'The LMS is busy. Try again in a moment.', { cause: error });
  }
  if (error instanceof LmsTimeoutError) {
    return new DomainError(504, 'LMS_TIMEOUT', 'The LMS did not answer in time. Nothing was changed here; try again.', { cause: error });
  }
  return new DomainError(502, error.code, 'The LMS could not complete the request. Try again in a moment.', { cause: error });
}
