import { errorStatus, type AnswerErrorCode } from '@exb/shared/error-codes.js';

/**
 * A refusal a domain service gives on purpose: the contract's `error_code`, the HTTP status the catalogue
 * (`@exb/shared/error-codes.js`) gives it, and a message that is safe to show as it is (no secret, no submitted value, no
 * internal detail). Services throw it; the tRPC layer and the REST adapters translate it once (`trpc/error-mapping.ts`),
 * so both surfaces answer alike.
 */
export class DomainError extends Error {
  readonly errorCode: AnswerErrorCode;
  readonly status: number;
  /** Set when the user has to authorize the LMS again; `authUrl` then says where. */
  readonly requiresAuth: boolean;
  readonly authUrl: string | undefined;
  /**
   * Further fields of the answer, beside `error_code` and `message`, for refusals the contract says more about (which
   * assessments a course reset asks to check). Plain JSON, never a secret.
   */
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(
    errorCode: AnswerErrorCode,
    message: string,
    options: { requiresAuth?: boolean; authUrl?: string; cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    this.status = errorStatus(errorCode);
    this.errorCode = errorCode;
    this.requiresAuth = options.requiresAuth ?? false;
    this.authUrl = options.authUrl;
    this.details = options.details;
  }
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
