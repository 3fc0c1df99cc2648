import { describe, expect, it } from 'vitest';
import {
  LmsAuthorizationRequiredError,
  LmsInvalidResponseError,
  LmsNotFoundError,
  LmsPermissionDeniedError,
  LmsRateLimitedError,
  LmsRequestRejectedError,
  LmsTimeoutError,
  LmsUnavailableError,
} from '../../src/lms/errors.js';
import {
  boundedFetch,
  classifyUnauthorized,
  Deadline,
  DEFAULT_BACKOFF,
  errorForResponse,
  isRateLimited,
  retryDelayMs,
  sendWithRetry,
  type FetchLike,
  type RawResponse,
} from '../../src/lms/http.js';

function raw(status: number, body: unknown, headers: Record<string, string> = {}): RawResponse {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return { status, headers: new Headers(headers), body: Buffer.from(text) };
}

const BEARER = { 'www-authenticate': 'Bearer realm="canvas-lms"' };

describe('LMS error mapping (note §4.2, §4.3)', () => {
  it.each([
    ['invalid token', raw(401, { errors: [{ message: 'Invalid access token.' }] }, BEARER), 'token'],
    ['expired token', raw(401, { errors: [{ message: 'Expired access token.', expired_at: 'x' }] }, BEARER), 'token'],
    ['revoked token', raw(401, { errors: [{ message: 'Revoked access token.' }] }, BEARER), 'token'],
    ['no credentials', raw(401, { status: 'unauthenticated', errors: [{ message: 'user authorization required' }] }, BEARER), 'token'],
    ['insufficient scopes', raw(401, { errors: [{ message: 'Insufficient scopes on access token.' }] }), 'scope'],
    ['older permission denial', raw(401, { status: 'unauthorized', errors: [{ message: 'user not authorized to perform that action' }] }), 'permission'],
  ] as const)('classifies a 401 for %s', (_case, response, kind) => {
    expect(classifyUnauthorized(response)).toBe(kind);
  });

  it('maps token problems and missing scopes to "authorization required"', () => {
    const expired = errorForResponse('listCourses', raw(401, { errors: [{ message: 'Expired access token.' }] }, BEARER));
    expect(expired).toBeInstanceOf(LmsAuthorizationRequiredError);
    expect((expired as LmsAuthorizationRequiredError).reason).toBe('token-rejected');
    const scope = errorForResponse('getAccount', raw(401, { errors: [{ message: 'Insufficient scopes on access token.' }] }));
    expect((scope as LmsAuthorizationRequiredError).reason).toBe('insufficient-scope');
  });

  it('maps permission denials (403 hosted, 401 older) to "permission denied"', () => {
    const body = { status: 'unauthorized', errors: [{ message: 'user not authorized to perform that action' }] };
    expect(errorForResponse('getQuiz', raw(403, body))).toBeInstanceOf(LmsPermissionDeniedError);
    expect(errorForResponse('getQuiz', raw(401, body))).toBeInstanceOf(LmsPermissionDeniedError);
  });

  it('tells the older 403 rate limit apart from a permission 403', () => {
    const throttled = raw(403, '403 Forbidden (Rate Limit Exceeded)\n', { 'content-type': 'text/plain; charset=utf-8', 'x-rate-limit-remaining': '0.0' });
    expect(isRateLimited(throttled)).toBe(true);
    expect(isRateLimited(raw(429, '429 Too Many Requests (Rate Limit Exceeded)\n'))).toBe(true);
    expect(isRateLimited(raw(403, { status: 'unauthorized', errors: [{ message: 'user not authorized to perform that action' }] }))).toBe(false);
    expect(errorForResponse('listCourses', throttled)).toBeInstanceOf(LmsRateLimitedError);
  });

  it('maps the remaining statuses', () => {
    expect(errorForResponse('getCourse', raw(404, { errors: [{ message: 'The specified resource does not exist.' }] }))).toBeInstanceOf(LmsNotFoundError);
    expect(errorForResponse('updateQuiz', raw(400, { errors: { quiz: 'bad' } }))).toBeInstanceOf(LmsRequestRejectedError);
    expect(errorForResponse('updateQuiz', raw(502, '<html>Bad Gateway</html>'))).toBeInstanceOf(LmsUnavailableError);
    expect(errorForResponse('updateQuiz', raw(302, '', { location: 'https://elsewhere.example' }))).toBeInstanceOf(LmsInvalidResponseError);
  });

  it('never puts the body or any token into the error message', () => {
    const error = errorForResponse('listCourses', raw(401, { errors: [{ message: 'Invalid access token 1~secret-token-value' }] }, BEARER));
    expect(error.message).not.toContain('secret-token-value');
    expect(error.message).toBe('LMS listCourses: authorization required (token-rejected)');
  });
});

