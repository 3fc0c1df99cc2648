// The router's types come from the server's sources, so this program type-checks the server modules they reach. Those
// modules rely on what the server's own build adds to its program: the ambient declarations in `server/src/types` and
// the session plugin's augmentation of the request type. All of it is type-only and erased from the bundle.
/// <reference path="../../../server/src/types/async-exit-hook.d.ts" />
import type {} from '@fastify/secure-session';
import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink, httpLink, httpSubscriptionLink, splitLink, TRPCClientError, type HTTPHeaders, type Operation, type TRPCClient, type TRPCLink } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { TRPC_PREFIX } from '@exb/shared/service-paths.js';
import { TRPC_MAX_BATCH_SIZE } from '@exb/shared/trpc-limits.js';
import { isPolicyMessageKey, renderPolicyMessage, type PolicyMessageRef, type PolicyMessageValue } from '@exb/shared/exb-policy.js';
import { i18next } from '../i18n/i18n';
import { errorMessage } from './error-message';
import { sessionFetch, withSessionToken } from './session-token';
// Type only: the bundle never contains server code, only the procedure types the client is checked against.
import type { AppRouter } from '../../../server/src/trpc/router';

export type { AppRouter };
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;

/** Where the server mounts the typed API (`server/src/http/routes/session/trpc.ts`). */
export const TRPC_PATH = TRPC_PREFIX;

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

export interface ApiClientOptions {
  /** Headers of each batch; may wait, for instance for an action token being renewed. */
  headers?: (opts: { opList: readonly Operation[] }) => HTTPHeaders | Promise<HTTPHeaders>;
  /** Links that run before the HTTP link, such as a retry. */
  before?: TRPCLink<AppRouter>[];
}

export function createApiClient(options: ApiClientOptions = {}): TRPCClient<AppRouter> {
  const { headers } = options;
  // The session cookie is this origin's, and the Fetch Metadata check of mutations expects a same-origin request; the
  // session token goes along for browsers that keep no cookie in the LMS's frame.
  const sameOrigin = (input: RequestInfo | URL, init?: RequestInit) => sessionFetch(input, init);
  return createTRPCClient<AppRouter>({
    links: [
      ...(options.before ?? []),
      // Subscriptions (the exam-day board's live signal) as server-sent events.
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: httpSubscriptionLink({ url: TRPC_PATH, EventSource: typeof EventSource === 'undefined' ? undefined : sessionEventSourceClass() }),
        // The server takes at most TRPC_MAX_BATCH_SIZE calls a request, and each mutation in a request of its own.
        false: splitLink({
          condition: (op) => op.type === 'mutation',
          true: httpLink({
            ...(headers ? { headers: ({ op }) => headers({ opList: [op] }) } : {}),
            url: TRPC_PATH,
            fetch: sameOrigin,
          }),
          false: httpBatchLink({
            ...(headers ? { headers } : {}),
            url: TRPC_PATH,
            // Batched queries travel in the query string; stay well below what proxies in front of the service accept.
            maxURLLength: 2000,
            maxItems: TRPC_MAX_BATCH_SIZE,
            fetch: sameOrigin,
          }),
        }),
      }),
    ],
  });
}

/**
 * An `EventSource` sends no headers, so a stream carries the page's session token in its address (the server takes it
 * there for the board's streams alone); each new stream takes the token held at that moment. Made on first use: a
 * program without `EventSource` (Node, where the views' modules are also tested) never opens a stream.
 */
let sessionEventSource: typeof EventSource | undefined;

function sessionEventSourceClass(): typeof EventSource {
  sessionEventSource ??= class extends EventSource {
    constructor(url: string | URL, init?: EventSourceInit) {
      super(withSessionToken(String(url)), init);
    }
  };
  return sessionEventSource;
}

/** A refusal as the server explains it, in the form the views show it. */
export interface ServerError {
  /** In the page's language: see {@link readServerError}. */
  readonly message: string;
  /** The contract's `error_code` (`INVALID_EXB_URL_POLICY`, `LMS_AUTHORIZATION_REQUIRED`, ...). */
  readonly errorCode: string | undefined;
  /** Where in the submitted input the problem is, e.g. `['urlRules', 1, 'value']`. */
  readonly path: readonly (string | number)[] | undefined;
  readonly httpStatus: number | undefined;
  /** Set when the LMS must be authorized (again): the same-origin start of that authorization. */
  readonly authUrl: string | undefined;
  /** Further fields the refusal carries (a course reset's `outcome` and the `assessments` to check). */
  readonly details?: Readonly<Record<string, unknown>> | undefined;
}

type PolicyIssue = { message: string; path: (string | number)[]; errorCode: string | undefined; policy: PolicyMessageRef | undefined };

function isPathSegment(value: unknown): value is string | number {
  return typeof value === 'string' || typeof value === 'number';
}

/**
 * Input validation failures reach the client with the validator's issue list as the message (tRPC's default for a
 * failed input parser). The first issue carries the path and, for policy fields, the contract code.
 */
