import type { FastifyReply, FastifyRequest } from 'fastify';
import { crossSiteMutationRefusal } from '../../security/fetch-metadata.js';
import { sendError } from './error-body.js';

/**
 * The `onRequest` hook of every REST mutation the session cookie authenticates (tRPC procedures get the same rule in
 * `trpc/init.ts`). It runs before the body is read, so another site's page learns nothing from the answer.
 */
export function sameOriginMutation(serviceOrigin: string) {
  return async function sameOriginMutationGuard(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const refusal = crossSiteMutationRefusal(request.headers, serviceOrigin);
    if (refusal === null) return;
    await sendError(reply.header('cache-control', 'no-store'), refusal.errorCode, refusal.message);
  };
}
