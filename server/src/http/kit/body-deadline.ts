import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';

/** The code of the error a body that missed its deadline ends with; the error handler answers it `408`. */
export const BODY_TIMEOUT_CODE = 'EXB_REQUEST_BODY_TIMEOUT';

/**
 * Node's `requestTimeout` only guards a request until its headers are in; the body then streams to the route with no
 * limit but the connection's idle timeout, which a client sending a byte now and then never reaches. This gives every
 * body the same budget: one that has not fully arrived `timeoutMs` after its headers ends with an error the error
 * handler answers `408`, and the connection is closed.
 */
export function limitBodyTime(app: FastifyInstance, timeoutMs: number): void {
  // A callback hook: it runs on every request, most of which have no body.
  app.addHook('preParsing', (request, reply, payload, done) => {
    const { raw } = request;
    const hasBody = raw.headers['transfer-encoding'] !== undefined || Number(raw.headers['content-length'] ?? 0) > 0;
    done(null, !hasBody || raw.complete ? payload : withDeadline(payload, raw, reply.raw, timeoutMs));
  });
}

function bodyTimeoutError(): Error {
  return Object.assign(new Error('The request body did not arrive in time.'), { code: BODY_TIMEOUT_CODE, statusCode: 408 });
}

const ignore = () => undefined;

/**
 * The body as a stream that fails at the deadline. Many bodies have no reader at all: a body on `GET` or `HEAD`, one
 * whose content type has no parser (415), one over the route's limit (413, whose parser stops reading). So the stream's
 * error is never left unhandled, and the answer, not the body, ends the deadline's business: once it is sent, an unread
 * rest is drained, and a rest that still has not arrived by the deadline closes the connection.
 */
function withDeadline(payload: Readable, request: IncomingMessage, response: ServerResponse, timeoutMs: number): Readable {
  const limited = new PassThrough();
  limited.on('error', ignore);
  const detach = (error?: Error) => {
    payload.unpipe(limited);
    limited.destroy(error);
  };
  const timer = setTimeout(() => {
    if (response.writableEnded) request.destroy();
    else detach(bodyTimeoutError());
  }, timeoutMs);
  timer.unref();
  const settle = () => clearTimeout(timer);
  limited.once('end', settle);
  request.once('end', settle);
  request.once('close', settle);
  response.once('close', () => {
    if (!limited.readableEnded) detach();
    if (request.complete) settle();
    // Unpiped, the request is paused; resumed, Node discards the rest and the connection can carry the next request.
    payload.resume();
  });
  payload.once('error', (error) => detach(error));
  payload.pipe(limited);
  return limited;
}