describe('retryDelayMs', () => {
  it('grows exponentially with bounded jitter', () => {
    const zero = () => 0;
    expect(retryDelayMs(1, new Headers(), DEFAULT_BACKOFF, zero)).toBe(500);
    expect(retryDelayMs(2, new Headers(), DEFAULT_BACKOFF, zero)).toBe(1000);
    expect(retryDelayMs(3, new Headers(), DEFAULT_BACKOFF, zero)).toBe(2000);
    expect(retryDelayMs(10, new Headers(), DEFAULT_BACKOFF, zero)).toBe(DEFAULT_BACKOFF.maxDelayMs);
    expect(retryDelayMs(1, new Headers(), DEFAULT_BACKOFF, () => 0.999)).toBeLessThan(750);
  });

  it('honours Retry-After in seconds, capped', () => {
    expect(retryDelayMs(1, new Headers({ 'retry-after': '2' }), DEFAULT_BACKOFF)).toBe(2000);
    expect(retryDelayMs(1, new Headers({ 'retry-after': '600' }), DEFAULT_BACKOFF)).toBe(DEFAULT_BACKOFF.maxDelayMs);
  });
});

function stream(chunks: number, chunkBytes: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= chunks) return controller.close();
      sent += 1;
      controller.enqueue(new Uint8Array(chunkBytes).fill(0x61));
    },
  });
}

const request = (maxBytes = 1024, deadlineMs = 1000) => ({
  operation: 'listCourses',
  method: 'GET' as const,
  url: new URL('https://lms.example.test/api/v1/courses'),
  headers: { authorization: 'Bearer 1~token' },
  deadline: new Deadline(deadlineMs),
  maxBytes,
});

