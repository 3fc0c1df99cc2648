import { http, type HttpHandler } from 'msw';
import { authenticateApiCall, paramsForHandler, type ApiAuth } from './authorization.js';
import type { LmsRuntime } from './runtime.js';
import { LmsHttpError, jsonResponse } from './errors.js';
import { describeFault, faultResponse } from './faults.js';
import { parseBody, parseNestedParams, type ParamObject } from './params.js';
import { compilePath } from './paths.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteRequest {
  lms: LmsRuntime;
  request: Request;
  url: URL;
  params: Record<string, string>;
  query: ParamObject;
  body: ParamObject;
  bodyText: string;
  /** Who makes an API call: a bearer token's user, or the user of the browser's LMS session. */
  auth: ApiAuth | null;
  cookies: Record<string, string>;
  /** Pages note their logged-in user in the call log. */
  noteUser(userId: number): void;
}

export interface RouteDef {
  method: Method;
  /** Path pattern in the LMS's notation, e.g. `/api/v1/courses/:course_id/quizzes/:id`. */
  pattern: string;
  /** `api` routes need a bearer token with a matching scope; `public` routes do their own checks. */
  access: 'api' | 'public';
  handle(req: RouteRequest): Response | Promise<Response>;
}

export function routeKey(route: Pick<RouteDef, 'method' | 'pattern'>): string {
  return `${route.method} ${route.pattern}`;
}

export function apiRoute(method: Method, pattern: string, handle: RouteDef['handle']): RouteDef {
  return { method, pattern, access: 'api', handle };
}

export function publicRoute(method: Method, pattern: string, handle: RouteDef['handle']): RouteDef {
  return { method, pattern, access: 'public', handle };
}

export function parseCookies(header: string | null): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const index = part.indexOf('=');
    if (index > 0) cookies[part.slice(0, index).trim()] = decodeURIComponent(part.slice(index + 1).trim());
  }
  return cookies;
}

/** A raw connection of the HTTP server, so faults can drop it and timeouts notice the client leaving. */
export interface ServerConnection {
  gone: Promise<void>;
  destroy(): void;
}

/** Header the HTTP server adds to find the raw connection of a request; never recorded or answered. */
export const CONNECTION_HEADER = 'x-mock-lms-connection';

const RATE_LIMIT_HIGH_WATER = 600;
const RATE_LIMIT_OUTFLOW_PER_SECOND = 10;

/** The LMS reports a request cost and the remaining throttle budget on token-authenticated answers. */
class ThrottleMeter {
  private readonly buckets = new Map<number, { level: number; at: number }>();

  charge(tokenId: number, now: number): { cost: number; remaining: number } {
    const cost = 0.01 + Math.random() * 0.05;
    const previous = this.buckets.get(tokenId) ?? { level: 0, at: now };
    const leaked = Math.max(0, previous.level - ((now - previous.at) / 1000) * RATE_LIMIT_OUTFLOW_PER_SECOND);
    const level = leaked + cost;
    this.buckets.set(tokenId, { level, at: now });
    return { cost, remaining: Math.max(0, RATE_LIMIT_HIGH_WATER - level) };
  }
}

/**
 * JSON the LMS serves to a browser session starts with `while(1);`, so another site's page cannot read it by loading it
 * as a script; token-authenticated answers are plain.
 */
async function guardSessionJson(response: Response): Promise<Response> {
  if (!(response.headers.get('content-type') ?? '').includes('json')) return response;
  const text = await response.text();
  return new Response(`while(1);${text}`, { status: response.status, headers: response.headers });
}

export interface HandlerMode {
  /** In-process handlers answer only requests to the LMS origin; server handlers match on the path alone. */
  matchOrigin: boolean;
  connections?: Map<string, ServerConnection>;
}

