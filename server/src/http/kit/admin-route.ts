import type { FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { AppContext } from '../../context.js';
import { sameOriginMutation } from './mutation-guard.js';
import { procedureRoute, type ProcedureCaller } from './procedure-route.js';

export type AdminCaller = ProcedureCaller['admin'];
type Fields = Record<string, unknown>;

/** How an adapter answers: the procedure's result as 200, a refusal as the contract's status and body. */
export type AdminRouteHandle = <T>(call: (api: AdminCaller, request: FastifyRequest) => Promise<T>) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** A body or query as a record of fields; anything else as none, for the procedure's input check to refuse. */
export function fields(value: unknown): Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : {};
}

/**
 * What every administrator REST adapter is built from: the cross-site guard a mutation passes as an `onRequest` hook,
 * before its body is read, and the handle that runs an administrator procedure through the typed caller.
 */
export function adminRoute(ctx: AppContext): { guard: RouteShorthandOptions; handle: AdminRouteHandle } {
  const guard = { onRequest: sameOriginMutation(ctx.config.baseUrl) };
  const handle: AdminRouteHandle = <T>(call: (api: AdminCaller, request: FastifyRequest) => Promise<T>) =>
    procedureRoute(ctx, 'administrator route failed', (api, request) => call(api.admin, request));
  return { guard, handle };
}
