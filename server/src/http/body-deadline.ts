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
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const { raw } = request;
    const hasBody = raw.headers['transfer-encoding'] !== undefined || Number(raw.headers['content-length'] ?? 0) > 0;
    done(null, !hasBody || raw.complete ? payload : withDeadline(payload, timeoutMs));
  });
}

function withDeadline(payload: Readable, timeoutMs: number): Readable {
  const limited = new PassThrough();
  const timer = setTimeout(() => {
    payload.unpipe(limited);
    limited.destroy(
      Object.assign(new Error('The request body did not arrive in time.'), { code: BODY_TIMEOUT_CODE, statusCode: 408 }),
    );
  }, timeoutMs);
  timer.unref();
  const settle = () => clearTimeout(timer);
  limited.once('end', settle);
  limited.once('close', settle);
  payload.once('error', (error) => limited.destroy(error));
  payload.pipe(limited);
  return limited;
}
