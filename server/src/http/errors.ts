import type { FastifyError, FastifyInstance } from 'fastify';

/** The contract's error body for JSON routes. */
export interface ErrorBody {
  success: false;
  error_code: string;
  message: string;
}

export function errorBody(errorCode: string, message: string): ErrorBody {
  return { success: false, error_code: errorCode, message };
}

/**
 * Installs the last-resort handlers: bad input answers 400 with a clear message, unknown routes 404, and anything
 * unexpected 500 with a generic body. Stack traces and internal messages only ever go to the log.
 */
export function registerErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.validation) {
      return reply.code(400).send(errorBody('INVALID_REQUEST', `Invalid request: ${error.message}`));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Fastify's own client errors (body too large, bad content type, malformed JSON) carry safe messages.
      const code = status === 413 ? 'PAYLOAD_TOO_LARGE' : status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'INVALID_REQUEST';
      return reply.code(status).send(errorBody(code, error.message));
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send(errorBody('INTERNAL_ERROR', 'The service could not complete the request.'));
  });

  app.setNotFoundHandler((request, reply) => {
    if (request.url === '/api' || request.url.startsWith('/api/') || request.url.startsWith('/api?')) {
      return reply.code(404).send(errorBody('NOT_FOUND', 'No such API route.'));
    }
    return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
  });
}
