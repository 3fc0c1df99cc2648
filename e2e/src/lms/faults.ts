import { apiErrors } from './errors.js';

/**
 * What the next call(s) to a route do instead of being answered normally.
 * - `{ status }`: that status with a typical body for it (JSON error for 4xx/500, an HTML gateway page for 502-504),
 *   or the given `body`/`headers`.
 * - `expired-token`, `revoked-token`, `invalid-token`: the API's 401 answers with `WWW-Authenticate`.
 * - `forbidden`: the API's "user not authorized" 403.
 * - `rate-limit`: throttling, as `429` (current LMS) or `403` text/plain "Rate Limit Exceeded" (the older form).
 * - `timeout`: no answer, until `ms` passes (then the connection drops), the client gives up, or `lms.reset()`.
 * - `oversized`: a valid but huge JSON body (default 1 MiB).
 * - `network-error`: the connection drops without a response.
 * `times` (default 1) is how many calls fail. `applyFirst` lets the LMS carry out the call before failing it, as when
 * a change is saved but the response is lost.
 */
export type FaultSpec = (
  | { kind?: undefined; status: number; body?: unknown; headers?: Record<string, string> }
  | { kind: 'expired-token' | 'revoked-token' | 'invalid-token' | 'forbidden' | 'network-error' }
  | { kind: 'rate-limit'; form?: '429' | '403' }
  | { kind: 'timeout'; ms?: number }
  | { kind: 'oversized'; bytes?: number; status?: number }
) & { times?: number; applyFirst?: boolean };

export interface PendingFault {
  route: string;
  spec: FaultSpec;
  remaining: number;
}

/** Matches any route. */
export const ANY_ROUTE = '*';

export class FaultRegistry {
  private readonly queue: PendingFault[] = [];

  constructor(private readonly knownRoutes: () => ReadonlySet<string>) {}

  /**
   * Makes the next `times` calls of a route (its key, e.g. `PUT /api/v1/courses/:course_id/quizzes/:id`, or `*`)
   * fail as described. Faults queue up in the order given.
   */
  next(route: string, spec: FaultSpec): void {
    if (route !== ANY_ROUTE && !this.knownRoutes().has(route)) {
      throw new Error(`Unknown LMS route "${route}". Known routes:\n  ${[...this.knownRoutes()].join('\n  ')}`);
    }
    const times = spec.times ?? 1;
    if (!Number.isInteger(times) || times < 1) throw new Error('faults.next: times must be a positive integer');
    this.queue.push({ route, spec, remaining: times });
  }

  timeout(route: string, options: { ms?: number; times?: number; applyFirst?: boolean } = {}): void {
    this.next(route, { kind: 'timeout', ...options });
  }

  rateLimit(route: string, options: { form?: '429' | '403'; times?: number } = {}): void {
    this.next(route, { kind: 'rate-limit', ...options });
  }

  expiredToken(route: string, options: { times?: number } = {}): void {
    this.next(route, { kind: 'expired-token', ...options });
  }

  forbidden(route: string, options: { times?: number } = {}): void {
    this.next(route, { kind: 'forbidden', ...options });
  }

  oversized(route: string, options: { bytes?: number; times?: number } = {}): void {
    this.next(route, { kind: 'oversized', ...options });
  }

  /** Consumes one failure for a call of this route, if one is pending. */
  take(route: string): FaultSpec | undefined {
    const index = this.queue.findIndex((fault) => fault.route === route || fault.route === ANY_ROUTE);
    if (index < 0) return undefined;
    const fault = this.queue[index]!;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.queue.splice(index, 1);
    return fault.spec;
  }

  pending(): PendingFault[] {
    return this.queue.map((fault) => ({ ...fault }));
  }

  clear(route?: string): void {
    for (let index = this.queue.length - 1; index >= 0; index -= 1) {
      if (route === undefined || this.queue[index]!.route === route) this.queue.splice(index, 1);
    }
  }
}

/** A short label for the call log. */
export function describeFault(spec: FaultSpec): string {
  if (spec.kind === undefined) return `status ${spec.status}`;
  if (spec.kind === 'rate-limit') return `rate-limit ${spec.form ?? '429'}`;
  return spec.kind;
}