function issueFromMessage(message: string): PolicyIssue | null {
  if (!message.startsWith('[')) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return null;
  const first = parsed[0] as { message?: unknown; path?: unknown; params?: { errorCode?: unknown; messageKey?: unknown; values?: unknown } };
  if (typeof first.message !== 'string') return null;
  const path = Array.isArray(first.path) ? first.path.filter(isPathSegment) : [];
  const errorCode = typeof first.params?.errorCode === 'string' ? first.params.errorCode : undefined;
  return { message: first.message, path, errorCode, policy: readPolicyMessage(first.params) };
}

/** A policy message's key and values as the server sent them, if they are well formed (nested at most a few deep). */
function readPolicyMessage(data: { messageKey?: unknown; values?: unknown } | undefined, depth = 0): PolicyMessageRef | undefined {
  if (data === undefined || !isPolicyMessageKey(data.messageKey) || depth > 3) return undefined;
  if (data.values === undefined) return { messageKey: data.messageKey };
  if (typeof data.values !== 'object' || data.values === null) return undefined;
  const values: Record<string, PolicyMessageValue> = {};
  for (const [name, value] of Object.entries(data.values)) {
    if (typeof value === 'string' || typeof value === 'number') values[name] = value;
    else {
      const nested = typeof value === 'object' && value !== null ? readPolicyMessage(value as Record<string, unknown>, depth + 1) : undefined;
      if (nested === undefined) return undefined;
      values[name] = nested;
    }
  }
  return { messageKey: data.messageKey, values };
}

/** A message of the policy rules in the page's language (`policy` namespace). */
export function translatePolicyMessage(ref: PolicyMessageRef): string {
  return renderPolicyMessage(ref, (key, values) => i18next.t(`policy:${key}`, values));
}

/** The catalogue's message for a contract error code (`errors` namespace), when it has one. */
export function errorCodeMessage(errorCode: string | undefined): string | undefined {
  return errorCode !== undefined && i18next.exists(`errors:${errorCode}`) ? errorMessage(errorCode) : undefined;
}

function readPath(value: unknown): (string | number)[] | undefined {
  return Array.isArray(value) && value.every(isPathSegment) ? value : undefined;
}

const unreachable = () => i18next.t('teacher:apiClient.unreachable');

/**
 * A failed call as the views show it. The message is in the page's language: a policy rule's message by its key, else
 * the catalogue's message for the error code when it has one, else the server's own (English) message.
 */
export function readServerError(error: unknown): ServerError {
  if (!(error instanceof TRPCClientError)) {
    return {
      message: error instanceof Error && error.message ? error.message : unreachable(),
      errorCode: undefined,
      path: undefined,
      httpStatus: undefined,
      authUrl: undefined,
      details: undefined,
    };
  }
  const data = (error.data ?? {}) as {
    errorCode?: unknown;
    authUrl?: unknown;
    httpStatus?: unknown;
    path?: unknown;
    details?: unknown;
    messageKey?: unknown;
    values?: unknown;
  };
  const issue = issueFromMessage(error.message);
  // Same origin only: `//host` and `/\host` are read by browsers as another origin.
  const authUrl = typeof data.authUrl === 'string' && /^\/(?![/\\])/.test(data.authUrl) ? data.authUrl : undefined;
  const errorCode = typeof data.errorCode === 'string' ? data.errorCode : (issue?.errorCode ?? undefined);
  const policy = readPolicyMessage(data) ?? issue?.policy;
  return {
    message:
      (policy !== undefined ? translatePolicyMessage(policy) : undefined) ??
      errorCodeMessage(errorCode) ??
      issue?.message ??
      // Without an answer of the server (a dropped connection), the message is the browser's own, in its words.
      ((typeof data.httpStatus === 'number' ? error.message : '') || unreachable()),
    errorCode,
    path: readPath(data.path) ?? (issue && issue.path.length > 0 ? issue.path : undefined),
    httpStatus: typeof data.httpStatus === 'number' ? data.httpStatus : undefined,
    authUrl,
    details: typeof data.details === 'object' && data.details !== null ? (data.details as Record<string, unknown>) : undefined,
  };
}

/** Client mistakes and refusals do not get better by asking again; outages and dropped connections might. */
function worthRetrying(failureCount: number, error: unknown): boolean {
  if (failureCount >= 2) return false;
  const status = error instanceof TRPCClientError ? (error.data as { httpStatus?: unknown } | undefined)?.httpStatus : undefined;
  return typeof status !== 'number' || status >= 500;
}

/**
 * The query cache of one view. `onError` sees every failed query and mutation, so a view can react to an expired LMS
 * authorization in one place.
 */
export function createQueryClient(options: { onError?: (error: unknown) => void } = {}): QueryClient {
  const onError = (error: unknown) => options.onError?.(error);
  return new QueryClient({
    queryCache: new QueryCache({ onError }),
    mutationCache: new MutationCache({ onError }),
    defaultOptions: {
      queries: {
        retry: worthRetrying,
        // Focus moves between the LMS page and the tool's frame all the time; that is no reason to reload.
        refetchOnWindowFocus: false,
        staleTime: 30_000,
      },
      mutations: { retry: false },
    },
  });
}