describe('boundedFetch', () => {
  it('rejects a declared oversized body without reading it', async () => {
    const fetchImpl: FetchLike = async () => new Response('x'.repeat(10), { headers: { 'content-length': '5000' } });
    await expect(boundedFetch(fetchImpl, request())).rejects.toBeInstanceOf(LmsInvalidResponseError);
  });

  it('stops reading an undeclared body once it passes the cap', async () => {
    let pulled = 0;
    const body = stream(1000, 512).pipeThrough(
      new TransformStream({
        transform(chunk, controller) {
          pulled += 1;
          controller.enqueue(chunk);
        },
      }),
    );
    const fetchImpl: FetchLike = async () => new Response(body);
    await expect(boundedFetch(fetchImpl, request(2048))).rejects.toThrow(/larger than 2048 bytes/);
    expect(pulled).toBeLessThan(10);
  });

  it('gives up at the deadline with a timeout error', async () => {
    const fetchImpl: FetchLike = (_url, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(new Error('aborted'))));
    const started = Date.now();
    await expect(boundedFetch(fetchImpl, request(1024, 150))).rejects.toBeInstanceOf(LmsTimeoutError);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('maps a network failure to unavailable and never follows redirects', async () => {
    let redirect: RequestInit['redirect'];
    const failing: FetchLike = async (_url, init) => {
      redirect = init?.redirect;
      throw new TypeError('fetch failed');
    };
    await expect(boundedFetch(failing, request())).rejects.toBeInstanceOf(LmsUnavailableError);
    expect(redirect).toBe('manual');
  });
});

describe('sendWithRetry', () => {
  it('retries 429 and the older 403 form, then returns the answer', async () => {
    const answers = [
      new Response('429 Too Many Requests (Rate Limit Exceeded)\n', { status: 429 }),
      new Response('403 Forbidden (Rate Limit Exceeded)\n', { status: 403, headers: { 'content-type': 'text/plain' } }),
      new Response('[]', { status: 200 }),
    ];
    const fetchImpl: FetchLike = async () => answers.shift()!;
    const response = await sendWithRetry(fetchImpl, request(1024, 5000), { maxAttempts: 5, baseDelayMs: 10, maxDelayMs: 50 });
    expect(response.status).toBe(200);
    expect(answers).toHaveLength(0);
  });

  it('stops retrying when the next wait would pass the deadline', async () => {
    let calls = 0;
    const fetchImpl: FetchLike = async () => {
      calls += 1;
      return new Response('rate limit exceeded', { status: 429, headers: { 'retry-after': '5' } });
    };
    await expect(sendWithRetry(fetchImpl, request(1024, 1000))).rejects.toBeInstanceOf(LmsRateLimitedError);
    expect(calls).toBe(1);
  });
});

describe('sendWithRetry after a failed read', () => {
  const fast = { maxAttempts: 5, baseDelayMs: 10, maxDelayMs: 50 };
  const counting = (answers: Array<Response | 'reset'>) => {
    const state = { calls: 0 };
    const fetchImpl: FetchLike = async () => {
      state.calls += 1;
      const answer = answers.shift() ?? new Response('[]', { status: 200 });
      if (answer === 'reset') throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } });
      return answer;
    };
    return { fetchImpl, state };
  };

  it.each([500, 502, 503, 504])('sends a GET once more after %i and returns the second answer', async (status) => {
    const { fetchImpl, state } = counting([new Response('{}', { status })]);
    expect((await sendWithRetry(fetchImpl, request(1024, 5000), fast)).status).toBe(200);
    expect(state.calls).toBe(2);
  });

  it('sends a GET once more after a dropped connection', async () => {
    const { fetchImpl, state } = counting(['reset']);
    expect((await sendWithRetry(fetchImpl, request(1024, 5000), fast)).status).toBe(200);
    expect(state.calls).toBe(2);
  });

  it('retries only once: a second failure is the answer', async () => {
    const failing = counting([new Response('{}', { status: 502 }), new Response('{}', { status: 503 })]);
    expect((await sendWithRetry(failing.fetchImpl, request(1024, 5000), fast)).status).toBe(503);
    expect(failing.state.calls).toBe(2);
    const resets = counting(['reset', 'reset']);
    await expect(sendWithRetry(resets.fetchImpl, request(1024, 5000), fast)).rejects.toBeInstanceOf(LmsUnavailableError);
    expect(resets.state.calls).toBe(2);
  });

  it('never repeats a write, which the LMS may have carried out', async () => {
    for (const method of ['POST', 'PUT'] as const) {
      const { fetchImpl, state } = counting([new Response('{}', { status: 502 })]);
      expect((await sendWithRetry(fetchImpl, { ...request(1024, 5000), method }, fast)).status).toBe(502);
      expect(state.calls).toBe(1);
      const reset = counting(['reset']);
      await expect(sendWithRetry(reset.fetchImpl, { ...request(1024, 5000), method }, fast)).rejects.toBeInstanceOf(LmsUnavailableError);
      expect(reset.state.calls).toBe(1);
    }
  });

  it('does not retry when the wait would pass the deadline, nor after the deadline ended the call', async () => {
    const later = counting([new Response('{}', { status: 503, headers: { 'retry-after': '5' } })]);
    const started = Date.now();
    expect((await sendWithRetry(later.fetchImpl, request(1024, 1000), { ...fast, maxDelayMs: 8_000 })).status).toBe(503);
    expect(later.state.calls).toBe(1);
    expect(Date.now() - started).toBeLessThan(500);

    let calls = 0;
    const hanging: FetchLike = (_url, init) => {
      calls += 1;
      return new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(new Error('aborted'))));
    };
    await expect(sendWithRetry(hanging, request(1024, 200), fast)).rejects.toBeInstanceOf(LmsTimeoutError);
    expect(calls).toBe(1);
  });
});

describe('boundedFetch body deadline', () => {
  it('ends a body that keeps trickling past the deadline', async () => {
    const endless = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        controller.enqueue(new Uint8Array([0x20]));
      },
    });
    const fetchImpl: FetchLike = async () => new Response(endless);
    const started = Date.now();
    await expect(boundedFetch(fetchImpl, request(1024 * 1024, 300))).rejects.toBeInstanceOf(LmsTimeoutError);
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
