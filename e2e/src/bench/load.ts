import http from 'node:http';
import { performance } from 'node:perf_hooks';

/**
 * A small closed-loop load generator for the benchmarks: a fixed number of keep-alive connections, each sending its
 * next request when the previous answer is fully read, until a request count or a time limit is reached. It only
 * talks to loopback addresses, so a benchmark can never be pointed at someone else's server.
 */
export interface LoadOptions {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Concurrent connections (1 to 256; default 16). */
  connections?: number;
  /** Time limit in milliseconds (at most 120 s; default 3 s). */
  durationMs?: number;
  /** Request limit (at most 5,000,000; default 1,000,000). */
  maxRequests?: number;
  /** The status every answer must have; others count as failures. Default 200. */
  expectStatus?: number;
}

export interface LoadResult {
  requests: number;
  failures: number;
  durationMs: number;
  requestsPerSecond: number;
  /** Response body bytes of the last answer. */
  bodyBytes: number;
  latencyMs: LatencySummary;
  /** Every latency in milliseconds, sorted, for merging rounds. */
  samples: Float64Array;
}

export interface LatencySummary {
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export const LOAD_LIMITS = { connections: 256, durationMs: 120_000, maxRequests: 5_000_000 } as const;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Throws unless the URL is plain HTTP on a loopback address. */
export function assertLoopback(url: URL): void {
  if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname)) {
    throw new Error(`benchmarks only load loopback http:// servers, not ${url.origin}`);
  }
}

function bounded(value: number | undefined, fallback: number, max: number): number {
  const chosen = value ?? fallback;
  if (!Number.isInteger(chosen) || chosen < 1) throw new RangeError(`expected a positive integer, got ${chosen}`);
  return Math.min(chosen, max);
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.url);
  assertLoopback(url);
  const connections = bounded(options.connections, 16, LOAD_LIMITS.connections);
  const durationMs = bounded(options.durationMs, 3_000, LOAD_LIMITS.durationMs);
  const maxRequests = bounded(options.maxRequests, 1_000_000, LOAD_LIMITS.maxRequests);
  const expectStatus = options.expectStatus ?? 200;
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
  const latencies = new Float64Array(maxRequests);
  const requestOptions: http.RequestOptions = {
    agent,
    method: options.method ?? 'GET',
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port,
    path: `${url.pathname}${url.search}`,
    headers: {
      ...options.headers,
      ...(options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) }),
    },
  };

  let issued = 0;
  let completed = 0;
  let failures = 0;
  let bodyBytes = 0;
  const started = performance.now();
  const deadline = started + durationMs;

  const once = () =>
    new Promise<void>((resolve) => {
      const sent = performance.now();
      const request = http.request(requestOptions, (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        response.on('end', () => {
          if (response.statusCode === expectStatus) {
            latencies[completed] = performance.now() - sent;
            completed += 1;
            bodyBytes = bytes;
          } else {
            failures += 1;
          }
          resolve();
        });
        response.on('error', () => {
          failures += 1;
          resolve();
        });
      });
      request.on('error', () => {
        failures += 1;
        resolve();
      });
      request.end(options.body);
    });

  const worker = async () => {
    while (issued < maxRequests && performance.now() < deadline) {
      issued += 1;
      await once();
    }
  };

  try {
    await Promise.all(Array.from({ length: connections }, worker));
  } finally {
    agent.destroy();
  }
  const elapsed = performance.now() - started;
  const samples = latencies.slice(0, completed).sort();
  return {
    requests: completed,
    failures,
    durationMs: elapsed,
    requestsPerSecond: (completed / elapsed) * 1000,
    bodyBytes,
    latencyMs: summarize(samples),
    samples,
  };
}

/** Several rounds against the same target as one result. */
export function mergeResults(results: readonly LoadResult[]): LoadResult {
  const total = results.reduce((sum, result) => sum + result.samples.length, 0);
  const samples = new Float64Array(total);
  let offset = 0;
  for (const result of results) {
    samples.set(result.samples, offset);
    offset += result.samples.length;
  }
  samples.sort();
  const durationMs = results.reduce((sum, result) => sum + result.durationMs, 0);
  const requests = results.reduce((sum, result) => sum + result.requests, 0);
  return {
    requests,
    failures: results.reduce((sum, result) => sum + result.failures, 0),
    durationMs,
    requestsPerSecond: durationMs === 0 ? 0 : (requests / durationMs) * 1000,
    bodyBytes: results.at(-1)?.bodyBytes ?? 0,
    latencyMs: summarize(samples),
    samples,
  };
}

function summarize(sorted: Float64Array): LatencySummary {
  if (sorted.length === 0) return { mean: 0, p50: 0, p90: 0, p99: 0, max: 0 };
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  let sum = 0;
  for (const value of sorted) sum += value;
  return { mean: sum / sorted.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1]! };
}

/** One aligned line: label, requests/s, latency percentiles, body size and failures. */
export function formatLoadResult(label: string, result: LoadResult): string {
  const ms = (value: number) => `${value.toFixed(3)} ms`;
  return [
    label.padEnd(34),
    `${Math.round(result.requestsPerSecond).toLocaleString('en-US').padStart(9)} req/s`,
    `p50 ${ms(result.latencyMs.p50).padStart(10)}`,
    `p99 ${ms(result.latencyMs.p99).padStart(10)}`,
    `${String(result.bodyBytes).padStart(6)} B`,
    `${result.requests} ok`,
    result.failures > 0 ? `${result.failures} FAILED` : '',
  ]
    .join('  ')
    .trimEnd();
}

/**
 * A closed loop like `runLoad`, for requests that differ per iteration: each of `connections` workers takes the next
 * item (or runs without one when `items` is null) until the time is up or the items run out.
 */
export async function runIterations<T>(
  connections: number,
  durationMs: number,
  items: T[] | null,
  iteration: (item: T) => Promise<{ ok: boolean; ms: number; bytes: number }>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let failures = 0;
  let bodyBytes = 0;
  let next = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  const worker = async () => {
    while (performance.now() < deadline) {
      if (items !== null && next >= items.length) return;
      const item = items === null ? (undefined as T) : items[next++]!;
      const outcome = await iteration(item);
      if (outcome.ok) {
        latencies.push(outcome.ms);
        bodyBytes = outcome.bytes;
      } else {
        failures += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = performance.now() - started;
  const samples = Float64Array.from(latencies).sort();
  if (items !== null && next >= items.length && performance.now() < deadline - 1) {
    process.stderr.write(`note: ran out of pre-minted tokens after ${Math.round(elapsed)} ms\n`);
  }
  return mergeResults([
    {
      requests: samples.length,
      failures,
      durationMs: elapsed,
      requestsPerSecond: (samples.length / elapsed) * 1000,
      bodyBytes,
      latencyMs: { mean: 0, p50: 0, p90: 0, p99: 0, max: 0 },
      samples,
    },
  ]);
}

/** Runs `task` over `items`, at most `width` at a time. */
export async function inParallel<T>(items: readonly T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}
