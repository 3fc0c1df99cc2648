import { initTRPC, TRPCError } from '@trpc/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ZodError } from 'zod';
import { policyErrorFromZod } from '@exb/shared/exb-policy.js';
import type { AppContext } from '../context.js';
import type { Principal } from '../domain/principal.js';
import { readSession, type SessionData } from '../security/session.js';

export interface TrpcContext {
  app: AppContext;
  request: FastifyRequest;
  reply: FastifyReply;
  session: SessionData | null;
}

export function createTrpcContext(app: AppContext, request: FastifyRequest, reply: FastifyReply): TrpcContext {
  return { app, request, reply, session: readSession(request) };
}

interface RefusalCause {
  errorCode?: string;
  authUrl?: string;
}

const t = initTRPC.context<TrpcContext>().create({
  // Only the message and codes reach the browser; stacks and causes stay in the log. A policy rule broken inside an
  // input schema keeps its contract code and field path, so the client can show the message at the field.
  errorFormatter: ({ shape, error }) => {
    const policy = error.cause instanceof ZodError ? policyErrorFromZod(error.cause) : null;
    const cause = error.cause as RefusalCause | undefined;
    return {
      message: policy?.message ?? shape.message,
      code: shape.code,
      data: {
        code: shape.data.code,
        httpStatus: shape.data.httpStatus,
        errorCode: policy?.errorCode ?? cause?.errorCode,
        path: policy?.path,
        authUrl: cause?.authUrl,
      },
    };
  },
});

export const router = t.router;
export const publicProcedure = t.procedure;
export const createCallerFactory = t.createCallerFactory;

/** Procedures for a principal of one of the given kinds; the principal is narrowed in the handler's context. */
export function principalProcedure<K extends Principal['kind']>(...kinds: K[]) {
  return t.procedure.use(({ ctx, next }) => {
    const principal = ctx.session?.principal;
    if (!principal || !(kinds as string[]).includes(principal.kind)) {
      throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Open this tool from the LMS to continue.' });
    }
    return next({ ctx: { ...ctx, session: ctx.session!, principal: principal as Extract<Principal, { kind: K }> } });
  });
}