/** Pending "no answer" waits, released together on reset or server shutdown. */
export class Hangs {
  private readonly releasers = new Set<() => void>();

  wait(ms: number | undefined, ...cancellers: Array<Promise<unknown> | undefined>): Promise<void> {
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const release = () => {
        if (timer) clearTimeout(timer);
        this.releasers.delete(release);
        resolve();
      };
      this.releasers.add(release);
      if (ms !== undefined) {
        timer = setTimeout(release, ms);
        timer.unref();
      }
      for (const canceller of cancellers) void canceller?.then(release, release);
    });
  }

  releaseAll(): void {
    for (const release of [...this.releasers]) release();
  }
}

function abortPromise(signal: AbortSignal | undefined): Promise<void> | undefined {
  if (!signal) return undefined;
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

const GATEWAY_TEXT: Record<number, string> = {
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export interface FaultEnvironment {
  hangs: Hangs;
  request: Request;
  /** Resolves when the HTTP client disconnects (server mode). */
  clientGone?: Promise<void>;
  unauthorizedStatus: 401 | 403;
  nextErrorReportId: () => number;
}

/** The response a fault produces. `Response.error()` stands for a dropped connection. */
export async function faultResponse(spec: FaultSpec, env: FaultEnvironment): Promise<Response> {
  switch (spec.kind) {
    case undefined: {
      if (spec.body !== undefined) {
        const text = typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body);
        const contentType = typeof spec.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8';
        return new Response(text, { status: spec.status, headers: { 'content-type': contentType, ...spec.headers } });
      }
      const gateway = GATEWAY_TEXT[spec.status];
      if (gateway) {
        return new Response(
          `<html>\r\n<head><title>${spec.status} ${gateway}</title></head>\r\n<body>\r\n<center><h1>${spec.status} ${gateway}</h1></center>\r\n</body>\r\n</html>\r\n`,
          { status: spec.status, headers: { 'content-type': 'text/html', ...spec.headers } },
        );
      }
      let body: unknown;
      if (spec.status === 401) body = { errors: [{ message: 'Invalid access token.' }] };
      else if (spec.status === 403) body = { status: 'unauthorized', errors: [{ message: 'user not authorized to perform that action' }] };
      else if (spec.status === 404) body = { errors: [{ message: 'The specified resource does not exist.' }] };
      else if (spec.status >= 500) body = { errors: [{ message: 'An error occurred.' }], error_report_id: env.nextErrorReportId() };
      else body = { errors: [{ message: `Request failed with status ${spec.status}` }] };
      const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', ...spec.headers };
      if (spec.status === 401) headers['www-authenticate'] ??= 'Bearer realm="canvas-lms"';
      return new Response(JSON.stringify(body), { status: spec.status, headers });
    }
    case 'expired-token':
      return apiErrors.expiredToken(new Date().toISOString()).toResponse();
    case 'revoked-token':
      return apiErrors.revokedToken().toResponse();
    case 'invalid-token':
      return apiErrors.invalidToken().toResponse();
    case 'forbidden':
      return apiErrors.unauthorized(403).toResponse();
    case 'rate-limit': {
      const status = spec.form === '403' ? 403 : 429;
      const text = status === 403 ? '403 Forbidden (Rate Limit Exceeded)\n' : '429 Too Many Requests (Rate Limit Exceeded)\n';
      return new Response(text, {
        status,
        headers: { 'content-type': 'text/plain; charset=utf-8', 'x-rate-limit-remaining': '0.0' },
      });
    }
    case 'timeout':
      await env.hangs.wait(spec.ms, abortPromise(env.request.signal), env.clientGone);
      return Response.error();
    case 'oversized': {
      const bytes = spec.bytes ?? 1024 * 1024;
      // `{"padding":"` and `"}` take 14 bytes.
      const filler = 'x'.repeat(Math.max(0, bytes - 14));
      return new Response(`{"padding":"${filler}"}`, {
        status: spec.status ?? 200,
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
    }
    case 'network-error':
      return Response.error();
  }
}
