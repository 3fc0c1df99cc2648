import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deriveKey } from '../../src/security/derived-keys.js';
import { SESSION_MAX_AGE_MS } from '../../src/security/session.js';
import { SessionGenerations } from '../../src/security/session-generations.js';
import { SESSION_TOKEN_HEADER, SESSION_TOKEN_TTL_MS, SessionTokens } from '../../src/security/session-token.js';
import { bootstrapOf, Browser, createHarness, launchAs, type Harness } from '../lti/launch-harness.js';

/**
 * The session as a header token (`security/session-token.ts`): what a page holds where its browser keeps no cookie in
 * the LMS's frame. Every request here carries no cookie unless it says so.
 */
let h: Harness;
let tokens: SessionTokens;
beforeAll(async () => {
  h = await createHarness();
  tokens = new SessionTokens(deriveKey(h.t.config.secrets.appSecret, 'session-token'));
});
afterAll(() => h.close());

const INSTRUCTOR = { person: 'instructor', placement: 'course_navigation', courseId: 101 } as const;
const QUIZZES = '/api/quizzes';

async function launchedToken(): Promise<{ token: string; browser: Browser }> {
  const browser = new Browser();
  const { response } = await launchAs(h, browser, INSTRUCTOR);
  const token = bootstrapOf(response.body).sessionToken;
  expect(typeof token).toBe('string');
  return { token: token as string, browser };
}

function get(url: string, headers: Record<string, string>): Promise<LightMyRequestResponse> {
  return h.t.app.inject({ method: 'GET', url, headers: { accept: 'application/json', ...headers } });
}

const errorCode = (response: LightMyRequestResponse) => (JSON.parse(response.body) as { error_code?: string }).error_code;

/** Whether the request was served with a session: the refusal without one is `401 UNAUTHORIZED`. */
const hadSession = (response: LightMyRequestResponse) => !(response.statusCode === 401 && errorCode(response) === 'UNAUTHORIZED');

