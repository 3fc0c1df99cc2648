import { ErrorCodes, type ErrorCode } from '@exb/shared/error-codes.js';
import type { IncomingHttpHeaders } from 'node:http';
import { initTRPC } from '@trpc/server';
import { ZodError } from 'zod';
import { policyErrorFromZod } from '@exb/shared/exb-policy.js';
import type { AppContext } from '../context.js';
import { DomainError } from '../domain-error.js';
import type { Principal } from '../identity/principal.js';
import { crossSiteMutationRefusal } from '../security/fetch-metadata.js';
import type { SessionData } from '../security/session.js';
import { policyMessageData, toTrpcError } from './error-mapping.js';

/**
 * What a procedure runs with. Nothing of the HTTP framework: the HTTP edges (`http/routes/session/trpc.ts` for the typed
 * client, the REST adapters) build it from their request and send the headers a procedure asks for with its answer.
 */
export interface TrpcContext {
  app: AppContext;
  /** The request's headers, which the cross-site guard of mutations reads. */
  requestHeaders: IncomingHttpHeaders;
  /** The request's id, as its log lines carry it (audit entries name it). */
  requestId: string;
  session: SessionData | null;
  /** Headers for the answer, as data (e.g. a reveal must not be cached); the edge applies them, also to a refusal. */
  responseHeaders: Record<string, string>;
}

interface RefusalCause {
  errorCode?: ErrorCode;
  authUrl?: string;
  /** Set on policy refusals (`PolicyRefusal`): the field of the input the message belongs to. */
  path?: (string | number)[];
}

/** What the browser reads when a procedure failed unexpectedly; the detail is logged with the request id. */
export const INTERNAL_ERROR_MESSAGE = 'The service could not complete the request. Try again in a moment.';

/**
 * Server-sent events of subscriptions (the exam-day board's live signal): a ping well inside the connection's idle
 * timeout (`DEFAULT_SERVER_TIMEOUTS.idleMs`) and the client's inactivity limit, and a stream that ends after a while so
 * the page reconnects with its current session token and the authorization is checked again.
 */
export const SSE_OPTIONS = {
  ping: { enabled: true, intervalMs: 15_000 },
  client: { reconnectAfterInactivityMs: 40_000 },
  maxDurationMs: 15 * 60_000,
} as const;

const t = initTRPC.context<TrpcContext>().create({
  sse: SSE_OPTIONS,
  // Only the message and codes reach the browser; stacks and causes stay in the log. A policy rule broken inside an
  // input schema, or checked by a domain service, keeps its contract code and field path, so the client can show the
  // message at the field, and its message key and values, so the page can say it in its own language. An unexpected
  // error (anything but a domain refusal) may carry internals in its message (SQL, hosts, paths), so it reaches the
  // browser as a generic sentence.
  errorFormatter: ({ shape, error }) => {
    const policy = error.cause instanceof ZodError ? policyErrorFromZod(error.cause) : null;
    const cause = error.cause as RefusalCause | undefined;
    const unexpected = error.code === 'INTERNAL_SERVER_ERROR' && !(error.cause instanceof DomainError);
    return {
      message: unexpected ? INTERNAL_ERROR_MESSAGE : (policy?.message ?? shape.message),
      code: shape.code,
      data: {
        code: shape.data.code,
        httpStatus: shape.data.httpStatus,
        errorCode: policy?.errorCode ?? cause?.errorCode,
        path: policy?.path ?? cause?.path,
        ...policyMessageData(error.cause),
        authUrl: cause?.authUrl,
        // Only a domain refusal's own fields; other causes (driver errors) may carry internals.
        details: error.cause instanceof DomainError ? error.cause.details : undefined,
      },
    };
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * Every procedure starts here. Mutations first pass the cross-site guard of cookie-authenticated mutations, before
 * any other check, so another site's page learns nothing about the session; the REST adapters call the procedures
 * with their own request, so the same rule covers them.
 */
export const publicProcedure = t.procedure.use(({ type, ctx, next }) => {
  if (type === 'mutation') {
    const refusal = crossSiteMutationRefusal(ctx.requestHeaders, ctx.app.config.baseUrl);
    if (refusal !== null) throw toTrpcError(new DomainError(refusal.errorCode, refusal.message));
  }
  return next();
});

/** What a request without a session is told: sessions begin with a launch from the LMS. */
const NO_SESSION_MESSAGE = 'Open this tool from the LMS to continue.';

/** The refusal of a session of another kind, for the procedures that serve one kind alone. */
const ONE_KIND_REFUSALS: Partial<Record<Principal['kind'], () => DomainError>> = {
  instructor: () => new DomainError(ErrorCodes.INSTRUCTOR_REQUIRED, 'Only instructors of this course can manage exam settings.'),
  admin: () => new DomainError(ErrorCodes.ADMIN_REQUIRED, 'Only administrators of the root account can use the exam browser administration.'),
};

/**
 * Procedures for a principal of one of the given kinds; the principal is narrowed in the handler's context. Every
 * guard of a principal is built here, so each refusal is worded once: no session, or a session of another kind.
 */
export function principalProcedure<K extends Principal['kind']>(...kinds: K[]) {
  const otherKind = kinds.length === 1 ? ONE_KIND_REFUSALS[kinds[0]!] : undefined;
  return publicProcedure.use(({ ctx, next }) => {
    const principal = ctx.session?.principal;
    if (!principal) throw toTrpcError(new DomainError(ErrorCodes.UNAUTHORIZED, NO_SESSION_MESSAGE));
    if (!(kinds as string[]).includes(principal.kind)) {
      throw toTrpcError(otherKind?.() ?? new DomainError(ErrorCodes.UNAUTHORIZED, NO_SESSION_MESSAGE));
    }
    return next({ ctx: { ...ctx, session: ctx.session!, principal: principal as Extract<Principal, { kind: K }> } });
  });
}