/** Turns the route table into msw handlers running the LMS's request pipeline. */
export function toMswHandlers(lms: LmsRuntime, routes: readonly RouteDef[], mode: HandlerMode): HttpHandler[] {
  const meter = new ThrottleMeter();
  return routes.map((route) => {
    const compiled = compilePath(route.pattern);
    const predicate = ({ request }: { request: Request }) => {
      const url = new URL(request.url);
      if (mode.matchOrigin && url.origin !== new URL(lms.baseUrl).origin) return false;
      const params = compiled.match(url.pathname);
      return params ? { matches: true, params } : false;
    };
    const resolver = async ({ request, params }: { request: Request; params: Record<string, unknown> }) => {
      const connectionId = request.headers.get(CONNECTION_HEADER);
      const connection = connectionId ? mode.connections?.get(connectionId) : undefined;
      return runPipeline(lms, route, request, stringParams(params), connection, meter);
    };
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    return http[method](predicate, resolver);
  });
}

function stringParams(params: Record<string, unknown>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) if (typeof value === 'string') result[key] = value;
  return result;
}

function recordedHeaders(request: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    if (name !== CONNECTION_HEADER) headers[name] = value;
  });
  return headers;
}

async function runPipeline(
  lms: LmsRuntime,
  route: RouteDef,
  request: Request,
  params: Record<string, string>,
  connection: ServerConnection | undefined,
  meter: ThrottleMeter,
): Promise<Response> {
  const url = new URL(request.url);
  const bodyText = request.method === 'GET' || request.method === 'HEAD' ? '' : await request.text();
  const query = parseNestedParams(url.searchParams);
  const body = parseBody(request.headers.get('content-type'), bodyText);
  const key = routeKey(route);
  const call = lms.calls.add({
    at: lms.clock.date().toISOString(),
    route: key,
    method: request.method,
    url: request.url,
    path: url.pathname,
    params,
    query,
    headers: recordedHeaders(request),
    bodyText,
    body,
    userId: null,
    tokenId: null,
    status: null,
    fault: null,
  });

  const fault = lms.faults.take(key);
  const faultEnvironment = () => ({
    hangs: lms.hangs,
    request,
    ...(connection ? { clientGone: connection.gone } : {}),
    unauthorizedStatus: lms.settings.unauthorizedStatus,
    nextErrorReportId: () => lms.nextErrorReportId(),
  });

  let response: Response;
  let auth: ApiAuth | null = null;
  if (fault && !fault.applyFirst) {
    call.fault = describeFault(fault);
    response = await faultResponse(fault, faultEnvironment());
  } else {
    try {
      const cookies = parseCookies(request.headers.get('cookie'));
      if (route.access === 'api') {
        auth = authenticateApiCall(lms, request, url, { cookies, body });
        call.userId = auth.user.id;
        call.tokenId = auth.token?.id ?? null;
      }
      response = await route.handle({
        lms,
        request,
        url,
        params,
        query: paramsForHandler(lms, auth, query),
        body: paramsForHandler(lms, auth, body),
        bodyText,
        auth,
        cookies,
        noteUser(userId) {
          call.userId = userId;
        },
      });
    } catch (error) {
      if (error instanceof LmsHttpError) {
        response = error.toResponse();
      } else {
        // A bug in the mock itself: answer like the LMS's own 500 but make it visible to whoever runs the tests.
        console.error(`mock LMS: ${key} failed`, error);
        response = jsonResponse({ errors: [{ message: 'An error occurred.' }], error_report_id: lms.nextErrorReportId() }, 500);
      }
    }
    if (fault) {
      call.fault = `${describeFault(fault)} (after applying)`;
      await response.body?.cancel();
      response = await faultResponse(fault, faultEnvironment());
    }
  }

  if (response.type === 'error') {
    call.status = 0;
    if (connection) {
      // Over HTTP the dropped connection is the whole answer; the middleware cannot write a "network error", so this
      // request is never resolved (it holds no timers and is released with its socket).
      connection.destroy();
      return new Promise<Response>(() => {});
    }
    return response;
  }
  if (auth && !auth.token && !fault && request.method === 'GET') response = await guardSessionJson(response);
  if (auth?.token && !fault) {
    const { cost, remaining } = meter.charge(auth.token.id, lms.clock.now());
    response.headers.set('x-request-cost', cost.toFixed(10));
    response.headers.set('x-rate-limit-remaining', remaining.toFixed(10));
  }
  call.status = response.status;
  return response;
}
