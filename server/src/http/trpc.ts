import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { createTrpcContext } from '../trpc/init.js';
import { appRouter, type AppRouter } from '../trpc/router.js';

/** Mounts the typed management API at `/trpc` for the React client. */
export async function registerTrpcRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(fastifyTRPCPlugin, {
    prefix: '/trpc',
    trpcOptions: {
      router: appRouter,
      createContext: ({ req, res }) => createTrpcContext(ctx, req, res),
      onError: ({ error, path }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR') ctx.logger.error({ err: error, path }, 'trpc procedure failed');
      },
    } satisfies FastifyTRPCPluginOptions<AppRouter>['trpcOptions'],
  });
}
