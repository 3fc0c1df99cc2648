import type { FastifyReply } from 'fastify';
import { errorStatusAt, type AnswerErrorCode, type ErrorCode, type ErrorRoute } from '@exb/shared/error-codes.js';

/** The contract's error body for JSON routes. */
export interface ErrorBody {
  success: false;
  error_code: ErrorCode;
  message: string;
}

export function errorBody(errorCode: ErrorCode, message: string): ErrorBody {
  return { success: false, error_code: errorCode, message };
}

/** What a refusal may carry beside its code and message. */
export interface SendErrorOptions {
  /** Fields the contract adds to this refusal's body (an `authorizeUrl`, the checks that failed). */
  readonly fields?: Record<string, unknown>;
  /** The route, where its contract answers the code with a status of its own (`ROUTE_ERROR_STATUS`). */
  readonly at?: ErrorRoute;
}

/**
 * Answers a refusal: the contract's error body with `code` and `message`, under the status the error catalogue
 * (`shared/src/error-codes.ts`) gives the code, so no route chooses a status of its own.
 */
export function sendError(reply: FastifyReply, code: AnswerErrorCode, message: string, options: SendErrorOptions = {}): FastifyReply {
  return reply.code(errorStatusAt(code, options.at)).send({ ...errorBody(code, message), ...options.fields });
}
