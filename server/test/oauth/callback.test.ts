import { ADMIN_AND_APPLICATION_SCOPES, APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_LMS_ERROR_DESCRIPTION_LENGTH } from '../../src/oauth/callback.js';
import { admin, instructor, student } from '../support/sessions.js';
import { approvedCallback, BASE_URL, bootstrapOf, createOAuthTestbed, LMS_URL, OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET, type OAuthTestbed } from '../support/oauth-testbed.js';
import { DEPLOYMENT_ID } from '../support/sessions.js';

const TOKEN_ROUTE = 'POST /login/oauth2/token';

interface TokenRow {
  id: string;
  lms_user_id: string;
  grant_type: string;
  scopes: string[];
  account_id: string | null;
}

describe('GET /api/oauth2callback', () => {
  let bed: OAuthTestbed;

  beforeAll(async () => {
    bed = await createOAuthTestbed();
  });
  afterAll(() => bed?.close());
  beforeEach(async () => {
    bed.lms.reset();
    bed.logs.length = 0;
    await bed.t.db.orm.em.getConnection().execute('delete from lms_oauth_token', [], 'run');
  });

  const callback = (path: string, cookie?: string) => bed.t.app.inject({ method: 'GET', url: path, headers: cookie ? { cookie } : {} });
  const records = () => bed.t.db.orm.em.getConnection().execute<TokenRow[]>('select * from lms_oauth_token order by lms_user_id');
  const exchanges = () => bed.lms.calls.count(TOKEN_ROUTE);

  function expectOAuthError(response: { statusCode: number; body: string; headers: Record<string, unknown> }, errorCode: string) {
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    const bootstrap = bootstrapOf(response.body);
    expect(bootstrap).toMatchObject({ view: 'oauth-error', errorCode });
    return bootstrap;
  }

  describe('completion', () => {
    it('instructor: exchanges the code server side, stores one encrypted record, renders lms-oauth-connected', async () => {
      const { cookie } = bed.session(instructor());
      const { callbackPath, scopes } = await approvedCallback(bed, cookie);
      expect(scopes).toEqual([...APPLICATION_SCOPES]);
      const response = await callback(callbackPath, cookie);
      expect(response.statusCode).toBe(200);
      expect(response.headers['referrer-policy']).toBe('no-referrer');
      expect(response.headers['cache-control']).toBe('no-store');
      const bootstrap = bootstrapOf(response.body);
      expect(bootstrap).toEqual({ locale: 'en', view: 'lms-oauth-connected', lmsReturnUrl: `${LMS_URL}/courses/101`, redirectUrl: '/lti/launch' });
      expect(response.body).not.toContain('code=');

      const exchange = bed.lms.calls.last(TOKEN_ROUTE)!;
      expect(exchange.body).toMatchObject({ grant_type: 'authorization_code', redirect_uri: 'https://tool.example.test/api/oauth2callback' });
      expect(exchange.status).toBe(200);

      const [row] = await records();
      expect(row).toMatchObject({ lms_user_id: '2', grant_type: 'instructor', scopes: [...APPLICATION_SCOPES], account_id: null });
      const token = [...bed.lms.state.tokens.values()].find((record) => record.userId === 2)!;
      expect(JSON.stringify(row)).not.toContain(token.accessToken);
      expect(JSON.stringify(row)).not.toContain(token.refreshToken);
    });

    it('student: renders student-session-connected with the return URL of the signed launch target', async () => {
      const { cookie } = bed.session(student(), { launchTarget: '/exb/launch/newquiz:101:301' });
      const { callbackPath } = await approvedCallback(bed, cookie, { start: '/api/student-session-authorize?redirect_url=/evil', lmsUser: 3 });
      const response = await callback(callbackPath, cookie);
      expect(response.statusCode).toBe(200);
      expect(bootstrapOf(response.body)).toEqual({ locale: 'en', view: 'student-session-connected', returnUrl: '/exb/launch/newquiz:101:301?connected=1' });
      expect((await records())[0]).toMatchObject({ lms_user_id: '3', grant_type: 'instructor' });
    });

    it('administrator: stores an account_admin grant with the verified account and links to the account', async () => {
      const { cookie } = bed.session(admin());
      const { callbackPath, scopes } = await approvedCallback(bed, cookie, { start: '/api/admin/oauth2authorize', lmsUser: 1 });
      expect(scopes).toEqual([...ADMIN_AND_APPLICATION_SCOPES]);
      const response = await callback(callbackPath, cookie);
      expect(response.statusCode).toBe(200);
      expect(bootstrapOf(response.body)).toEqual({ locale: 'en', view: 'lms-oauth-connected', lmsReturnUrl: `${LMS_URL}/accounts/1`, redirectUrl: '/lti/launch' });
      expect((await records())[0]).toMatchObject({ lms_user_id: '1', grant_type: 'account_admin', account_id: '1', scopes: [...ADMIN_AND_APPLICATION_SCOPES] });
    });

    it('upgrades instructor → administrator on the same record, and an instructor reauthorization keeps it administrator', async () => {
      // User 1 teaches nothing in the seed, but any LMS user may be both; the record is per user, not per role.
      const teacher = bed.session(instructor({ lmsUserId: '1', ltiSubject: 'sub-admin' }));
      await callback((await approvedCallback(bed, teacher.cookie, { lmsUser: 1 })).callbackPath, teacher.cookie);
      const [before] = await records();
      expect(before).toMatchObject({ grant_type: 'instructor' });

      const administrator = bed.session(admin());
      const upgraded = await callback((await approvedCallback(bed, administrator.cookie, { start: '/api/admin/oauth2authorize', lmsUser: 1 })).callbackPath, administrator.cookie);
      expect(upgraded.statusCode).toBe(200);
      const afterUpgrade = await records();
      expect(afterUpgrade).toHaveLength(1);
      expect(afterUpgrade[0]).toMatchObject({ id: before!.id, grant_type: 'account_admin', account_id: '1' });

      const reauthorization = await approvedCallback(bed, teacher.cookie, { start: '/api/oauth2reauthorize', lmsUser: 1 });
      expect(reauthorization.scopes).toEqual([...ADMIN_AND_APPLICATION_SCOPES]);
      expect((await callback(reauthorization.callbackPath, teacher.cookie)).statusCode).toBe(200);
      const afterReauthorization = await records();
      expect(afterReauthorization).toHaveLength(1);
      expect(afterReauthorization[0]).toMatchObject({ id: before!.id, grant_type: 'account_admin', account_id: '1', scopes: [...ADMIN_AND_APPLICATION_SCOPES] });
    });

    it('refuses a narrower grant that raced an administrator upgrade, leaving the administrator record untouched', async () => {
      const teacher = bed.session(instructor({ lmsUserId: '1', ltiSubject: 'sub-admin' }));
      // Started while no administrator grant existed: the application set is requested.
      const pending = await approvedCallback(bed, teacher.cookie, { lmsUser: 1 });
      const administrator = bed.session(admin());
      await callback((await approvedCallback(bed, administrator.cookie, { start: '/api/admin/oauth2authorize', lmsUser: 1 })).callbackPath, administrator.cookie);
      const [adminRecord] = await records();

      expectOAuthError(await callback(pending.callbackPath, teacher.cookie), 'grant-narrowed');
      expect(await records()).toEqual([adminRecord]);
    });
  });

  describe('failures: 400 with the oauth-error view', () => {
    it('error param: renders at once with the LMS description, no state use, no exchange', async () => {
      const { cookie } = bed.session(instructor());
      const start = await bed.t.app.inject({ method: 'GET', url: '/api/oauth2authorize', headers: { cookie } });
      const state = new URL(start.headers.location as string).searchParams.get('state')!;
      const response = await callback(`/api/oauth2callback?error=access_denied&error_description=${encodeURIComponent('The user denied <b>access</b>\u0000')}&state=${state}`, cookie);
      const bootstrap = expectOAuthError(response, 'lms-access-denied');
      expect(bootstrap.details).toEqual([
        { label: 'LMS error', value: 'access_denied' },
        { label: 'LMS message', value: 'The user denied <b>access</b>' },
      ]);
      expect(response.body).not.toContain('<b>');
      expect(exchanges()).toBe(0);
      // The state was not consumed by the refusal.
      const approval = bed.lms.oauth.approve({ user: 2, scopes: [...APPLICATION_SCOPES], state });
      expect((await callback(new URL(approval.redirectUrl).pathname + new URL(approval.redirectUrl).search, cookie)).statusCode).toBe(200);
    });

    it('error param: the LMS description is single-line plain text, cut to 160 characters', async () => {
      const { cookie } = bed.session(instructor());
      const description = `<img src=x onerror="alert(1)">\n\n  Call   555-0100 now. ${'Lorem ipsum dolor sit amet. '.repeat(20)}`;
      const response = await callback(`/api/oauth2callback?error=access_denied&error_description=${encodeURIComponent(description)}`, cookie);
      const bootstrap = expectOAuthError(response, 'lms-access-denied');
      const shown = (bootstrap.details as { label: string; value: string }[]).find((detail) => detail.label === 'LMS message')!.value;
      expect([...shown]).toHaveLength(MAX_LMS_ERROR_DESCRIPTION_LENGTH);
      expect(shown.startsWith('<img src=x onerror="alert(1)"> Call 555-0100 now. Lorem ipsum')).toBe(true);
      expect(shown.endsWith('…')).toBe(true);
      // In the page it is JSON data, never markup.
      expect(response.body).not.toContain('<img');
      expect(exchanges()).toBe(0);
    });

    it('missing code or state', async () => {
      const { cookie } = bed.session(instructor());
      expectOAuthError(await callback('/api/oauth2callback?code=abc', cookie), 'invalid-request');
      expectOAuthError(await callback('/api/oauth2callback?state=abc', cookie), 'invalid-request');
      expectOAuthError(await callback('/api/oauth2callback?state=a&state=b&code=c', cookie), 'invalid-request');
      expect(exchanges()).toBe(0);
    });

    it('unknown state', async () => {
      const { cookie } = bed.session(instructor());
      expectOAuthError(await callback('/api/oauth2callback?code=abc&state=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', cookie), 'unknown-state');
      expect(exchanges()).toBe(0);
    });

    it('replayed state: a second use fails and nothing is exchanged again', async () => {
      const { cookie } = bed.session(instructor());
      const { callbackPath } = await approvedCallback(bed, cookie);
      expect((await callback(callbackPath, cookie)).statusCode).toBe(200);
      const replay = await callback(callbackPath, cookie);
      expect(replay.statusCode).toBe(400);
      expect(bootstrapOf(replay.body).view).toBe('oauth-error');
      expect(exchanges()).toBe(1);
    });

    it('parallel replays: exactly one callback wins the atomic consumption', async () => {
      const { cookie } = bed.session(instructor());
      const { callbackPath } = await approvedCallback(bed, cookie);
      const responses = await Promise.all(Array.from({ length: 8 }, () => callback(callbackPath, cookie)));
      expect(responses.filter((response) => response.statusCode === 200)).toHaveLength(1);
      const failures = responses.filter((response) => response.statusCode === 400).map((response) => bootstrapOf(response.body).errorCode);
      expect(failures).toHaveLength(7);
      expect(new Set(failures)).toEqual(new Set(failures.filter((code) => code === 'replayed-state' || code === 'unknown-state')));
      expect(exchanges()).toBe(1);
      expect(await records()).toHaveLength(1);
    });

    it('no principal in the session', async () => {
      const { cookie } = bed.session(instructor());
      const { callbackPath } = await approvedCallback(bed, cookie);
      expectOAuthError(await callback(callbackPath), 'no-principal');
      expect(exchanges()).toBe(0);
    });

    it('other session of the same principal: refused without consuming, the right session still completes', async () => {
      const own = bed.session(instructor());
      const other = bed.session(instructor());
      const { callbackPath } = await approvedCallback(bed, own.cookie);
      expectOAuthError(await callback(callbackPath, other.cookie), 'binding-mismatch');
      expect(exchanges()).toBe(0);
      expect((await callback(callbackPath, own.cookie)).statusCode).toBe(200);
    });

    it.each([
      ['other user', instructor({ lmsUserId: '7' })],
      ['other LTI subject', instructor({ ltiSubject: 'someone-else' })],
      ['other course', instructor({ courseId: '102' })],
      ['other issuer', instructor({ issuer: 'https://other.example' })],
      ['other deployment', instructor({ deploymentId: '2:other' })],
    ])('%s in the session', async (_case, principal) => {
      const own = bed.session(instructor());
      const { callbackPath } = await approvedCallback(bed, own.cookie);
      // Same session id as the one that started, so only the principal field differs.
      const tampered = bed.session(principal, { sid: own.session.sid });
      expectOAuthError(await callback(callbackPath, tampered.cookie), 'binding-mismatch');
      expect(exchanges()).toBe(0);
    });

    it('other administrator account', async () => {
      const own = bed.session(admin());
      const { callbackPath } = await approvedCallback(bed, own.cookie, { start: '/api/admin/oauth2authorize', lmsUser: 1 });
      expectOAuthError(await callback(callbackPath, bed.session(admin({ accountId: '2' }), { sid: own.session.sid }).cookie), 'binding-mismatch');
      expect(exchanges()).toBe(0);
    });

    it.each([
      ['student state, instructor session', '/api/student-session-authorize', student(), instructor()],
      ['instructor state, student session', '/api/oauth2authorize', instructor(), student()],
      ['instructor state, administrator session', '/api/oauth2authorize', instructor(), admin()],
      ['administrator state, instructor session', '/api/admin/oauth2authorize', admin(), instructor()],
    ])('purpose/role mismatch: %s', async (_case, start, starter, finisher) => {
      const starting = bed.session(starter);
      const { callbackPath } = await approvedCallback(bed, starting.cookie, { start, lmsUser: Number(starter.lmsUserId) });
      expectOAuthError(await callback(callbackPath, bed.session(finisher, { sid: starting.session.sid }).cookie), 'role-mismatch');
      expect(exchanges()).toBe(0);
    });

    it('token user mismatch: the LMS authorized someone else; nothing is stored and the token is revoked', async () => {
      const { cookie } = bed.session(instructor());
      const { callbackPath } = await approvedCallback(bed, cookie, { lmsUser: 7 });
      expectOAuthError(await callback(callbackPath, cookie), 'user-mismatch');
      expect(exchanges()).toBe(1);
      expect(await records()).toHaveLength(0);
      const foreign = [...bed.lms.state.tokens.values()].filter((token) => token.userId === 7);
      expect(foreign).toHaveLength(1);
      expect(foreign[0]!.revokedAt).not.toBeNull();
    });

    it('code refused by the LMS', async () => {
      const { cookie } = bed.session(instructor());
      const start = await bed.t.app.inject({ method: 'GET', url: '/api/oauth2authorize', headers: { cookie } });
      const state = new URL(start.headers.location as string).searchParams.get('state')!;
      expectOAuthError(await callback(`/api/oauth2callback?code=forged-code&state=${state}`, cookie), 'exchange-failed');
      expect(bed.lms.calls.last(TOKEN_ROUTE)!.status).toBe(400);
      expect(await records()).toHaveLength(0);
    });

    it('oversized token response (over 64 KB)', async () => {
      const { cookie } = bed.session(instructor());
      const { callbackPath } = await approvedCallback(bed, cookie);
      bed.lms.faults.oversized(TOKEN_ROUTE, { bytes: 65 * 1024 });
      expectOAuthError(await callback(callbackPath, cookie), 'exchange-failed');
      expect(await records()).toHaveLength(0);
    });

    it('slow token response: gives up at the deadline', async () => {
      const { cookie } = bed.session(instructor());
      const { callbackPath } = await approvedCallback(bed, cookie);
      bed.lms.faults.timeout(TOKEN_ROUTE, { ms: 10_000 });
      const started = Date.now();
      expectOAuthError(await callback(callbackPath, cookie), 'exchange-failed');
      expect(Date.now() - started).toBeLessThan(4_000);
      expect(await records()).toHaveLength(0);
    });
  });

  it('never writes codes, states, tokens or the client secret to the log', async () => {
    const { cookie } = bed.session(instructor());
    const { callbackPath, state } = await approvedCallback(bed, cookie);
    const code = new URL(callbackPath, 'https://x').searchParams.get('code')!;
    await callback(callbackPath, cookie);
    await callback(callbackPath, cookie);
    const logged = bed.logs.join('\n');
    expect(logged.length).toBeGreaterThan(0);
    const token = [...bed.lms.state.tokens.values()].find((record) => record.userId === 2)!;
    for (const secret of [code, state, token.accessToken, token.refreshToken, OAUTH_CLIENT_SECRET]) expect(logged).not.toContain(secret);
  });
});

