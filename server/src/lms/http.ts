import { setTimeout as sleep } from 'node:timers/promises';
import {
  LmsAuthorizationRequiredError,
  LmsInvalidResponseError,
  LmsNotFoundError,
  LmsPermissionDeniedError,
  LmsRateLimitedError,
  LmsRequestRejectedError,
  LmsTimeoutError,
  LmsUnavailableError,
  type LmsError,
} from './errors.js';

export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** A point in time every step of one logical call (retries and pages included) must finish before. */
export class Deadline {
  readonly at: number;

  constructor(ms: number, now = Date.now()) {
    this.at = now + ms;
  }

  remaining(): number {
    return Math.max(0, this.at - Date.now());
  }

  expired(): boolean {
    return this.remaining() === 0;
  }
}

export interface RawResponse {
  status: number;
  headers: Headers;
  body: Buffer;
}

export interface BoundedRequest {
  operation: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: URL;
  headers: Record<string, string>;
  body?: string;
  deadline: Deadline;
  maxBytes: number;
  /**
   * Runs before every HTTP attempt, retries included; what it throws ends the call unchanged (the background
   * verifier's per-minute budget of LMS calls).
   */
  beforeAttempt?: () => Promise<void>;
}

/**
 * One HTTP exchange with the LMS under a deadline and a size cap. Redirects are never followed, so a bearer token is
 * only ever sent to the URL it was meant for. The body is read incrementally and the connection dropped as soon as it
 * exceeds the cap, so an oversized or endless answer costs at most `maxBytes` of memory.
 */
export async function boundedFetch(fetchImpl: FetchLike, request: BoundedRequest): Promise<RawResponse> {
  const { operation, deadline } = request;
  if (deadline.expired()) throw new LmsTimeoutError(operation);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), deadline.remaining());
  timer.unref?.();
  try {
    let response: Response;
    try {
      response = await fetchImpl(request.url, {
        method: request.method,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        redirect: 'manual',
        signal: controller.signal,
      });
    } catch {
      throw controller.signal.aborted ? new LmsTimeoutError(operation) : new LmsUnavailableError(operation);
    }
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > request.maxBytes) {
      // Not awaited: some stream sources never settle a cancel, and the answer is refused either way.
      void response.body?.cancel().catch(() => undefined);
      throw new LmsInvalidResponseError(operation, `larger than ${request.maxBytes} bytes`, response.status);
    }
    const chunks: Buffer[] = [];
    let total = 0;
    if (response.body) {
      const reader = response.body.getReader();
      // A body that trickles past the deadline ends at the deadline even if the stream ignores the abort.
      const timedOut = new Promise<never>((_resolve, reject) => {
        const fail = () => reject(new LmsTimeoutError(operation));
        if (controller.signal.aborted) fail();
        else controller.signal.addEventListener('abort', fail, { once: true });
      });
      timedOut.catch(() => undefined);
      try {
        for (;;) {
          const { done, value } = await Promise.race([reader.read(), timedOut]);
          if (done) break;
          total += value.byteLength;
          if (total > request.maxBytes) {
            void reader.cancel().catch(() => undefined);
            throw new LmsInvalidResponseError(operation, `larger than ${request.maxBytes} bytes`, response.status);
          }
          chunks.push(Buffer.from(value));
        }
      } catch (error) {
        if (error instanceof LmsInvalidResponseError) throw error;
        void reader.cancel().catch(() => undefined);
        throw controller.signal.aborted ? new LmsTimeoutError(operation) : new LmsUnavailableError(operation);
      }
    }
    return { status: response.status, headers: response.headers, body: Buffer.concat(chunks, total) };
  } finally {
    clearTimeout(timer);
  }
}

const RATE_LIMIT_TEXT = /rate limit exceeded/i;

/** Throttling in either form the LMS has used: `429`, or the older `403` whose plain-text body says so. */
export function isRateLimited(response: Pick<RawResponse, 'status' | 'body'>): boolean {
  if (response.status === 429) return true;
  return response.status === 403 && RATE_LIMIT_TEXT.test(response.body.subarray(0, 512).toString('utf8'));
}

function errorMessages(body: Buffer): { status?: string; messages: string[] } {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { status?: unknown; errors?: unknown; message?: unknown };
    const messages: string[] = [];
    if (Array.isArray(parsed.errors)) {
      for (const entry of parsed.errors) {
        if (entry && typeof entry === 'object' && typeof (entry as { message?: unknown }).message === 'string') {
          messages.push((entry as { message: string }).message);
        }
      }
    }
    if (typeof parsed.message === 'string') messages.push(parsed.message);
    return { ...(typeof parsed.status === 'string' ? { status: parsed.status } : {}), messages };
  } catch {
    return { messages: [] };
  }
}

/** What a `401` means (note §4.2): a bad token can be fixed by refreshing; the other two cannot. */
export type UnauthorizedKind = 'token' | 'scope' | 'permission';

