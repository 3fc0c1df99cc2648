import { ADMIN_AND_APPLICATION_SCOPES, APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { OAuthStateStore, type OAuthState } from '../../src/oauth/state.js';
import { createTokenRepository } from '../../src/oauth/services.js';
import type { LmsTokenRepository } from '../../src/oauth/token-repository.js';
import { deriveKey } from '../../src/security/derived-keys.js';
import { OneTimeStore } from '../../src/security/one-time-store.js';
import { sha256Hex } from '../../src/security/random-token.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { admin, instructor, ISSUER, sessionFor, student, subjectFor } from '../support/sessions.js';

const BASE_URL = 'https://tool.example.test';
const LMS_URL = 'https://lms.example.test';
const OAUTH_ENV = { BASE_URL, LMS_URL, LMS_OAUTH_CLIENT_ID: '170000000000042', LMS_OAUTH_CLIENT_SECRET: 'test-client-secret' };

const INSTRUCTOR_STARTS = ['/api/oauth2authorize', '/api/oauth2reauthorize'];
const ALL_STARTS = [...INSTRUCTOR_STARTS, '/api/student-session-authorize', '/api/admin/oauth2authorize'];

describe('LMS OAuth authorization starts', () => {
  let t: TestApp;
  let states: OAuthStateStore;
  let tokens: LmsTokenRepository;

  beforeAll(async () => {
    t = await createTestApp({ env: OAUTH_ENV });
    states = new OAuthStateStore(new OneTimeStore(t.db.pool, deriveKey(t.config.secrets.appSecret, 'one-time-store')));
    tokens = createTokenRepository(t.config, t.db.orm, createLogger('silent'));
  });
  afterAll(() => t?.close());
  beforeEach(() => t.db.orm.em.getConnection().execute('delete from lms_oauth_token', [], 'run'));

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

  async function startedState(location: string): Promise<OAuthState> {
    const token = new URL(location).searchParams.get('state');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const state = await states.peek(token!);
    expect(state).not.toBeNull();
    return state!;
  }

  describe('Fetch Metadata guard (first check)', () => {
    it.each(ALL_STARTS.flatMap((path) => ['cross-site', 'same-site', 'none'].map((site) => [path, site])))(
      '%s with sec-fetch-site %s answers 403 before any other check',
      async (path, site) => {
        // No session at all: the guard still answers first.
        const response = await get(path, { 'sec-fetch-site': site });
        expect(response.statusCode).toBe(403);
        expect(response.json()).toMatchObject({ success: false, error_code: 'CROSS_SITE_AUTHORIZATION_START' });
        expect(response.json().message).toMatch(/from the tool/);
      },
    );

    it('shows a readable page to a browser navigation', async () => {
      const { cookie } = sessionFor(t.app, instructor());
      const response = await get('/api/oauth2authorize', { cookie, 'sec-fetch-site': 'cross-site', accept: 'text/html,application/xhtml+xml' });
      expect(response.statusCode).toBe(403);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.body).toContain('Open the tool from your course or account in the LMS');
      expect(response.headers['content-security-policy']).toContain("default-src 'none'");
    });

    it('lets same-origin and unmarked requests through', async () => {
      const { cookie } = sessionFor(t.app, instructor());
      expect((await get('/api/oauth2authorize', { cookie, 'sec-fetch-site': 'same-origin' })).statusCode).toBe(302);
      expect((await get('/api/oauth2authorize', { cookie })).statusCode).toBe(302);
    });
  });

  describe('principal and role checks', () => {
    it.each(ALL_STARTS)('%s without a session answers 401', async (path) => {
      const response = await get(path);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ error_code: 'LTI_PRINCIPAL_REQUIRED' });
    });

    it.each([
      ['/api/oauth2authorize', student()],
      ['/api/oauth2authorize', admin()],
      ['/api/oauth2reauthorize', student()],
      ['/api/student-session-authorize', instructor()],
      ['/api/student-session-authorize', admin()],
      ['/api/admin/oauth2authorize', instructor()],
      ['/api/admin/oauth2authorize', student()],
    ])('%s refuses a %o principal with 403', async (path, principal) => {
      const { cookie } = sessionFor(t.app, principal);
      const response = await get(path, { cookie });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ error_code: 'OAUTH_ROLE_MISMATCH' });
      expect(response.headers.location).toBeUndefined();
    });

    it.each(INSTRUCTOR_STARTS)('%s refuses a course_id or user_id other than the principal\'s with 403', async (path) => {
      const { cookie } = sessionFor(t.app, instructor());
      expect((await get(`${path}?course_id=102`, { cookie })).statusCode).toBe(403);
      expect((await get(`${path}?user_id=3`, { cookie })).statusCode).toBe(403);
      expect((await get(`${path}?course_id=101&user_id=3`, { cookie })).json()).toMatchObject({ error_code: 'OAUTH_USER_MISMATCH' });
      expect((await get(`${path}?course_id=101&user_id=2`, { cookie })).statusCode).toBe(302);
    });

    it('refuses a course_id at the administrator start and a foreign user_id anywhere', async () => {
      const { cookie } = sessionFor(t.app, admin());
      expect((await get('/api/admin/oauth2authorize?course_id=101', { cookie })).statusCode).toBe(403);
      expect((await get('/api/admin/oauth2authorize?user_id=2', { cookie })).statusCode).toBe(403);
      const studentSession = sessionFor(t.app, student());
      expect((await get('/api/student-session-authorize?user_id=4', { cookie: studentSession.cookie })).statusCode).toBe(403);
    });

    it('answers a malformed query with 400', async () => {
      const { cookie } = sessionFor(t.app, instructor());
      const response = await get('/api/oauth2authorize?course_id=101&course_id=102', { cookie });
      expect(response.statusCode).toBe(400);
    });
  });

  describe('redirect to the LMS with the bound state', () => {
    it.each(INSTRUCTOR_STARTS)('%s redirects with the application scopes and binds every field', async (path) => {
      const { cookie, session } = sessionFor(t.app, instructor());
      const response = await get(`${path}?course_id=101&user_id=2&redirect_url=${encodeURIComponent('/lti/launch?connected=1')}`, { cookie });
      expect(response.statusCode).toBe(302);
      expect(response.headers['cache-control']).toBe('no-store');
      const location = new URL(response.headers.location as string);
      expect(`${location.origin}${location.pathname}`).toBe(`${LMS_URL}/login/oauth2/auth`);
      expect(Object.fromEntries([...location.searchParams.keys()].map((key) => [key, location.searchParams.getAll(key).length]))).toEqual({
        client_id: 1,
        response_type: 1,
        redirect_uri: 1,
        state: 1,
        scope: 1,
      });
      expect(location.searchParams.get('client_id')).toBe('170000000000042');
      expect(location.searchParams.get('response_type')).toBe('code');
      expect(location.searchParams.get('redirect_uri')).toBe(`${BASE_URL}/api/oauth2callback`);
      expect(location.searchParams.get('scope')!.split(' ')).toEqual([...APPLICATION_SCOPES]);
      expect(await startedState(location.href)).toEqual({
        purpose: 'lms-oauth-v2',
        lmsUserId: '2',
        ltiSubject: 'sub-instructor',
        courseId: '101',
        issuer: session.principal.issuer,
        deploymentId: session.principal.deploymentId,
        sessionHash: sha256Hex(session.sid),
        oauthScopeProfile: 'application',
        redirectUrl: '/lti/launch?connected=1',
      });
    });

    it.each(['https://attacker.example/phish', '//attacker.example', '/\\attacker.example', 'javascript:alert(1)'])(
      'replaces the unsafe redirect_url %s with /lti/launch',
      async (redirect) => {
        const { cookie } = sessionFor(t.app, instructor());
        const response = await get(`/api/oauth2authorize?redirect_url=${encodeURIComponent(redirect)}`, { cookie });
        expect((await startedState(response.headers.location as string)).redirectUrl).toBe('/lti/launch');
      },
    );

    it('requests the administrator-plus-application set at the administrator start and binds the account', async () => {
      const { cookie, session } = sessionFor(t.app, admin());
      const response = await get('/api/admin/oauth2authorize', { cookie });
      expect(response.statusCode).toBe(302);
      const location = new URL(response.headers.location as string);
      expect(location.searchParams.get('scope')!.split(' ')).toEqual([...ADMIN_AND_APPLICATION_SCOPES]);
      const state = await startedState(location.href);
      expect(state).toMatchObject({ purpose: 'lms-admin-oauth-v1', accountId: '1', oauthScopeProfile: 'admin', sessionHash: sha256Hex(session.sid) });
      expect(state.courseId).toBeUndefined();
    });

    it('requests the administrator set again when an instructor already holds an administrator grant (no downgrade)', async () => {
      await tokens.saveAuthorization({
        lmsUserId: '2',
        scopes: ADMIN_AND_APPLICATION_SCOPES,
        accessToken: '1~a',
        refreshToken: '1~r',
        expiresInSeconds: 3600,
        lmsUserName: null,
        lmsGlobalUserId: null,
        lmsRegion: null,
        accountId: '1',
        ltiIssuer: ISSUER,
        ltiSubject: subjectFor('2'),
      });
      const { cookie } = sessionFor(t.app, instructor());
      const response = await get('/api/oauth2reauthorize', { cookie });
      const location = new URL(response.headers.location as string);
      expect(location.searchParams.get('scope')!.split(' ')).toEqual([...ADMIN_AND_APPLICATION_SCOPES]);
      expect((await startedState(location.href)).oauthScopeProfile).toBe('admin');
    });

    it('takes the student return URL only from the signed launch target, never from the query', async () => {
      const exb = sessionFor(t.app, student(), { launchTarget: '/exb/launch/classicquiz_204' });
      const response = await get(`/api/student-session-authorize?redirect_url=${encodeURIComponent('/somewhere/else')}`, { cookie: exb.cookie });
      expect(response.statusCode).toBe(302);
      const location = new URL(response.headers.location as string);
      expect(location.searchParams.get('scope')!.split(' ')).toEqual([...APPLICATION_SCOPES]);
      expect(await startedState(location.href)).toMatchObject({
        purpose: 'lms-student-session-oauth-v1',
        lmsUserId: '3',
        courseId: '101',
        redirectUrl: '/exb/launch/classicquiz_204?connected=1',
        oauthScopeProfile: 'application',
      });

      const course = sessionFor(t.app, student());
      const courseResponse = await get('/api/student-session-authorize', { cookie: course.cookie });
      expect((await startedState(courseResponse.headers.location as string)).redirectUrl).toBe('/lti/launch?connected=1');
    });

    it('issues a new single-use state per start, valid for ten minutes', async () => {
      const { cookie } = sessionFor(t.app, instructor());
      const first = new URL((await get('/api/oauth2authorize', { cookie })).headers.location as string).searchParams.get('state');
      const second = new URL((await get('/api/oauth2authorize', { cookie })).headers.location as string).searchParams.get('state');
      expect(first).not.toBe(second);
      const [row] = await t.db.orm.em
        .getConnection()
        .execute<{ seconds: number }[]>(
          "select extract(epoch from expires_at - created_at)::int as seconds from one_time_token where purpose = 'lms-oauth-state' order by created_at desc limit 1",
        );
      expect(row!.seconds).toBeGreaterThanOrEqual(599);
      expect(row!.seconds).toBeLessThanOrEqual(601);
    });
  });
});

describe('LMS OAuth start without a configured API key', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { BASE_URL, LMS_URL } });
  });
  afterAll(() => t?.close());

  it('answers 503 after the principal checks', async () => {
    const { cookie } = sessionFor(t.app, instructor());
    const response = await t.app.inject({ method: 'GET', url: '/api/oauth2authorize', headers: { cookie } });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ error_code: 'LMS_OAUTH_NOT_CONFIGURED' });
    expect((await t.app.inject({ method: 'GET', url: '/api/oauth2authorize' })).statusCode).toBe(401);
  });
});
