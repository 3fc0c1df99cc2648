/**
 * A refusal a domain service gives on purpose: the contract's `error_code`, the HTTP status it answers with, and a
 * message that is safe to show as it is (no secret, no submitted value, no internal detail). Services throw it; the
 * tRPC layer and the REST adapters translate it once (`trpc/error-mapping.ts`), so both surfaces answer alike.
 */
export class DomainError extends Error {
  readonly errorCode: string;
  readonly status: number;
  /** Set when the user has to authorize the LMS again; `authUrl` then says where. */
  readonly requiresAuth: boolean;
  readonly authUrl: string | undefined;

  constructor(
    status: number,
    errorCode: string,
    message: string,
    options: { requiresAuth?: boolean; authUrl?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    this.status = status;
    this.errorCode = errorCode;
    this.requiresAuth = options.requiresAuth ?? false;
    this.authUrl = options.authUrl;
  }
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
