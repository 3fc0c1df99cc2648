import { ErrorCodes } from '@exb/shared/error-codes.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import {
  LmsAuthorizationRequiredError,
  LmsError,
  LmsNotFoundError,
  LmsPermissionDeniedError,
  LmsRateLimitedError,
  LmsTimeoutError,
} from '../lms/errors.js';
import { DomainError } from '../domain-error.js';
import { assessmentBusyError } from './locks.js';
import { SettingsConflictError } from './settings/settings-repository.js';

export interface KnownErrorOptions {
  /**
   * Where the user authorizes the LMS again. Given (instructor routes), an authorization-required LMS error becomes the
   * contract's `requiresAuth` answer; without it, a descriptive error.
   */
  readonly reauthorizeUrl?: string;
  /**
   * Where an administrator authorizes again (administrator routes): the refusal stays a descriptive error, without the
   * instructor routes' `requiresAuth`, and names this start as its `authUrl`.
   */
  readonly authorizeUrl?: string;
}

/**
 * Errors of the layers below the domain (LMS client, settings repository, an unreachable database) as the refusals the
 * contract names. Returns `null` for anything else, which stays an internal error. Messages never carry LMS bodies,
 * tokens or codes.
 */
export function domainErrorFrom(error: unknown, options: KnownErrorOptions = {}): DomainError | null {
  if (error instanceof DomainError) return error;
  if (error instanceof SettingsConflictError) return assessmentBusyError();
  if (isDatabaseUnavailable(error)) {
    const message = 'The service cannot reach its database at the moment. Try again in a few seconds.';
    return new DomainError(ErrorCodes.SERVICE_UNAVAILABLE, message, { cause: error });
  }
  if (!(error instanceof LmsError)) return null;
  if (error instanceof LmsAuthorizationRequiredError) {
    const message =
      error.reason === 'identity-unproven' || error.reason === 'no-grant'
        ? 'Connect your LMS account, so the LMS can confirm who you are before the tool acts for you.'
        : 'The LMS authorization has expired or was revoked. Authorize the tool again to continue.';
    if (options.reauthorizeUrl !== undefined) {
      return new DomainError(ErrorCodes.LMS_AUTHORIZATION_REQUIRED, message, { requiresAuth: true, authUrl: options.reauthorizeUrl, cause: error });
    }
    return options.authorizeUrl === undefined
      ? new DomainError(ErrorCodes.LMS_AUTHORIZATION_REQUIRED, message, { cause: error })
      : new DomainError(ErrorCodes.LMS_AUTHORIZATION_REQUIRED, message, { authUrl: options.authorizeUrl, cause: error });
  }
  if (error instanceof LmsPermissionDeniedError) {
    return new DomainError(ErrorCodes.LMS_PERMISSION_DENIED, 'The LMS did not allow this change with your account.', { cause: error });
  }
  if (error instanceof LmsNotFoundError) {
    return new DomainError(ErrorCodes.LMS_NOT_FOUND, 'The LMS no longer has this item. Refresh the assessment list.', { cause: error });
  }
  if (error instanceof LmsRateLimitedError) {
    return new DomainError(ErrorCodes.LMS_RATE_LIMITED, 'The LMS is busy. Try again in a moment.', { cause: error });
  }
  if (error instanceof LmsTimeoutError) {
    return new DomainError(ErrorCodes.LMS_TIMEOUT, 'The LMS did not answer in time. Nothing was changed here; try again.', { cause: error });
  }
  return new DomainError(error.code, 'The LMS could not complete the request. Try again in a moment.', { cause: error });
}