describe('the session header token', () => {
  it('carries the launch’s session without a cookie, and each answer brings a fresh token', async () => {
    const { token } = await launchedToken();
    expect(hadSession(await get(QUIZZES, {}))).toBe(false);
    const response = await get(QUIZZES, { [SESSION_TOKEN_HEADER]: token });
    expect(hadSession(response)).toBe(true);
    const fresh = response.headers[SESSION_TOKEN_HEADER];
    expect(typeof fresh).toBe('string');
    expect(tokens.open(fresh)?.sid).toBe(tokens.open(token)?.sid);
    // No cookie is needed for the next request either.
    expect(hadSession(await get(QUIZZES, { [SESSION_TOKEN_HEADER]: fresh as string }))).toBe(true);
  });

  it('refuses a tampered token, even beside a valid session cookie', async () => {
    const { token, browser } = await launchedToken();
    const tampered = `${token.slice(0, 20)}${token[20] === 'A' ? 'B' : 'A'}${token.slice(21)}`;
    expect(hadSession(await get(QUIZZES, { [SESSION_TOKEN_HEADER]: tampered }))).toBe(false);
    expect(hadSession(await get(QUIZZES, { [SESSION_TOKEN_HEADER]: tampered, cookie: browser.header() }))).toBe(false);
    expect(hadSession(await get(QUIZZES, { cookie: browser.header() }))).toBe(true);
    for (const malformed of ['', 'not a token', 'x'.repeat(9000)]) {
      expect(hadSession(await get(QUIZZES, { [SESSION_TOKEN_HEADER]: malformed }))).toBe(false);
    }
  });

  it('refuses an expired token, and never lets one outlive the session’s absolute age', async () => {
    const { token } = await launchedToken();
    const session = tokens.open(token)!;
    const later = new SessionTokens(deriveKey(h.t.config.secrets.appSecret, 'session-token'), () => Date.now() + SESSION_TOKEN_TTL_MS + 1);
    expect(later.open(token)).toBeNull();
    const issuedEarlier = new SessionTokens(deriveKey(h.t.config.secrets.appSecret, 'session-token'), () => Date.now() - SESSION_TOKEN_TTL_MS - 1);
    expect(hadSession(await get(QUIZZES, { [SESSION_TOKEN_HEADER]: issuedEarlier.issue(session) }))).toBe(false);
    // A session near its 12 hours gets a token that ends with it.
    const old = { ...session, createdAt: Date.now() - SESSION_MAX_AGE_MS + 1000 };
    const nearEnd = tokens.issue(old);
    expect(tokens.open(nearEnd)).not.toBeNull();
    expect(new SessionTokens(deriveKey(h.t.config.secrets.appSecret, 'session-token'), () => Date.now() + 1001).open(nearEnd)).toBeNull();
  });

  it('is bound to its purpose and to the person’s sessions: another sealed value does not open, an ended session is gone', async () => {
    const { token, browser } = await launchedToken();
    const cookieValue = browser.session()!;
    expect(hadSession(await get(QUIZZES, { [SESSION_TOKEN_HEADER]: cookieValue.replace(/[^A-Za-z0-9_-]/g, '') }))).toBe(false);
    const otherKey = new SessionTokens(deriveKey(h.t.config.secrets.appSecret, 'action-token'));
    expect(hadSession(await get(QUIZZES, { [SESSION_TOKEN_HEADER]: otherKey.issue(tokens.open(token)!) }))).toBe(false);

    // The person's sessions were ended after this one was sealed: a launch now carries the new generation, and a
    // token of the earlier generation is refused like its cookie would be.
    const session = tokens.open(token)!;
    await new SessionGenerations(h.t.db.pool).endSessions({ issuer: session.principal.issuer, subject: session.principal.ltiSubject });
    const relaunched = tokens.open((await launchedToken()).token)!;
    expect(relaunched.generation).toBe(session.generation + 1);
    expect(hadSession(await get(QUIZZES, { [SESSION_TOKEN_HEADER]: tokens.issue(relaunched) }))).toBe(true);
    expect(hadSession(await get(QUIZZES, { [SESSION_TOKEN_HEADER]: tokens.issue({ ...relaunched, generation: session.generation }) }))).toBe(false);
  });

  it('opens a session page from a navigation carrying the token in its query, and nothing else that way', async () => {
    const { token } = await launchedToken();
    const page = await h.t.app.inject({ method: 'GET', url: `/lti/launch?session_token=${token}`, headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(200);
    const bootstrap = bootstrapOf(page.body);
    expect(bootstrap.view).toBe('teacher');
    expect(tokens.open(bootstrap.sessionToken)?.sid).toBe(tokens.open(token)?.sid);
    // The audit trail export is a download link; an administrator's token opens it (an instructor's is refused by role).
    const csv = await h.t.app.inject({ method: 'GET', url: `/api/admin/audit.csv?session_token=${token}` });
    expect(csv.statusCode).not.toBe(401);
    expect((await h.t.app.inject({ method: 'GET', url: '/api/admin/audit.csv' })).statusCode).toBe(401);
    // Another API route does not read a token from its query, and a POST not at all.
    expect(hadSession(await get(`${QUIZZES}?session_token=${token}`, {}))).toBe(false);
    const posted = await h.t.app.inject({ method: 'POST', url: `/lti/launch?session_token=${token}`, payload: 'state=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(posted.statusCode).toBe(400);
  });

  it('never answers a token’s request with a cookie: a page opened with another person’s token plants nothing', async () => {
    const { token } = await launchedToken();
    const victim = (await launchedToken()).browser;
    const page = await h.t.app.inject({ method: 'GET', url: `/lti/launch?session_token=${token}`, headers: { accept: 'text/html', cookie: victim.header() } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['set-cookie']).toBeUndefined();
    // A token whose person's sessions were ended is dropped, which changes the request's session: still no cookie.
    const session = tokens.open(token)!;
    const ended = tokens.issue({ ...session, generation: session.generation - 1 });
    const dropped = await h.t.app.inject({ method: 'GET', url: `/lti/launch?session_token=${ended}`, headers: { accept: 'text/html', cookie: victim.header() } });
    expect(dropped.headers['set-cookie']).toBeUndefined();
    const headerDropped = await get(QUIZZES, { [SESSION_TOKEN_HEADER]: ended, cookie: victim.header() });
    expect(hadSession(headerDropped)).toBe(false);
    expect(headerDropped.headers['set-cookie']).toBeUndefined();
    expect(hadSession(await get(QUIZZES, { cookie: victim.header() }))).toBe(true);
  });

  it('keeps the same-origin rule for mutations: a token does not let another site’s request through', async () => {
    const { token } = await launchedToken();
    const response = await h.t.app.inject({
      method: 'POST',
      url: '/api/quizzes/course/101/refresh',
      payload: '{}',
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'cross-site', [SESSION_TOKEN_HEADER]: token },
    });
    expect(response.statusCode).toBe(403);
    expect(errorCode(response)).toBe('CROSS_SITE_REQUEST');
  });
});

describe('the session token in an exam-browser launch page’s query', () => {
  const QUIZ = { person: 'student1', placement: 'assessment', contentId: 'classicquiz_201' } as const;
  const EXAM_BROWSER_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120 SEB/3.7.1';
  const PAGE = '/exb/launch/classicquiz_201';
  afterEach(() => {
    h.requirement.required = false;
  });

  async function studentToken(): Promise<{ token: string; browser: Browser }> {
    h.requirement.required = true;
    const browser = new Browser();
    const { response } = await launchAs(h, browser, QUIZ);
    return { token: bootstrapOf(response.body).sessionToken as string, browser };
  }

  const open = (url: string, headers: Record<string, string> = {}) =>
    h.t.app.inject({ method: 'GET', url, headers: { accept: 'text/html', 'sec-fetch-site': 'same-origin', ...headers } });

  it('opens the student’s launch page as the cookie would, without setting a cookie', async () => {
    const { token, browser } = await studentToken();
    const byCookie = await open(PAGE, { cookie: browser.header() });
    const byToken = await open(`${PAGE}?session_token=${token}`);
    expect(byToken.statusCode).toBe(200);
    const { sessionToken, ...view } = bootstrapOf(byToken.body);
    const { sessionToken: _cookieToken, ...cookieView } = bootstrapOf(byCookie.body);
    expect(view).toEqual(cookieView);
    expect(view).toMatchObject({ view: 'exb-required', contentId: 'classicquiz_201' });
    expect(tokens.open(sessionToken)?.sid).toBe(tokens.open(token)?.sid);
    expect(byToken.headers['set-cookie']).toBeUndefined();
  });

  it('keeps what the exam browser’s launch records in the fresh token, never in the cookie of the browser that opened it', async () => {
    const { token } = await studentToken();
    const victim = (await launchedToken()).browser;
    const first = await open(`${PAGE}?session_token=${token}`, { 'user-agent': EXAM_BROWSER_UA, cookie: victim.header() });
    expect(first.statusCode).toBe(302);
    expect(first.headers.location).toMatch(/\/courses\/101\/quizzes\/201$/);
    expect(first.headers['set-cookie']).toBeUndefined();
    const fresh = first.headers[SESSION_TOKEN_HEADER] as string;
    expect(Object.keys(tokens.open(fresh)?.exbLaunches ?? {})).not.toHaveLength(0);
    // The record travels with the fresh token: a second load goes to the course home.
    const second = await open(`${PAGE}?session_token=${fresh}`, { 'user-agent': EXAM_BROWSER_UA });
    expect(second.headers.location).toMatch(/\/courses\/101$/);
    // The opener's own session is untouched.
    expect(hadSession(await get(QUIZZES, { cookie: victim.header() }))).toBe(true);
  });

  it('answers an expired or tampered token as without a session, whatever cookie came along', async () => {
    const { token, browser } = await studentToken();
    const tampered = `${token.slice(0, 20)}${token[20] === 'A' ? 'B' : 'A'}${token.slice(21)}`;
    const expired = new SessionTokens(deriveKey(h.t.config.secrets.appSecret, 'session-token'), () => Date.now() - SESSION_TOKEN_TTL_MS - 1).issue(
      tokens.open(token)!,
    );
    for (const bad of [tampered, expired]) {
      for (const headers of [{}, { cookie: browser.header() }]) {
        const response = await open(`${PAGE}?session_token=${bad}`, headers);
        expect(response.statusCode).toBe(302);
        expect(response.headers.location).toBe('/login');
        expect(response.headers['set-cookie']).toBeUndefined();
      }
    }
  });

  it('is ignored in the query of any other path', async () => {
    const { token } = await studentToken();
    expect(hadSession(await get(`${QUIZZES}?session_token=${token}`, {}))).toBe(false);
    const trpc = await get(`/trpc/instructor.authorization.ensure?session_token=${token}`, {});
    expect(trpc.statusCode).toBe(401);
    const other = await open(`/exb/launchx/classicquiz_201?session_token=${token}`);
    expect(other.headers[SESSION_TOKEN_HEADER]).toBeUndefined();
  });
});
