import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { readSession } from '../../security/session.js';
import type { TrpcContext } from '../../trpc/init.js';

/** The procedures' context for one request; the session comes from the request's cookie, never from its input. */
export function trpcContext(app: AppContext, request: FastifyRequest): TrpcContext {
  return { app, requestHeaders: request.headers, requestId: String(request.id), session: readSession(request), responseHeaders: {} };
}
