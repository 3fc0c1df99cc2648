import { describe, expect, it } from 'vitest';
import { ANY_ROUTE } from '../../src/lms/index.js';
import { api, tokenFor, useInProcessLms } from './helpers.js';

const { lms } = useInProcessLms();
const PUT_QUIZ = 'PUT /api/v1/courses/:course_id/quizzes/:id';

function putQuiz(token: string, code: string | null, init: { signal?: AbortSignal } = {}) {
  return fetch(`${lms.baseUrl}/api/v1/courses/101/quizzes/201`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ quiz: { access_code: code } }),
    ...init,
  });
}

describe('fault injection', () => {
  it('fails the next N calls of a route with a status, then answers normally', async () => {
    const token = tokenFor(lms, 'instructor');
    lms.faults.next(PUT_QUIZ, { status: 503, times: 2 });
    const first = await putQuiz(token, 'a');
    expect(first.status).toBe(503);
    expect(first.headers.get('content-type')).toBe('text/html');
    expect(await first.text()).toContain('503 Service Unavailable');
    expect((await putQuiz(token, 'b')).status).toBe(503);
    expect(lms.state.quizzes.get(201)!.accessCode).toBeNull();
    expect((await putQuiz(token, 'c')).status).toBe(200);
    expect(lms.state.quizzes.get(201)!.accessCode).toBe('c');
    expect(lms.faults.pending()).toEqual([]);
    // Other routes were never affected.
    expect((await api(lms, token, '/api/v1/courses')).status).toBe(200);
  });

  it('answers 500 like the LMS and 502 like a gateway', async () => {
    const token = tokenFor(lms, 'instructor');
    lms.faults.next(PUT_QUIZ, { status: 500 });
    lms.faults.next(PUT_QUIZ, { status: 502 });
    const error = await putQuiz(token, 'x');
    expect(error.status).toBe(500);
    expect(await error.json()).toMatchObject({ errors: [{ message: 'An error occurred.' }], error_report_id: expect.any(Number) });
    const gateway = await putQuiz(token, 'x');
    expect(gateway.status).toBe(502);
    expect(await gateway.text()).toContain('502 Bad Gateway');
  });

  it('answers expired-token, revoked-token and forbidden like the API', async () => {
    const token = tokenFor(lms, 'instructor');
    lms.faults.expiredToken(PUT_QUIZ);
    lms.faults.next(PUT_QUIZ, { kind: 'revoked-token' });
    lms.faults.forbidden(PUT_QUIZ);
    const expired = await putQuiz(token, 'x');
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toBe('Bearer realm="canvas-lms"');
    expect(((await expired.json()) as { errors: Array<{ message: string }> }).errors[0]!.message).toBe('Expired access token.');
    expect(((await (await putQuiz(token, 'x')).json()) as { errors: Array<{ message: string }> }).errors[0]!.message).toBe('Revoked access token.');
    const forbidden = await putQuiz(token, 'x');
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toEqual({ status: 'unauthorized', errors: [{ message: 'user not authorized to perform that action' }] });
  });

  it('throttles with 429 or with the older 403 text form', async () => {
    const token = tokenFor(lms, 'instructor');
    lms.faults.rateLimit(PUT_QUIZ);
    lms.faults.rateLimit(PUT_QUIZ, { form: '403' });
    const current = await putQuiz(token, 'x');
    expect(current.status).toBe(429);
    expect(current.headers.get('x-rate-limit-remaining')).toBe('0.0');
    expect(await current.text()).toContain('Rate Limit Exceeded');
    const older = await putQuiz(token, 'x');
    expect(older.status).toBe(403);
    expect(older.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await older.text()).toBe('403 Forbidden (Rate Limit Exceeded)\n');
  });

  it('does not answer a timed-out call until the client gives up', async () => {
    const token = tokenFor(lms, 'instructor');
    lms.faults.timeout(PUT_QUIZ);
    const started = Date.now();
    await expect(putQuiz(token, 'x', { signal: AbortSignal.timeout(150) })).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(lms.state.quizzes.get(201)!.accessCode).toBeNull();
  });

  it('drops the connection after a bounded wait, or at once for a network error', async () => {
    const token = tokenFor(lms, 'instructor');
    lms.faults.timeout(PUT_QUIZ, { ms: 50 });
    lms.faults.next(PUT_QUIZ, { kind: 'network-error' });
    await expect(putQuiz(token, 'x')).rejects.toThrow(/fetch failed|Failed to fetch/);
    await expect(putQuiz(token, 'x')).rejects.toThrow(/fetch failed|Failed to fetch/);
    expect(lms.calls.filter(PUT_QUIZ).map((call) => [call.status, call.fault])).toEqual([
      [0, 'timeout'],
      [0, 'network-error'],
    ]);
  });

  it('returns an oversized body', async () => {
    const token = tokenFor(lms, 'instructor');
    lms.faults.oversized('POST /login/oauth2/token', { bytes: 200_000 });
    lms.faults.oversized('GET /api/v1/courses');
    const response = await fetch(`${lms.baseUrl}/login/oauth2/token`, { method: 'POST' });
    expect(response.status).toBe(200);
    expect((await response.text()).length).toBe(200_000);
    expect((await (await api(lms, token, '/api/v1/courses')).arrayBuffer()).byteLength).toBe(1024 * 1024);
  });

  it('can apply a change and still fail the call, as when the response is lost', async () => {
    const token = tokenFor(lms, 'instructor');
    lms.faults.next(PUT_QUIZ, { status: 502, applyFirst: true });
    expect((await putQuiz(token, 'applied')).status).toBe(502);
    expect(lms.state.quizzes.get(201)!.accessCode).toBe('applied');
    expect(lms.calls.last(PUT_QUIZ)!.fault).toBe('status 502 (after applying)');
  });

  it('applies to any route with the wildcard, in order', async () => {
    const token = tokenFor(lms, 'instructor');
    lms.faults.next(ANY_ROUTE, { status: 500 });
    expect((await api(lms, token, '/api/v1/courses')).status).toBe(500);
    expect((await api(lms, token, '/api/v1/courses')).status).toBe(200);
  });

  it('refuses unknown route keys and can be cleared', () => {
    expect(() => lms.faults.next('PUT /api/v1/quizzes/:id', { status: 500 })).toThrow(/Unknown LMS route/);
    lms.faults.next(PUT_QUIZ, { status: 500, times: 3 });
    expect(lms.faults.pending()).toEqual([{ route: PUT_QUIZ, spec: { status: 500, times: 3 }, remaining: 3 }]);
    lms.faults.clear();
    expect(lms.faults.pending()).toEqual([]);
  });
});

