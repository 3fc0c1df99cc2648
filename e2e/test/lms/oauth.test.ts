import { describe, expect, it } from 'vitest';
import { ADMIN_SCOPES, APPLICATION_SCOPES } from '../../src/lms/index.js';
import { api, TOOL, useInProcessLms } from './helpers.js';

const { lms } = useInProcessLms();
const REDIRECT_URI = `${TOOL.baseUrl}/api/oauth2callback`;

async function token(form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${lms.baseUrl}/login/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });
}

function codeGrant(code: string, overrides: Record<string, string> = {}) {
  return token({
    grant_type: 'authorization_code',
    client_id: TOOL.oauthClientId,
    client_secret: TOOL.oauthClientSecret,
    redirect_uri: REDIRECT_URI,
    code,
    ...overrides,
  });
}

function authUrl(params: Record<string, string>): string {
  return `${lms.baseUrl}/login/oauth2/auth?${new URLSearchParams({
    client_id: TOOL.oauthClientId,
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    state: 'state-123',
    scope: APPLICATION_SCOPES.join(' '),
    ...params,
  })}`;
}

describe('authorization endpoint', () => {
  it('sends a browser without an LMS session to log in first', async () => {
    const response = await fetch(authUrl({}), { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toMatch(/^\/login\?return_to=%2Flogin%2Foauth2%2Fauth/);
  });

  it('shows an approval page whose Authorize button redirects back with a code and the state', async () => {
    const cookie = lms.webSessionCookie('instructor');
    const page = await fetch(authUrl({}), { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('id="oauth2_accept"');
    const requestId = /name="request_id" value="([^"]+)"/.exec(html)![1]!;
    const csrf = /name="authenticity_token" value="([^"]+)"/.exec(html)![1]!;
    const accept = await fetch(`${lms.baseUrl}/login/oauth2/accept`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ request_id: requestId, authenticity_token: csrf }),
      redirect: 'manual',
    });
    expect(accept.status).toBe(302);
    const location = new URL(accept.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(location.searchParams.get('state')).toBe('state-123');
    const exchanged = await codeGrant(location.searchParams.get('code')!);
    expect(((await exchanged.json()) as { user: { id: number } }).user.id).toBe(2);
  });

  it('redirects a refusal back as access_denied', async () => {
    const cookie = lms.webSessionCookie('instructor');
    const html = await (await fetch(authUrl({}), { headers: { cookie } })).text();
    const requestId = /name="request_id" value="([^"]+)"/.exec(html)![1]!;
    const csrf = /name="authenticity_token" value="([^"]+)"/.exec(html)![1]!;
    const deny = await fetch(`${lms.baseUrl}/login/oauth2/deny`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ request_id: requestId, authenticity_token: csrf }),
      redirect: 'manual',
    });
    expect(deny.headers.get('location')).toBe(`${REDIRECT_URI}?error=access_denied&state=state-123`);
  });

  it('rejects an unknown client or a foreign redirect URI without redirecting', async () => {
    const unknown = await fetch(authUrl({ client_id: '999' }), { redirect: 'manual' });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual({ error: 'invalid_client', error_description: 'unknown client' });
    const foreign = await fetch(authUrl({ redirect_uri: 'https://evil.example/cb' }), { redirect: 'manual' });
    expect(foreign.status).toBe(400);
    expect(await foreign.json()).toEqual({ error: 'invalid_request', error_description: 'redirect_uri does not match client settings' });
  });

  it('redirects scope problems back as invalid_scope', async () => {
    const none = await fetch(authUrl({ scope: '' }), { redirect: 'manual' });
    expect(new URL(none.headers.get('location')!).searchParams.get('error')).toBe('invalid_scope');
    const extra = await fetch(authUrl({ scope: 'url:DELETE|/api/v1/courses/:id' }), { redirect: 'manual' });
    const location = new URL(extra.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('invalid_scope');
    expect(location.searchParams.get('error_description')).toContain('url:DELETE|/api/v1/courses/:id');
  });
});

