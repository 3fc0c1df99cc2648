import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import type { AppContext } from '../../context.js';
import { restErrorOf } from '../../trpc/error-mapping.js';
import { createCallerFactory } from '../../trpc/init.js';
import { appRouter } from '../../trpc/router.js';
import { sendError } from './error-body.js';
import { trpcContext } from './trpc-context.js';

const createCaller = createCallerFactory(appRouter);

/** The procedures as a server-side caller on one request. */
export type ProcedureCaller = ReturnType<typeof createCaller>;

/**
 * A REST route of Document 2 as a thin adapter over a procedure: the call runs through a server-side caller built on
 * the request, so the session, the cross-site rule and every guard run exactly as for the typed client. The answer is
 * the procedure's result, or the refusal mapped once (`trpc/error-mapping.ts`), with the headers the procedure asked
 * for; anything else is logged and answered 500 without details.
 */
export function procedureRoute<T>(
  ctx: AppContext,
  failure: string,
  call: (api: ProcedureCaller, request: FastifyRequest) => Promise<T>,
  respond: (reply: FastifyReply, result: T) => FastifyReply = (reply, result) => reply.code(200).send(result),
) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    // Answers are per user and may name settings or passwords; no shared cache may keep them.
    reply.header('cache-control', 'no-store');
    const procedureContext = trpcContext(ctx, request);
    let result: T;
    try {
      result = await call(createCaller(procedureContext), request);
    } catch (error) {
      reply.headers(procedureContext.responseHeaders);
      const refusal = restErrorOf(error);
      if (refusal !== null) return reply.code(refusal.status).send(refusal.body);
      request.log.error({ err: error }, failure);
      return sendError(reply, ErrorCodes.INTERNAL_ERROR, 'The service could not complete the request.');
    }
    reply.headers(procedureContext.responseHeaders);
    return respond(reply, result);
  };
}