describe('call log', () => {
  it('records every call with its route, caller, body and answer', async () => {
    const token = tokenFor(lms, 'instructor');
    await api(lms, token, '/api/v1/courses/101/quizzes/201', { method: 'PUT', form: { 'quiz[access_code]': 'code-1' } });
    await api(lms, tokenFor(lms, 'student1'), '/api/v1/courses/101/quizzes/202', { method: 'PUT', json: { quiz: { access_code: null } } });
    await api(lms, undefined, '/api/v1/courses');

    const puts = lms.calls.filter(PUT_QUIZ);
    expect(puts).toHaveLength(2);
    expect(puts[0]).toMatchObject({
      method: 'PUT',
      path: '/api/v1/courses/101/quizzes/201',
      params: { course_id: '101', id: '201' },
      body: { quiz: { access_code: 'code-1' } },
      userId: 2,
      status: 200,
      fault: null,
    });
    expect(puts[1]).toMatchObject({ userId: 3, status: 403, body: { quiz: { access_code: null } } });
    expect(lms.calls.last('GET /api/v1/courses')).toMatchObject({ userId: null, status: 401 });
    expect(lms.calls.count((call) => call.status === 403)).toBe(1);
    lms.calls.clear();
    expect(lms.calls.list()).toEqual([]);
  });

  it('is emptied by reset, which also restores the seed', async () => {
    await api(lms, tokenFor(lms, 'instructor'), '/api/v1/courses/101/quizzes/201', { method: 'PUT', json: { quiz: { access_code: 'z' } } });
    lms.reset();
    expect(lms.calls.list()).toEqual([]);
    expect(lms.state.quizzes.get(201)!.accessCode).toBeNull();
    expect(lms.state.tokens.size).toBe(0);
  });
});
