import { ErrorCodes, errorStatus, type ErrorCode } from '@exb/shared/error-codes.js';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OutageLog } from '../../db/outage-log.js';
import { isDatabaseUnavailable } from '../../db/unavailable.js';
import { ClientGoneError } from './client-signal.js';
import { errorBody, sendError } from './error-body.js';
import { sendNotFound, type NotFoundPage } from './not-found.js';
import { isApiPath } from './page-request.js';
import { sendServiceUnavailable } from './service-unavailable.js';

const CLIENT_ERROR_CODES: Readonly<Record<number, ErrorCode>> = {
  408: ErrorCodes.REQUEST_TIMEOUT,
  413: ErrorCodes.PAYLOAD_TOO_LARGE,
  415: ErrorCodes.UNSUPPORTED_MEDIA_TYPE,
};

export interface ErrorHandlerOptions {
  /** The LMS origin, which may frame the tool's pages (the outage page among them). */
  readonly lmsOrigin?: string;
  /** Shared with the other places that meet an unreachable database; one of its own by default. */
  readonly databaseOutage?: OutageLog;
  /** The page browsers get for unknown addresses; without it every unknown address gets the JSON 404. */
  readonly notFoundPage?: NotFoundPage;
}

/**
 * Installs the last-resort handlers: bad input answers 400 with a clear message, unknown routes 404, an unreachable
 * database 503 with `Retry-After` (logged once, not per request), and anything unexpected 500 with a generic body.
 * Stack traces and internal messages only ever go to the log.
 */
export function registerErrorHandlers(app: FastifyInstance, options: ErrorHandlerOptions = {}): void {
  const outage = options.databaseOutage ?? new OutageLog(app.log);
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.validation) {
      return sendError(reply, ErrorCodes.INVALID_REQUEST, `Invalid request: ${error.message}`);
    }
    if (error instanceof ClientGoneError) {
      // Nobody reads the answer; its code and the catalogue's status (408) only tell the access log what happened.
      request.log.info('client gone before a one-time token was spent; nothing spent');
      return sendError(reply, ErrorCodes.REQUEST_TIMEOUT, error.message);
    }
    if (isDatabaseUnavailable(error)) {
      outage.refused(error);
      return sendServiceUnavailable(request, reply, options.lmsOrigin);
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Fastify's own client errors (body too large, bad content type, malformed JSON) carry safe messages.
      const code = CLIENT_ERROR_CODES[status] ?? ErrorCodes.INVALID_REQUEST;
      // The rest of a body that timed out may never come: the connection cannot carry another request.
      if (status === 408) reply.header('connection', 'close');
      return reply.code(status).send(errorBody(code, error.message));
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, ErrorCodes.INTERNAL_ERROR, 'The service could not complete the request.');
  });

  app.setNotFoundHandler((request, reply) => sendNotFound(request, reply, options.notFoundPage));
}

/**
 * Longest path parameter the router matches. Longer than any id, token or URL the routes accept, so an over-long value
 * reaches the route and gets the contract's own refusal for a malformed id (a 404 for content ids) instead of the
 * router's 414.
 */
export const MAX_PARAM_LENGTH = 2048;

/**
 * Requests the router itself refuses, answered in the service's own shapes: a parameter beyond {@link MAX_PARAM_LENGTH}
 * names nothing that exists (404, as any unknown address), a path that is not valid percent-encoding is bad input (400).
 */
export function frameworkErrorHandler(notFoundPage?: NotFoundPage) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return sendNotFound(request, reply, notFoundPage);
    const message = 'Invalid request: the path is not a valid URL.';
    if (isApiPath(request.url)) return sendError(reply, ErrorCodes.INVALID_REQUEST, message);
    return reply.code(errorStatus(ErrorCodes.INVALID_REQUEST)).type('text/plain; charset=utf-8').send(message);
  };
}