export function classifyUnauthorized(response: Pick<RawResponse, 'headers' | 'body'>): UnauthorizedKind {
  const { status, messages } = errorMessages(response.body);
  if (messages.some((message) => /insufficient scopes/i.test(message))) return 'scope';
  // Older installations answer a permission failure with 401 and this body instead of 403.
  if (status === 'unauthorized' || messages.some((message) => /not authorized to perform/i.test(message))) {
    return 'permission';
  }
  return 'token';
}

/**
 * Maps a non-success answer to its domain error. Rate limits are handled by the caller (retried) before this, and a
 * `401` for a bad token is first given one refresh by the caller.
 */
export function errorForResponse(operation: string, response: RawResponse): LmsError {
  const { status } = response;
  if (isRateLimited(response)) return new LmsRateLimitedError(operation, status);
  if (status === 401) {
    const kind = classifyUnauthorized(response);
    if (kind === 'permission') return new LmsPermissionDeniedError(operation, status);
    return new LmsAuthorizationRequiredError(operation, kind === 'scope' ? 'insufficient-scope' : 'token-rejected', status);
  }
  if (status === 403) return new LmsPermissionDeniedError(operation, status);
  if (status === 404) return new LmsNotFoundError(operation);
  if (status >= 500) return new LmsUnavailableError(operation, status);
  if (status >= 300 && status < 400) return new LmsInvalidResponseError(operation, 'unexpected redirect', status);
  return new LmsRequestRejectedError(operation, status);
}

export interface BackoffPolicy {
  /** Attempts in total, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Four retries at 0.5 s, 1 s, 2 s, 4 s (plus jitter), or what `Retry-After` asks for, never past the deadline. */
export const DEFAULT_BACKOFF: BackoffPolicy = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 8_000 };

export function retryDelayMs(attempt: number, headers: Headers, policy: BackoffPolicy, random = Math.random): number {
  const retryAfter = headers.get('retry-after');
  if (retryAfter && /^\d{1,4}$/.test(retryAfter.trim())) {
    return Math.min(policy.maxDelayMs, Number(retryAfter.trim()) * 1000);
  }
  const exponential = policy.baseDelayMs * 2 ** (attempt - 1);
  return Math.min(policy.maxDelayMs, exponential + Math.floor(random() * policy.baseDelayMs * 0.5));
}

/** Answers of a server or gateway that failed this once; a repeated read may well get through. */
const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([500, 502, 503, 504]);

/** Time the retry itself needs to answer: a wait that leaves less than this of the deadline is pointless. */
const RETRY_ANSWER_MARGIN_MS = 250;

/** Waits `delay` before a retry when the deadline leaves room for it to answer; `false` (no wait) otherwise. */
async function waitForRetry(delay: number, deadline: Deadline): Promise<boolean> {
  if (delay + RETRY_ANSWER_MARGIN_MS >= deadline.remaining()) return false;
  await sleep(delay);
  return true;
}

/**
 * Sends a request and retries what a retry can fix, never past the deadline:
 * - throttled answers, with backoff (a throttled request was not carried out, so retrying a write is safe);
 * - for a `GET` only, once: a server error (500, 502, 503, 504) or a dropped connection. A read has no effect to repeat;
 *   a write that failed this way may have been carried out, so it is not sent again.
 * Returns the first answer that is not retried.
 */
export async function sendWithRetry(
  fetchImpl: FetchLike,
  request: BoundedRequest,
  policy: BackoffPolicy = DEFAULT_BACKOFF,
): Promise<RawResponse> {
  let transientRetryLeft = request.method === 'GET';
  for (let attempt = 1; ; attempt += 1) {
    let response: RawResponse;
    await request.beforeAttempt?.();
    try {
      response = await boundedFetch(fetchImpl, request);
    } catch (error) {
      if (!(error instanceof LmsUnavailableError) || !transientRetryLeft) throw error;
      transientRetryLeft = false;
      if (!(await waitForRetry(retryDelayMs(1, new Headers(), policy), request.deadline))) throw error;
      continue;
    }
    if (transientRetryLeft && TRANSIENT_STATUSES.has(response.status)) {
      transientRetryLeft = false;
      if (await waitForRetry(retryDelayMs(1, response.headers, policy), request.deadline)) continue;
      return response;
    }
    if (!isRateLimited(response)) return response;
    const delay = retryDelayMs(attempt, response.headers, policy);
    if (attempt >= policy.maxAttempts || !(await waitForRetry(delay, request.deadline))) {
      throw new LmsRateLimitedError(request.operation, response.status);
    }
  }
}

/** Parses a JSON body; the LMS prefixes some answers with `while(1);` against JSON hijacking. */
export function parseJsonBody(operation: string, response: RawResponse): unknown {
  const text = response.body.toString('utf8').replace(/^while\(1\);/, '');
  try {
    return JSON.parse(text);
  } catch {
    throw new LmsInvalidResponseError(operation, 'not JSON', response.status);
  }
}
