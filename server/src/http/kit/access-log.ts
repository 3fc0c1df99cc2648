import { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * The access log. Fastify's own request logging (an `incoming request` and a `request completed` line per request,
 * each through the wildcard redaction, written synchronously) cost the hot public paths more than their own work, so
 * it is off and this hook writes instead:
 *
 * - every refusal and error (status 400 and above), one `request completed` line each, at `info` (`warn` for 5xx), with
 *   the request (address, method, redacted URL), the status and the response time: operations see every failure;
 * - successful answers of the hot paths (requirement check, detector and theme-loader scripts, proof, redemption,
 *   configuration download, and the LTI login, launch and config grant of every student's start) only as counts:
 *   one `hot paths in the last minute` line a minute, per route the number of answers and their p50, p99 and maximum
 *   latency; at `debug` each of them also gets its own line;
 * - every other request, one `request completed` line at `info`, as before minus the `incoming request` line.
 */

/**
 * Fastify's request log lines without the two per request: no `incoming request`, and `request completed` only from
 * {@link registerAccessLog}. A response that errored while being sent is still logged by Fastify, as is every other
 * line it writes (errors of the default handler, refused headers, missing routes).
 */
export class AccessLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    if (error) super.requestCompleted(error, request, reply, metadata);
  }
}

/** Route patterns (as registered) whose successful answers are counted rather than logged one by one. */
export type HotPaths = ReadonlySet<string>;

export const ACCESS_LOG_INTERVAL_MS = 60_000;

// Latency buckets in milliseconds, upper bounds; enough resolution for p50 and p99 of a minute's answers.
const BUCKETS_MS = [0.25, 0.5, 1, 2, 3, 5, 7.5, 10, 15, 20, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1_000, 2_000, 5_000, 10_000, Infinity];

class RouteCounter {
  count = 0;
  maxMs = 0;
  readonly buckets = new Uint32Array(BUCKETS_MS.length);

  add(ms: number): void {
    this.count += 1;
    if (ms > this.maxMs) this.maxMs = ms;
    let index = 0;
    while (ms > BUCKETS_MS[index]!) index += 1;
    this.buckets[index]! += 1;
  }

  /** The bucket bound below which `q` of the answers fall (the maximum for the last bucket). */
  quantile(q: number): number {
    const rank = Math.ceil(q * this.count);
    let seen = 0;
    for (let index = 0; index < this.buckets.length; index += 1) {
      seen += this.buckets[index]!;
      if (seen >= rank) return Math.min(BUCKETS_MS[index]!, this.maxMs);
    }
    return this.maxMs;
  }
}

export class HotPathCounts {
  private counters = new Map<string, RouteCounter>();

  record(route: string, ms: number): void {
    let counter = this.counters.get(route);
    if (counter === undefined) {
      counter = new RouteCounter();
      this.counters.set(route, counter);
    }
    counter.add(ms);
  }

  /** Writes one line with the counts since the last flush (nothing when there were none) and starts over. */
  flush(logger: FastifyBaseLogger): void {
    if (this.counters.size === 0) return;
    const routes: Record<string, { count: number; p50Ms: number; p99Ms: number; maxMs: number }> = {};
    for (const [route, counter] of this.counters) {
      routes[route] = {
        count: counter.count,
        p50Ms: round(counter.quantile(0.5)),
        p99Ms: round(counter.quantile(0.99)),
        maxMs: round(counter.maxMs),
      };
    }
    this.counters = new Map();
    logger.info({ routes }, 'hot paths in the last minute');
  }
}

function debugEnabled(logger: FastifyBaseLogger): boolean {
  const level = (logger as FastifyBaseLogger & { levelVal?: number }).levelVal;
  return level !== undefined && level <= 20;
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

export function registerAccessLog(app: FastifyInstance, hotPaths: HotPaths, intervalMs = ACCESS_LOG_INTERVAL_MS): HotPathCounts {
  const counts = new HotPathCounts();
  const timer = setInterval(() => counts.flush(app.log), intervalMs);
  timer.unref();
  app.addHook('onClose', async () => {
    clearInterval(timer);
    counts.flush(app.log);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    const route = request.routeOptions.url;
    if (status < 400 && route !== undefined && hotPaths.has(route)) {
      counts.record(`${request.method} ${route}`, reply.elapsedTime);
      if (debugEnabled(request.log)) {
        request.log.debug({ req: request, res: { statusCode: status }, responseTime: reply.elapsedTime }, 'request completed');
      }
    } else {
      const line = { req: request, res: { statusCode: status }, responseTime: reply.elapsedTime };
      if (status >= 500) request.log.warn(line, 'request completed');
      else request.log.info(line, 'request completed');
    }
    done();
  });
  return counts;
}
