import { ErrorCodes, errorStatus, type ErrorCode } from '@exb/shared/error-codes.js';
import { TRPCError, type TRPC_ERROR_CODE_KEY } from '@trpc/server';
import { z } from 'zod';
import { policyErrorFromZod, schemaPolicyMessage, type PolicyMessageKey, type PolicyMessageValue } from '@exb/shared/exb-policy.js';
import { DomainError } from '../domain-error.js';
import { domainErrorFrom, type KnownErrorOptions } from '../domain/known-errors.js';
import { PolicyRefusal } from '../domain/policy-errors.js';

/**
 * The one translation of refusals between the layers: domain errors become tRPC errors (the procedure surface), and
 * tRPC errors become the contract's REST answers (`{ success: false, error_code, message }` with its status, plus
 * `requiresAuth` and `authUrl` when the LMS must be authorized again). The REST adapters never decide a status.
 */

const TRPC_CODE_BY_STATUS: Readonly<Record<number, TRPC_ERROR_CODE_KEY>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};

/** A domain error as a tRPC error; the formatter in `init.ts` reads `errorCode` (and the re-authorization hints) off the cause. */
export function toTrpcError(error: DomainError): TRPCError {
  return new TRPCError({ code: TRPC_CODE_BY_STATUS[error.status] ?? 'INTERNAL_SERVER_ERROR', message: error.message, cause: error });
}

/**
 * Rethrows a failed procedure result's cause as the tRPC error of its domain refusal, when it is one (lower-layer
 * errors included, see `domainErrorFrom`). Anything else is left as tRPC reported it: an internal error.
 */
export function rethrowAsDomainRefusal(error: TRPCError, options: KnownErrorOptions = {}): void {
  // A refusal thrown in a handler reaches here wrapped as an internal error; it leaves with its own status.
  const refusal = domainErrorFrom(error.cause ?? error, options);
  if (refusal !== null) throw toTrpcError(refusal);
}

/** What a page needs to say a policy refusal in its own language: the message's key in the `policy` namespace and its values. */
export interface PolicyMessageData {
  readonly messageKey?: PolicyMessageKey;
  readonly values?: Readonly<Record<string, PolicyMessageValue>>;
}

/**
 * The key and values of the policy message behind a procedure's refusal, for the typed API's error data: a rule broken
 * inside an input schema, a rule a domain service checked ({@link PolicyRefusal}), or a schema of the rules whose own
 * words zod reported (an exit password with other than printable ASCII). Empty for any other error, whose page falls
 * back to the error code's message. The English `message` is what the REST answers keep; they carry no key.
 */
export function policyMessageData(cause: unknown): PolicyMessageData {
  let found: PolicyMessageData | undefined;
  if (cause instanceof z.ZodError) found = policyErrorFromZod(cause) ?? schemaPolicyMessage(cause.issues[0]?.message ?? '');
  else if (cause instanceof PolicyRefusal) found = cause;
  if (found?.messageKey === undefined) return {};
  return found.values === undefined ? { messageKey: found.messageKey } : { messageKey: found.messageKey, values: found.values };
}

export interface RestError {
  readonly status: number;
  readonly body: {
    success: false;
    error_code: ErrorCode;
    message: string;
    requiresAuth?: true;
    authUrl?: string;
    [detail: string]: unknown;
  };
}

function zodMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'Invalid request.';
  const path = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return `Invalid request: ${path}${issue.message}`;
}

/**
 * The REST answer for an error a procedure call threw. `null` means the error is not a refusal (a bug or an outage):
 * the caller logs it and answers 500 without details.
 */
export function restErrorOf(error: unknown): RestError | null {
  const cause = error instanceof TRPCError ? error.cause : error;
  const refusal = cause instanceof DomainError ? cause : domainErrorFrom(cause);
  if (refusal !== null) {
    return {
      status: refusal.status,
      body: {
        ...refusal.details,
        success: false,
        error_code: refusal.errorCode,
        message: refusal.message,
        ...(refusal.requiresAuth ? { requiresAuth: true as const } : {}),
        ...(refusal.authUrl ? { authUrl: refusal.authUrl } : {}),
      },
    };
  }
  if (!(error instanceof TRPCError)) return null;
  if (error.code === 'BAD_REQUEST' || error.code === 'PARSE_ERROR') {
    if (cause instanceof z.ZodError) {
      const policy = policyErrorFromZod(cause);
      if (policy !== null) return { status: errorStatus(policy.errorCode), body: { success: false, error_code: policy.errorCode, message: policy.message } };
      return { status: errorStatus(ErrorCodes.INVALID_REQUEST), body: { success: false, error_code: ErrorCodes.INVALID_REQUEST, message: zodMessage(cause) } };
    }
    return { status: errorStatus(ErrorCodes.INVALID_REQUEST), body: { success: false, error_code: ErrorCodes.INVALID_REQUEST, message: 'Invalid request.' } };
  }
  if (error.code === 'UNAUTHORIZED') {
    return { status: errorStatus(ErrorCodes.UNAUTHORIZED), body: { success: false, error_code: ErrorCodes.UNAUTHORIZED, message: error.message } };
  }
  return null;
}
