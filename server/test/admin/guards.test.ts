import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ActionTokens } from '../../src/security/action-token.js';
import { admin, instructor, sessionFor } from '../support/sessions.js';
import { createAdminBed, type AdminBed } from './harness.js';

/**
 * Who may use the administrator routes: an administrator principal, confirmed through their own grant; every mutation
 * also needs this session's action token, checked before any application logic or LMS call.
 */
let t: AdminBed;

beforeAll(async () => {
  t = await createAdminBed();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.reset();
  await t.grant();
});

/** Every administrator mutation, REST path and body, with a course that is connected in the tests that need one. */
const MUTATIONS: [method: 'POST' | 'PUT', path: string, body: unknown][] = [
  ['PUT', '/api/admin/terms/operational', { termId: '4' }],
  ['POST', '/api/admin/catch-up', {}],
  ['POST', '/api/admin/courses/connect', { courseIds: ['101'] }],
  ['POST', '/api/admin/courses/101/refresh', {}],
  ['POST', '/api/admin/courses/101/passwords/reveal', {}],
  ['POST', '/api/admin/courses/101/quit-password/rotate', {}],
  ['POST', '/api/admin/courses/101/assessments/classicquiz_201/passwords/reveal', {}],
  ['POST', '/api/admin/courses/101/assessments/classicquiz_201/quit-password/reset', {}],
  ['POST', '/api/admin/courses/101/assessments/classicquiz_201/reset-defaults', {}],
  ['POST', '/api/admin/courses/101/assessments/classicquiz_201/regenerate-code', {}],
  ['PUT', '/api/admin/courses/101/assessments/classicquiz_201/exb', { required: true }],
];

const QUERIES = ['/api/admin/summary', '/api/admin/courses', '/api/admin/courses/101', '/api/admin/course-catalog', '/api/admin/terms'];

async function tables() {
  return t.sql<{ courses: string; accounts: string; settings: string; defaults: string }>(
    `select (select count(*) from admin_course) as courses, (select count(*) from admin_account) as accounts,
       (select count(*) from assessment_setting) as settings, (select count(*) from course_defaults) as defaults`,
  );
}

