import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import { TRPC_PREFIX } from '@exb/shared/service-paths.js';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { TRPC_MAX_BATCH_SIZE } from '@exb/shared/trpc-limits.js';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { sendError } from '../../kit/error-body.js';
import { trpcContext } from '../../kit/trpc-context.js';
import { appRouter, type AppRouter } from '../../../trpc/router.js';

/** What tRPC's HTTP link sends: queries as `GET`, mutations as `POST`. */
const TRPC_METHODS = new Set(['GET', 'HEAD', 'POST']);

/** Mounts the typed management API at `/trpc` for the React client. */
export async function registerTrpcRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(async (trpc) => {
    // The adapter's route takes every method and hands it to a fetch `Request`, which throws on `TRACE` and others.
    trpc.addHook('onRequest', async (request, reply) => {
      if (!TRPC_METHODS.has(request.method)) {
        return sendError(reply.header('allow', 'GET, POST'), ErrorCodes.METHOD_NOT_ALLOWED, 'Use GET or POST.');
      }
      // Each mutation is a change of its own (its guard, its audit entry, its LMS calls): never several in one request.
      if (request.method === 'POST' && (request.params as { path?: string }).path?.includes(',')) {
        return sendError(reply, ErrorCodes.INVALID_REQUEST, 'Send each mutation in a request of its own.');
      }
    });
    await registerTrpcPlugin(trpc, ctx);
  });
}

async function registerTrpcPlugin(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(fastifyTRPCPlugin, {
    prefix: TRPC_PREFIX,
    trpcOptions: {
      router: appRouter,
      maxBatchSize: TRPC_MAX_BATCH_SIZE,
      createContext: ({ req }) => trpcContext(ctx, req),
      // The headers the called procedures asked for; a batch answers with all of them.
      responseMeta: ({ ctx: called }) => ({ headers: called?.responseHeaders ?? {} }),
      // The request's own logger, so the line carries the request id the answer's generic message stands for.
      onError: ({ error, path, req }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR') req.log.error({ err: error, path }, 'trpc procedure failed');
      },
    } satisfies FastifyTRPCPluginOptions<AppRouter>['trpcOptions'],
  });
}
