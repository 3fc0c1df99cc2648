import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { sendError } from './error-body.js';

/** Request headers the LMS scripts send besides the CORS-safelisted ones. */
export const LMS_CORS_REQUEST_HEADERS = ['content-type', 'x-exb-proof-token', 'x-exb-configkeyhash'] as const;

export type LmsCorsMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface LmsCorsOptions {
  /** Route patterns exactly as the routes are registered, e.g. `/api/exb/tools/:courseId/:quizId`. */
  paths: readonly string[];
  methods: readonly LmsCorsMethod[];
  /** Lets the LMS page send and read responses with the service's cookies; only routes that need the session. */
  credentials?: boolean;
  /** Non-safelisted request headers the page may send; defaults to {@link LMS_CORS_REQUEST_HEADERS}. */
  headers?: readonly string[];
}

export interface LmsCorsContext {
  config: { lmsUrl: string };
}

interface Policy {
  credentials: boolean;
  headers: ReadonlySet<string>;
  headerList: string;
}

interface Registry {
  lmsOrigin: string;
  /** Route pattern → method → policy. */
  routes: Map<string, Map<string, Policy>>;
}

// Browsers cap the preflight cache (Chromium at 2 hours); ten minutes keeps a quiz page from preflighting every call
// while a changed policy still reaches open pages soon.
const PREFLIGHT_MAX_AGE_SECONDS = 600;

const registries = new WeakMap<FastifyInstance, Registry>();

/**
 * Lets pages on the configured LMS origin call the given routes from the browser: preflights on those paths answer
 * `204` with exactly that origin, the methods and headers allowed and, only where asked, credentials; responses of
 * the routes (errors included) carry the same origin. Other origins get no CORS grant, so browsers keep the
 * responses from them; the requests themselves are not refused, as the routes are public or check their own auth.
 * Every route module calls this for its own paths, before or after registering them.
 */
export function allowLmsOrigin(app: FastifyInstance, ctx: LmsCorsContext, options: LmsCorsOptions): void {
  const registry = registryFor(app, ctx.config.lmsUrl);
  const headerNames = (options.headers ?? LMS_CORS_REQUEST_HEADERS).map((name) => name.toLowerCase());
  const policy: Policy = {
    credentials: options.credentials === true,
    headers: new Set(headerNames),
    headerList: headerNames.join(', '),
  };
  for (const path of options.paths) {
    let methods = registry.routes.get(path);
    if (methods === undefined) {
      methods = new Map();
      registry.routes.set(path, methods);
      registerPreflight(app, registry, path, methods);
    }
    for (const method of options.methods) {
      if (methods.has(method)) throw new Error(`LMS CORS for ${method} ${path} is already declared`);
      methods.set(method, policy);
      // Fastify answers HEAD with the GET route; the browser reads it the same way.
      if (method === 'GET') methods.set('HEAD', policy);
    }
  }
}

function registryFor(app: FastifyInstance, lmsOrigin: string): Registry {
  const existing = registries.get(app);
  if (existing !== undefined) return existing;
  const registry: Registry = { lmsOrigin, routes: new Map() };
  registries.set(app, registry);
  // At send time, so the grant is on every response of the route, including errors, and survives a handler that
  // sets its own `vary`.
  // A callback hook rather than an async one: every response passes here, most of them on the hot paths.
  app.addHook('onSend', (request, reply, payload, done) => {
    const path = request.routeOptions.url;
    if (path !== undefined && request.method !== 'OPTIONS') {
      const policy = registry.routes.get(path)?.get(request.method);
      if (policy !== undefined) grant(reply, registry, policy, request.headers.origin);
    }
    done(null, payload);
  });
  return registry;
}

function registerPreflight(app: FastifyInstance, registry: Registry, path: string, methods: Map<string, Policy>): void {
  app.options(path, async (request: FastifyRequest, reply: FastifyReply) => {
    appendVary(reply, 'Origin');
    const requestedMethod = request.headers['access-control-request-method'];
    const policy = typeof requestedMethod === 'string' ? methods.get(requestedMethod) : undefined;
    if (
      request.headers.origin !== registry.lmsOrigin ||
      policy === undefined ||
      !requestedHeadersAllowed(request.headers['access-control-request-headers'], policy)
    ) {
      return sendError(
        reply.header('cache-control', 'no-store'),
        ErrorCodes.CORS_NOT_ALLOWED,
        'This origin, method or header may not call this route from a browser.',
      );
    }
    grant(reply, registry, policy, request.headers.origin);
    return reply
      .code(204)
      .headers({
        'access-control-allow-methods': [...methods.keys()].filter((method) => method !== 'HEAD').join(', '),
        'access-control-allow-headers': policy.headerList,
        'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
      })
      .send();
  });
}

function grant(reply: FastifyReply, registry: Registry, policy: Policy, origin: string | undefined): void {
  appendVary(reply, 'Origin');
  if (origin !== registry.lmsOrigin) return;
  reply.header('access-control-allow-origin', registry.lmsOrigin);
  if (policy.credentials) reply.header('access-control-allow-credentials', 'true');
}

function requestedHeadersAllowed(value: string | undefined, policy: Policy): boolean {
  if (value === undefined) return true;
  return value
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean)
    .every((name) => policy.headers.has(name));
}

/** Adds a field to `vary`, keeping what the route already set. */
export function appendVary(reply: FastifyReply, field: string): void {
  const current = reply.getHeader('vary');
  const fields = (Array.isArray(current) ? current.join(',') : current === undefined ? '' : String(current))
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (fields.includes('*') || fields.some((name) => name.toLowerCase() === field.toLowerCase())) return;
  reply.header('vary', [...fields, field].join(', '));
}