describe('action tokens on administrator mutations', () => {
  const otherSessionToken = async () => (await t.sessionOf(admin())).actionToken;
  const forged = () => {
    // Signed with another secret, for this very session: only the service's key makes a valid MAC.
    const tokens = ActionTokens.fromAppSecret(Buffer.alloc(32, 7));
    return tokens.issue({ sid: 'x'.repeat(43), principal: admin() }, 'admin-mutation');
  };

  it.each([
    ['no token', async () => null],
    ['an empty token', async () => ''],
    ['a malformed token', async () => 'v1.admin-mutation.not-a-token'],
    ['a forged token', async () => forged()],
    ['another session’s token', otherSessionToken],
  ])('refuses %s with 403 INVALID_ACTION_TOKEN before any LMS call or write', async (_name, token) => {
    const actionToken = await token();
    const before = await tables();
    const calls = t.bed.lms.calls.count();
    for (const [method, path, body] of MUTATIONS) {
      const response = await t.request(method, path, { body, actionToken });
      expect({ path, status: response.statusCode, code: response.json().error_code }).toEqual({ path, status: 403, code: 'INVALID_ACTION_TOKEN' });
    }
    // Also over tRPC, where the client sends it in the same header.
    const trpc = await t.app.inject({
      method: 'POST',
      url: '/trpc/admin.courses.connect',
      headers: { cookie: t.session.cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json', ...(actionToken ? { 'x-exb-action-token': actionToken } : {}) },
      payload: { courseIds: ['101'] },
    });
    expect(trpc.statusCode).toBe(403);
    expect(trpc.json().error.data.errorCode).toBe('INVALID_ACTION_TOKEN');
    expect(t.bed.lms.calls.count()).toBe(calls);
    expect(await tables()).toEqual(before);
  });

  it('refuses a token of another purpose (the student download’s) and an expired one', async () => {
    const { session } = sessionFor(t.app, admin());
    const tokens = ActionTokens.fromAppSecret(t.bed.t.config.secrets.appSecret);
    const cookie = sessionFor(t.app, admin(), { sid: session.sid }).cookie;
    const configGrant = tokens.issue(session, 'config-grant');
    const expired = ActionTokens.fromAppSecret(t.bed.t.config.secrets.appSecret, { now: () => Date.now() - 11 * 60 * 1000 }).issue(session, 'admin-mutation');
    for (const [actionToken, message] of [[configGrant, /did not come from/], [expired, /expired/]] as const) {
      const response = await t.request('POST', '/api/admin/courses/connect', { session: { cookie, actionToken }, body: { courseIds: ['101'] } });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ success: false, error_code: 'INVALID_ACTION_TOKEN', message: expect.stringMatching(message) });
    }
    // The same session's fresh token works.
    const fresh = tokens.issue(session, 'admin-mutation');
    const response = await t.request('POST', '/api/admin/courses/connect', { session: { cookie, actionToken: fresh }, body: { courseIds: ['101'] } });
    expect(response.statusCode).toBe(200);
  });

  it('renews the token through a same-origin query, and the renewed token works for an hour of use', async () => {
    const renew = await t.app.inject({
      method: 'GET',
      url: '/trpc/admin.actionToken.renew',
      headers: { cookie: t.session.cookie, 'sec-fetch-site': 'same-origin' },
    });
    expect(renew.statusCode).toBe(200);
    const { actionToken, expiresInSeconds } = renew.json().result.data;
    expect(expiresInSeconds).toBe(600);
    const response = await t.request('POST', '/api/admin/courses/connect', { actionToken, body: { courseIds: ['101'] } });
    expect(response.statusCode).toBe(200);
    const crossSite = await t.app.inject({
      method: 'GET',
      url: '/trpc/admin.actionToken.renew',
      headers: { cookie: t.session.cookie, 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.statusCode).toBe(403);
  });

  it('checks the cross-site rule first, then the token', async () => {
    const response = await t.request('POST', '/api/admin/courses/connect', { site: 'cross-site', actionToken: null, body: { courseIds: ['101'] } });
    expect(response.json()).toMatchObject({ error_code: 'CROSS_SITE_REQUEST' });
    expect(response.statusCode).toBe(403);
  });

  it('needs no token on the GET routes', async () => {
    await t.connect('101');
    for (const path of QUERIES) {
      const response = await t.request('GET', path, { actionToken: null });
      expect({ path, status: response.statusCode }).toEqual({ path, status: 200 });
    }
  });
});

describe('administrator principals', () => {
  it('answers a request without a session with 401 and an instructor with 403 ADMIN_REQUIRED', async () => {
    const teacher = { cookie: sessionFor(t.app, instructor()).cookie, actionToken: 'irrelevant' };
    for (const path of QUERIES) {
      expect((await t.request('GET', path, { session: null })).statusCode).toBe(401);
      const refused = await t.request('GET', path, { session: teacher });
      expect({ path, status: refused.statusCode, code: refused.json().error_code }).toEqual({ path, status: 403, code: 'ADMIN_REQUIRED' });
    }
    for (const [method, path, body] of MUTATIONS) {
      expect((await t.request(method, path, { session: teacher, body })).json().error_code).toBe('ADMIN_REQUIRED');
    }
  });

  it('refuses an administrator the LMS does not confirm for the account (403 ADMIN_NOT_CONFIRMED)', async () => {
    // A sub-account administrator whose launch claimed the root account: the signed context is sub-account 2.
    await t.grant(8);
    const forged = await t.sessionOf(admin({ lmsUserId: '8', ltiSubject: 'sub-user-8', ltiContextId: t.bed.lms.state.accounts.get(2)!.ltiContextId }));
    const response = await t.request('GET', '/api/admin/summary', { session: forged });
    expect(response.statusCode).toBe(403);
    expect(response.json().error_code).toBe('ADMIN_NOT_CONFIRMED');
    const mutation = await t.request('POST', '/api/admin/courses/connect', { session: forged, body: { courseIds: ['101'] } });
    expect(mutation.json().error_code).toBe('ADMIN_NOT_CONFIRMED');
    expect(await t.sql('select * from admin_course')).toEqual([]);
  });

  it('explains a missing or revoked grant with the administrator’s authorization start, never a 500', async () => {
    await t.sql('delete from lms_oauth_token');
    // The confirmation of the administrator is reused for a few minutes; the LMS call of a connect is not.
    const missing = await t.request('POST', '/api/admin/courses/connect', { body: { courseIds: ['102'] } });
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({
      success: false,
      error_code: 'LMS_AUTHORIZATION_REQUIRED',
      message: expect.stringMatching(/LMS/),
      authUrl: '/api/admin/oauth2authorize',
    });

    const grant = await t.grant();
    await t.request('GET', '/api/admin/summary');
    // Revoking the record ends its refresh token too.
    t.bed.lms.oauth.revoke(grant.accessToken);
    const revoked = await t.request('POST', '/api/admin/courses/connect', { body: { courseIds: ['102'] } });
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json()).toMatchObject({ error_code: 'LMS_AUTHORIZATION_REQUIRED', authUrl: '/api/admin/oauth2authorize' });
    expect(revoked.json().requiresAuth).toBeUndefined();
  });
});