/**
 * A developer key as the LMS's key editor leaves it, without `url:GET|/api/v1/login/session_token`: the LMS refuses every
 * authorization that asks for it (Canvas `Canvas::OAuth::Provider#valid_scopes?`), and the callback must say which
 * scope an administrator has to add.
 */
describe('GET /api/oauth2callback when the developer key lacks a scope', () => {
  const SESSION_TOKEN_SCOPE = 'url:GET|/api/v1/login/session_token';
  let bed: OAuthTestbed;

  beforeAll(async () => {
    bed = await createOAuthTestbed({
      lms: {
        tool: {
          baseUrl: BASE_URL,
          clientId: '10000000000001',
          deploymentId: DEPLOYMENT_ID,
          oauthClientId: OAUTH_CLIENT_ID,
          oauthClientSecret: OAUTH_CLIENT_SECRET,
          oauthScopes: ADMIN_AND_APPLICATION_SCOPES.filter((scope) => scope !== SESSION_TOKEN_SCOPE),
        },
      },
    });
  });
  afterAll(() => bed?.close());

  /** Starts the authorization and follows it through the LMS, as the popup does, to the callback the LMS redirects to. */
  async function refusedCallback(cookie: string, start = '/api/oauth2authorize', lmsUser = 2) {
    const started = await bed.t.app.inject({ method: 'GET', url: start, headers: { cookie } });
    expect(started.statusCode).toBe(302);
    const answer = await fetch(started.headers.location as string, { headers: { cookie: bed.lms.webSessionCookie(lmsUser) }, redirect: 'manual' });
    const location = new URL(answer.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('invalid_scope');
    return bed.t.app.inject({ method: 'GET', url: `${location.pathname}${location.search}`, headers: { cookie } });
  }

  it('tells an instructor that the developer key lacks the scope, names it, and whom to tell', async () => {
    const { cookie } = bed.session(instructor());
    const response = await refusedCallback(cookie);
    expect(response.statusCode).toBe(400);
    const bootstrap = bootstrapOf(response.body);
    expect(bootstrap).toMatchObject({ view: 'oauth-error', errorCode: 'lms-scope-missing' });
    expect(bootstrap.message).toMatch(/developer key lacks a scope/);
    expect(bootstrap.details).toEqual(
      expect.arrayContaining([
        { label: 'Missing scope', value: SESSION_TOKEN_SCOPE },
        expect.stringMatching(/Tell your LMS administrator/),
        { label: 'LMS error', value: 'invalid_scope' },
      ]),
    );
    expect(bed.lms.calls.count('POST /login/oauth2/token')).toBe(0);
  });

  it('shows an administrator where the procedure to add it is, and the status page keeps the refusal', async () => {
    const { cookie } = bed.session(admin());
    const response = await refusedCallback(cookie, '/api/admin/oauth2authorize', 1);
    const bootstrap = bootstrapOf(response.body);
    expect(bootstrap.errorCode).toBe('lms-scope-missing');
    expect(bootstrap.details).toEqual(
      expect.arrayContaining([
        { label: 'Missing scope', value: SESSION_TOKEN_SCOPE },
        expect.stringContaining(`${BASE_URL}/setup/guide`),
      ]),
    );
    const status = bootstrapOf((await bed.t.app.inject({ method: 'GET', url: '/' })).body);
    expect(status).toMatchObject({ view: 'service-status', lmsRefusal: { error: 'invalid_scope', missingScopes: [SESSION_TOKEN_SCOPE] } });
    expect(Date.parse((status.lmsRefusal as { at: string }).at)).not.toBeNaN();
  });

  it('says it in German too', async () => {
    const { cookie } = bed.session(instructor());
    const started = await bed.t.app.inject({ method: 'GET', url: '/api/oauth2authorize', headers: { cookie } });
    const answer = await fetch(started.headers.location as string, { headers: { cookie: bed.lms.webSessionCookie(2) }, redirect: 'manual' });
    const location = new URL(answer.headers.get('location')!);
    const response = await bed.t.app.inject({
      method: 'GET',
      url: `${location.pathname}${location.search}`,
      headers: { cookie, 'accept-language': 'de-DE,de;q=0.9' },
    });
    const bootstrap = bootstrapOf(response.body);
    expect(bootstrap).toMatchObject({ locale: 'de', errorCode: 'lms-scope-missing' });
    expect(bootstrap.message).toMatch(/Entwicklerschlüssel/);
    expect(bootstrap.details).toEqual(expect.arrayContaining([{ label: 'Fehlender Bereich', value: SESSION_TOKEN_SCOPE }]));
  });

  it('names only scopes the service requests, and a crafted link without a pending state is not recorded', async () => {
    const before = bootstrapOf((await bed.t.app.inject({ method: 'GET', url: '/' })).body).lmsRefusal;
    const description =
      'A requested scope is invalid, unknown, malformed, or exceeds the scope granted by the resource owner. The following scopes were requested, but not granted: url:GET|/api/v1/courses, Call 555-0100, and <b>x</b>';
    const response = await bed.t.app.inject({
      method: 'GET',
      url: `/api/oauth2callback?error=invalid_scope&state=forged&error_description=${encodeURIComponent(description)}`,
    });
    const bootstrap = bootstrapOf(response.body);
    expect(bootstrap.errorCode).toBe('lms-scope-missing');
    const scopes = (bootstrap.details as unknown[]).filter((detail) => typeof detail === 'object' && (detail as { label: string }).label === 'Missing scope');
    expect(scopes).toEqual([{ label: 'Missing scope', value: 'url:GET|/api/v1/courses' }]);
    expect(bootstrapOf((await bed.t.app.inject({ method: 'GET', url: '/' })).body).lmsRefusal).toEqual(before);
  });

  it.each([
    ['unauthorized_client', 'lms-unauthorized-client'],
    ['invalid_request', 'lms-invalid-request'],
    ['unsupported_response_type', 'lms-unsupported-response-type'],
    ['server_error', 'lms-error'],
  ])('recognises the LMS refusal %s', async (error, failure) => {
    const response = await bed.t.app.inject({ method: 'GET', url: `/api/oauth2callback?error=${error}` });
    expect(bootstrapOf(response.body).errorCode).toBe(failure);
  });
});