describe('token endpoint', () => {
  it('exchanges a code once, with the LMS response shape', async () => {
    const { code } = lms.oauth.approve({ user: 'instructor', scopes: ADMIN_SCOPES, state: 's' });
    const response = await codeGrant(code);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['access_token', 'token_type', 'user', 'canvas_region', 'refresh_token', 'expires_in']);
    expect(body).toMatchObject({
      token_type: 'Bearer',
      user: { id: 2, name: 'Ian Instructor', global_id: '10000000000002', effective_locale: 'en' },
      expires_in: 3600,
    });
    expect(typeof (body.user as { id: unknown }).id).toBe('number');
    expect(body.access_token).toMatch(/^1~/);

    const again = await codeGrant(code);
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({ error: 'invalid_grant', error_description: 'authorization_code not found' });
  });

  it('grants the approved scopes only', async () => {
    const { code } = lms.oauth.approve({ user: 'administrator', scopes: APPLICATION_SCOPES });
    const body = (await (await codeGrant(code)).json()) as { access_token: string };
    expect((await api(lms, body.access_token, '/api/v1/courses')).status).toBe(200);
    expect((await api(lms, body.access_token, '/api/v1/accounts/self')).status).toBe(401);
  });

  it('lets a code expire after ten minutes', async () => {
    const { code } = lms.oauth.approve({ user: 'instructor' });
    lms.clock.advance(10 * 60 * 1000 + 1);
    expect(await (await codeGrant(code)).json()).toEqual({ error: 'invalid_grant', error_description: 'authorization_code not found' });
  });

  it('answers client errors with 401 and the OAuth challenge', async () => {
    const { code } = lms.oauth.approve({ user: 'instructor' });
    const wrongSecret = await codeGrant(code, { client_secret: 'nope' });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.headers.get('www-authenticate')).toBe('Canvas OAuth 2.0');
    expect(await wrongSecret.json()).toEqual({ error: 'invalid_client', error_description: 'invalid client' });
    const unknown = await codeGrant(code, { client_id: '42' });
    expect(await unknown.json()).toEqual({ error: 'invalid_client', error_description: 'unknown client' });
  });

  it('accepts client credentials by HTTP Basic', async () => {
    const { code } = lms.oauth.approve({ user: 'instructor' });
    const response = await token(
      { grant_type: 'authorization_code', redirect_uri: REDIRECT_URI, code },
      { authorization: `Basic ${Buffer.from(`${TOOL.oauthClientId}:${TOOL.oauthClientSecret}`).toString('base64')}` },
    );
    expect(response.status).toBe(200);
  });

  it('answers the LMS error bodies for bad requests', async () => {
    const base = { client_id: TOOL.oauthClientId, client_secret: TOOL.oauthClientSecret };
    expect(await (await token({ ...base, grant_type: 'authorization_code', redirect_uri: REDIRECT_URI })).json()).toEqual({
      error: 'invalid_request',
      error_description: 'You must provide the code parameter when using the authorization_code grant type',
    });
    expect(await (await token({ ...base, grant_type: 'authorization_code', redirect_uri: 'http://127.0.0.1:3000/other', code: 'x' })).json()).toEqual({
      error: 'invalid_request',
      error_description: 'redirect_uri does not match client settings',
    });
    expect(await (await token({ ...base, grant_type: 'refresh_token' })).json()).toEqual({
      error: 'invalid_request',
      error_description: 'You must provide the refresh_token parameter when using the refresh_token grant type',
    });
    expect(await (await token({ ...base, grant_type: 'refresh_token', refresh_token: 'unknown' })).json()).toEqual({
      error: 'invalid_request',
      error_description: 'refresh_token not found',
    });
    const unsupported = await token({ ...base, grant_type: 'password' });
    expect(unsupported.status).toBe(400);
    expect(await unsupported.json()).toEqual({
      error: 'unsupported_grant_type',
      error_description: 'The grant_type you requested is not currently supported',
    });
  });

  it('refreshes by regenerating the access token, without a new refresh token', async () => {
    const { code } = lms.oauth.approve({ user: 'instructor' });
    const first = (await (await codeGrant(code)).json()) as { access_token: string; refresh_token: string };
    lms.clock.advance(3601_000);
    expect((await api(lms, first.access_token, '/api/v1/courses')).status).toBe(401);

    const refreshed = await token({
      grant_type: 'refresh_token',
      client_id: TOOL.oauthClientId,
      client_secret: TOOL.oauthClientSecret,
      refresh_token: first.refresh_token,
    });
    const body = (await refreshed.json()) as Record<string, unknown>;
    expect(body).not.toHaveProperty('refresh_token');
    expect(body).toMatchObject({ token_type: 'Bearer', user: { id: 2 }, expires_in: 3600 });
    expect(body.access_token).not.toBe(first.access_token);
    expect((await api(lms, body.access_token as string, '/api/v1/courses')).status).toBe(200);
    const old = await api(lms, first.access_token, '/api/v1/courses');
    expect(await old.json()).toEqual({ errors: [{ message: 'Invalid access token.' }] });
  });

  it('revokes a token on DELETE, after which its refresh token is gone too', async () => {
    const issued = lms.oauth.issueToken({ user: 'instructor' });
    const response = await fetch(`${lms.baseUrl}/login/oauth2/token`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${issued.record.accessToken}` },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({});
    expect(await (await api(lms, issued.record.accessToken, '/api/v1/courses')).json()).toEqual({
      errors: [{ message: 'Revoked access token.' }],
    });
    const refresh = await token({
      grant_type: 'refresh_token',
      client_id: TOOL.oauthClientId,
      client_secret: TOOL.oauthClientSecret,
      refresh_token: issued.record.refreshToken,
    });
    expect(await refresh.json()).toEqual({ error: 'invalid_request', error_description: 'refresh_token not found' });
    const anonymous = await fetch(`${lms.baseUrl}/login/oauth2/token`, { method: 'DELETE' });
    expect(anonymous.status).toBe(400);
  });

  it('issues non-expiring tokens when asked', async () => {
    const issued = lms.oauth.issueToken({ userId: 2, expiresIn: null });
    expect(issued.response).not.toHaveProperty('expires_in');
    lms.clock.advance(365 * 24 * 3600 * 1000);
    expect((await api(lms, issued.record.accessToken, '/api/v1/courses')).status).toBe(200);
  });
});
