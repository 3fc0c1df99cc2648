import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { isBase64UrlToken } from '@exb/shared/base64url-token.js';
import { POPUP_TICKET_PATH } from '@exb/shared/oauth-popup-ticket.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/identity/principal.js';
import { OAuthStateStore, type OAuthState } from '../../src/oauth/state.js';
import { deriveKey } from '../../src/security/derived-keys.js';
import { OneTimeStore } from '../../src/security/one-time-store.js';
import { sha256Hex } from '../../src/security/random-token.js';
import { SESSION_COOKIE_NAME } from '../../src/security/session-cookie.js';
import { bootstrapOf, createOAuthTestbed, LMS_URL, type OAuthTestbed } from '../support/oauth-testbed.js';
import { admin, instructor, student } from '../support/sessions.js';

type Start = 'oauth2authorize' | 'oauth2reauthorize' | 'student-session-authorize' | 'admin/oauth2authorize';

const STARTS: [Start, Principal, Principal[]][] = [
  ['oauth2authorize', instructor(), [student(), admin()]],
  ['oauth2reauthorize', instructor(), [student(), admin()]],
  ['student-session-authorize', student(), [instructor(), admin()]],
  ['admin/oauth2authorize', admin(), [instructor(), student()]],
];

/** What a browser sends when the tool window's script navigates its own popup to the start. */
const POPUP_NAVIGATION = { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };

interface Response {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  json(): any;
}

describe('OAuth popup tickets', () => {
  let bed: OAuthTestbed;
  let states: OAuthStateStore;

  beforeAll(async () => {
    bed = await createOAuthTestbed();
    states = new OAuthStateStore(new OneTimeStore(bed.t.db.pool, deriveKey(bed.t.config.secrets.appSecret, 'one-time-store')));
  });
  afterAll(() => bed?.close());
  beforeEach(async () => {
    bed.lms.reset();
    bed.logs.length = 0;
    await sql('delete from lms_oauth_token');
  });

  function sql<T = unknown>(query: string, params: unknown[] = []): Promise<T> {
    return bed.t.db.orm.em.getConnection().execute(query, params) as Promise<T>;
  }

  function mint(cookie: string | undefined, payload: unknown, headers: Record<string, string> = { 'sec-fetch-site': 'same-origin' }): Promise<Response> {
    return bed.t.app.inject({
      method: 'POST',
      url: POPUP_TICKET_PATH,
      // JSON, as the tool's pages send it; without a payload the body is empty.
      headers: { ...(cookie ? { cookie } : {}), 'content-type': 'application/json', ...headers },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  }

  async function ticketRows(): Promise<number> {
    const [row] = await sql<{ count: number }[]>("select count(*)::int as count from one_time_token where purpose = 'oauth-popup-ticket'");
    return row!.count;
  }

  async function ticketFor(cookie: string, start: Start): Promise<string> {
    const response = await mint(cookie, { start });
    expect(response.statusCode).toBe(200);
    return response.json().ticket as string;
  }

  function open(start: Start, query: string, headers: Record<string, string> = POPUP_NAVIGATION): Promise<Response> {
    return bed.t.app.inject({ method: 'GET', url: `/api/${start}?${query}`, headers });
  }

  async function stateOf(response: Response): Promise<OAuthState> {
    expect(response.statusCode).toBe(302);
    const location = new URL(response.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe(`${LMS_URL}/login/oauth2/auth`);
    const state = await states.peek(location.searchParams.get('state')!);
    expect(state).not.toBeNull();
    return state!;
  }

  /** The session cookie the response sets, as the browser sends it back. */
  function sessionCookieOf(response: Response): string {
    const setCookie = ([] as string[]).concat((response.headers['set-cookie'] as string | string[] | undefined) ?? []);
    const session = setCookie.find((cookie) => cookie.startsWith(`${SESSION_COOKIE_NAME}=`));
    expect(session).toBeDefined();
    return session!.split(';', 1)[0]!;
  }

  describe('POST /api/oauth2/popup-ticket', () => {
    it.each(STARTS)('mints a one-time ticket for %s, valid for 60 seconds and never cached', async (start, principal) => {
      const { cookie } = bed.session(principal);
      const response = await mint(cookie, { start });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const body = response.json();
      expect(body).toEqual({ success: true, ticket: expect.any(String), expiresInSeconds: 60 });
      expect(body.ticket).toHaveLength(43);
      expect(isBase64UrlToken(body.ticket)).toBe(true);
      const [row] = await sql<{ seconds: number; id: string }[]>(
        "select extract(epoch from expires_at - created_at)::int as seconds, id from one_time_token where purpose = 'oauth-popup-ticket' order by created_at desc limit 1",
      );
      expect(row!.seconds).toBeGreaterThanOrEqual(59);
      expect(row!.seconds).toBeLessThanOrEqual(61);
      // The store keeps only the ticket's hash.
      expect(row!.id).toBe(sha256Hex(body.ticket));
    });

    it('without Fetch Metadata (older browsers, scripts) accepts only the service’s own Origin', async () => {
      const { cookie } = bed.session(instructor());
      expect((await mint(cookie, { start: 'oauth2authorize' }, { origin: bed.t.config.baseUrl })).statusCode).toBe(200);
      for (const headers of [{}, { origin: 'https://evil.example.test' }] as Record<string, string>[]) {
        const refused = await mint(cookie, { start: 'oauth2authorize' }, headers);
        expect(refused.statusCode).toBe(403);
        expect(refused.json()).toMatchObject({ error_code: 'CROSS_SITE_REQUEST' });
      }
    });

    it('answers 415 to a form post from the tool itself', async () => {
      const { cookie } = bed.session(instructor());
      const before = await ticketRows();
      const response = await bed.t.app.inject({
        method: 'POST',
        url: POPUP_TICKET_PATH,
        headers: { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'start=oauth2authorize',
      });
      expect(response.statusCode).toBe(415);
      expect(await ticketRows()).toBe(before);
    });

    it('answers 401 without a session', async () => {
      const response = await mint(undefined, { start: 'oauth2authorize' });
      expect(response.statusCode).toBe(401);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.json()).toMatchObject({ success: false, error_code: 'LTI_PRINCIPAL_REQUIRED' });
    });

    it.each(STARTS.flatMap(([start, , others]) => others.map((other) => [start, other.kind, other] as const)))(
      'refuses a ticket for %s to the principal kind %s with 403, as the start itself does',
      async (start, _kind, principal) => {
        const { cookie } = bed.session(principal);
        const response = await mint(cookie, { start });
        expect(response.statusCode).toBe(403);
        expect(response.headers['cache-control']).toBe('no-store');
        expect(response.json()).toMatchObject({ error_code: 'OAUTH_ROLE_MISMATCH' });
        expect(response.json().ticket).toBeUndefined();
      },
    );

    it.each(['cross-site', 'same-site', 'none'])('answers 403 to sec-fetch-site %s before anything else', async (site) => {
      const { cookie } = bed.session(instructor());
      const before = await ticketRows();
      for (const session of [cookie, undefined]) {
        const response = await mint(session, { start: 'oauth2authorize' }, { 'sec-fetch-site': site });
        expect(response.statusCode).toBe(403);
        expect(response.headers['cache-control']).toBe('no-store');
        expect(response.json()).toMatchObject({ success: false, error_code: 'CROSS_SITE_REQUEST' });
      }
      expect(await ticketRows()).toBe(before);
    });

    it.each([
      ['no body', undefined],
      ['an unknown start', { start: 'oauth2callback' }],
      ['a start path instead of its name', { start: '/api/oauth2authorize' }],
      ['an extra field', { start: 'oauth2authorize', course_id: '101' }],
      ['an array', [{ start: 'oauth2authorize' }]],
      ['a non-string start', { start: 1 }],
    ])('answers 400 to %s', async (_label, payload) => {
      const { cookie } = bed.session(instructor());
      const response = await mint(cookie, payload);
      expect(response.statusCode).toBe(400);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.json()).toMatchObject({ success: false, error_code: 'INVALID_REQUEST' });
    });
  });

  describe('authorization start with a ticket', () => {
    it.each(STARTS)(
      '%s: a cookie-less popup gets the tool window\'s session and a state bound to that session\'s hash',
      async (start, principal) => {
        const iframe = bed.session(principal, { launchTarget: principal.kind === 'student' ? '/exb/launch/classicquiz_204' : '/lti/launch' });
        const ticket = await ticketFor(iframe.cookie, start);

        const response = await open(start, `ticket=${ticket}`);
        const state = await stateOf(response);
        expect(response.headers['cache-control']).toBe('no-store');
        expect(response.headers['referrer-policy']).toBe('no-referrer');
        expect(state.sessionHash).toBe(sha256Hex(iframe.session.sid));
        expect(state.lmsUserId).toBe(principal.lmsUserId);
        if (principal.kind === 'student') expect(state.redirectUrl).toBe('/exb/launch/classicquiz_204?connected=1');

        // The popup now holds the same session in its own (unpartitioned) cookie: a start without a ticket works
        // there and binds to the same hash again.
        const setCookie = ([] as string[]).concat(response.headers['set-cookie'] as string | string[]);
        const attributes = setCookie.find((cookie) => cookie.startsWith(`${SESSION_COOKIE_NAME}=`))!.split('; ').slice(1);
        expect(attributes).toEqual(expect.arrayContaining(['HttpOnly', 'Secure', 'Partitioned', 'SameSite=None']));
        const popupCookie = sessionCookieOf(response);
        expect(popupCookie).not.toBe(iframe.cookie);
        const again = await open(start, '', { cookie: popupCookie, ...POPUP_NAVIGATION });
        expect((await stateOf(again)).sessionHash).toBe(sha256Hex(iframe.session.sid));
      },
    );

    it('still applies the start\'s own checks after the ticket established the session', async () => {
      const { cookie } = bed.session(instructor());
      const foreignCourse = await open('oauth2authorize', `ticket=${await ticketFor(cookie, 'oauth2authorize')}&course_id=102`);
      expect(foreignCourse.statusCode).toBe(403);
      expect(foreignCourse.json()).toMatchObject({ error_code: 'OAUTH_COURSE_MISMATCH' });

      const unsafeRedirect = await open('oauth2authorize', `ticket=${await ticketFor(cookie, 'oauth2authorize')}&redirect_url=${encodeURIComponent('//attacker.example')}`);
      expect((await stateOf(unsafeRedirect)).redirectUrl).toBe('/lti/launch');
    });

    it('is single use: a second use answers 401 like no session', async () => {
      const { cookie } = bed.session(instructor());
      const ticket = await ticketFor(cookie, 'oauth2authorize');
      expect((await open('oauth2authorize', `ticket=${ticket}`)).statusCode).toBe(302);
      const replay = await open('oauth2authorize', `ticket=${ticket}`);
      expect(replay.statusCode).toBe(401);
      expect(replay.json()).toMatchObject({ error_code: 'LTI_PRINCIPAL_REQUIRED' });
      expect(replay.headers['set-cookie']).toBeUndefined();
    });

    it('of 8 parallel uses, exactly one starts the authorization, across two instances', async () => {
      const { cookie } = bed.session(student());
      const ticket = await ticketFor(cookie, 'student-session-authorize');
      const responses = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (i % 2 === 0 ? bed.t.app : bed.second).inject({ method: 'GET', url: `/api/student-session-authorize?ticket=${ticket}`, headers: POPUP_NAVIGATION }),
        ),
      );
      expect(responses.map((response) => response.statusCode).sort()).toEqual([302, 401, 401, 401, 401, 401, 401, 401]);
      expect(responses.filter((response) => response.headers['set-cookie'] !== undefined)).toHaveLength(1);
    });

    it('expires after 60 seconds', async () => {
      const { cookie } = bed.session(instructor());
      const ticket = await ticketFor(cookie, 'oauth2authorize');
      const fresh = await ticketFor(cookie, 'oauth2authorize');
      // Time passes for the stored tickets: 50 seconds for one, 60 for the other.
      await sql("update one_time_token set expires_at = expires_at - interval '60 seconds' where id = ?", [sha256Hex(ticket)]);
      await sql("update one_time_token set expires_at = expires_at - interval '50 seconds' where id = ?", [sha256Hex(fresh)]);
      const expired = await open('oauth2authorize', `ticket=${ticket}`);
      expect(expired.statusCode).toBe(401);
      expect(expired.json()).toMatchObject({ error_code: 'LTI_PRINCIPAL_REQUIRED' });
      expect((await open('oauth2authorize', `ticket=${fresh}`)).statusCode).toBe(302);
    });

    it('refuses a ticket issued for another start, and that spends it', async () => {
      const { cookie } = bed.session(instructor());
      const ticket = await ticketFor(cookie, 'oauth2authorize');
      expect((await open('oauth2reauthorize', `ticket=${ticket}`)).statusCode).toBe(401);
      expect((await open('oauth2authorize', `ticket=${ticket}`)).statusCode).toBe(401);

      const adminTicket = await ticketFor(bed.session(admin()).cookie, 'admin/oauth2authorize');
      expect((await open('oauth2authorize', `ticket=${adminTicket}`)).statusCode).toBe(401);
    });

    it('answers an unusable ticket with the no-session 401 even when a valid session cookie came along', async () => {
      const { cookie } = bed.session(instructor());
      for (const query of ['ticket=', `ticket=${'A'.repeat(43)}`, 'ticket=not-a-ticket', `ticket=${'A'.repeat(42)}B`, 'ticket=a&ticket=b']) {
        const response = await open('oauth2authorize', query, { cookie, ...POPUP_NAVIGATION });
        expect(response.statusCode, query).toBe(401);
        expect(response.json()).toMatchObject({ error_code: 'LTI_PRINCIPAL_REQUIRED' });
      }
      const page = await open('oauth2authorize', `ticket=${'A'.repeat(43)}`, { ...POPUP_NAVIGATION, accept: 'text/html' });
      expect(page.statusCode).toBe(401);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.body).toContain('Open the tool from the LMS first');
    });

    it('keeps the Fetch Metadata guard first: a cross-site navigation with a ticket gets 403 and leaves the ticket unused', async () => {
      const { cookie } = bed.session(instructor());
      const ticket = await ticketFor(cookie, 'oauth2authorize');
      for (const site of ['cross-site', 'same-site', 'none']) {
        const response = await open('oauth2authorize', `ticket=${ticket}`, { 'sec-fetch-site': site });
        expect(response.statusCode).toBe(403);
        expect(response.json()).toMatchObject({ error_code: 'CROSS_SITE_AUTHORIZATION_START' });
      }
      expect((await open('oauth2authorize', `ticket=${ticket}`)).statusCode).toBe(302);
    });

    it('honours a ticket only on a request marked same-origin, so it cannot plant a session through an unmarked one', async () => {
      const { cookie } = bed.session(instructor());
      const ticket = await ticketFor(cookie, 'oauth2authorize');
      const unmarked = await open('oauth2authorize', `ticket=${ticket}`, {});
      expect(unmarked.statusCode).toBe(401);
      expect(unmarked.headers['set-cookie']).toBeUndefined();
      // Not consumed by the refused request.
      expect((await open('oauth2authorize', `ticket=${ticket}`)).statusCode).toBe(302);
    });

    it('replaces another session the popup held, and keeps its own copy of the same session', async () => {
      const iframe = bed.session(instructor());
      const other = bed.session(instructor({ courseId: '102' }));
      const replaced = await open('oauth2authorize', `ticket=${await ticketFor(iframe.cookie, 'oauth2authorize')}`, {
        cookie: other.cookie,
        ...POPUP_NAVIGATION,
      });
      expect((await stateOf(replaced)).sessionHash).toBe(sha256Hex(iframe.session.sid));
      expect(replaced.headers['set-cookie']).toBeDefined();

      // A shared cookie jar (local development): the popup already holds this session, nothing is rewritten.
      const shared = await open('oauth2authorize', `ticket=${await ticketFor(iframe.cookie, 'oauth2authorize')}`, {
        cookie: iframe.cookie,
        ...POPUP_NAVIGATION,
      });
      expect((await stateOf(shared)).sessionHash).toBe(sha256Hex(iframe.session.sid));
      expect(shared.headers['set-cookie']).toBeUndefined();
    });
  });

  describe('the whole popup flow', () => {
    async function approveInLms(start: Response, lmsUser: number): Promise<string> {
      const location = new URL(start.headers.location as string);
      const approval = bed.lms.oauth.approve({
        user: lmsUser,
        scopes: location.searchParams.get('scope')!.split(' '),
        state: location.searchParams.get('state')!,
        redirectUri: location.searchParams.get('redirect_uri')!,
        clientId: location.searchParams.get('client_id')!,
      });
      const callback = new URL(approval.redirectUrl);
      return `${callback.pathname}${callback.search}`;
    }

    it('instructor: the callback completes in the ticket-established session and the tool window sees the grant', async () => {
      const iframe = bed.session(instructor());
      const ticket = await ticketFor(iframe.cookie, 'oauth2reauthorize');
      const start = await open('oauth2reauthorize', `ticket=${ticket}`);
      const popupCookie = sessionCookieOf(start);
      const callbackPath = await approveInLms(start, 2);

      // The LMS redirects the popup back; a popup without the handed-over session could not complete.
      const withoutSession = await bed.t.app.inject({ method: 'GET', url: callbackPath });
      expect(withoutSession.statusCode).toBe(400);
      expect(bootstrapOf(withoutSession.body)).toMatchObject({ view: 'oauth-error', errorCode: 'no-principal' });

      const callback = await bed.t.app.inject({ method: 'GET', url: callbackPath, headers: { cookie: popupCookie } });
      expect(callback.statusCode).toBe(200);
      expect(bootstrapOf(callback.body)).toEqual({ locale: 'en', view: 'lms-oauth-connected', lmsReturnUrl: `${LMS_URL}/courses/101`, redirectUrl: '/lti/launch' });
      const rows = await sql<{ lms_user_id: string; scopes: string[] }[]>('select lms_user_id, scopes from lms_oauth_token');
      expect(rows).toEqual([{ lms_user_id: '2', scopes: [...APPLICATION_SCOPES] }]);

      // The tool window, still on its own cookie, now reads the grant.
      const status = await bed.t.app.inject({ method: 'GET', url: '/api/oauth2status', headers: { cookie: iframe.cookie } });
      expect(status.json()).toEqual({ authorized: true });

      // Neither the ticket nor the sealed session it carried reached a log line.
      const logged = bed.logs.join('\n');
      expect(logged).not.toContain(ticket);
      expect(logged).not.toContain(popupCookie.slice(SESSION_COOKIE_NAME.length + 1, SESSION_COOKIE_NAME.length + 41));
    });

    it('student: the completion returns to the signed launch target of the tool window\'s session', async () => {
      const iframe = bed.session(student(), { launchTarget: '/exb/launch/newquiz:101:301' });
      const start = await open('student-session-authorize', `ticket=${await ticketFor(iframe.cookie, 'student-session-authorize')}`);
      const callback = await bed.t.app.inject({ method: 'GET', url: await approveInLms(start, 3), headers: { cookie: sessionCookieOf(start) } });
      expect(callback.statusCode).toBe(200);
      expect(bootstrapOf(callback.body)).toEqual({ locale: 'en', view: 'student-session-connected', returnUrl: '/exb/launch/newquiz:101:301?connected=1' });
    });

    it('administrator: the callback in the popup stores the account grant', async () => {
      const iframe = bed.session(admin());
      const start = await open('admin/oauth2authorize', `ticket=${await ticketFor(iframe.cookie, 'admin/oauth2authorize')}`);
      const callback = await bed.t.app.inject({ method: 'GET', url: await approveInLms(start, 1), headers: { cookie: sessionCookieOf(start) } });
      expect(callback.statusCode).toBe(200);
      expect(bootstrapOf(callback.body)).toMatchObject({ view: 'lms-oauth-connected', lmsReturnUrl: `${LMS_URL}/accounts/1` });
      expect(await sql('select lms_user_id, grant_type, account_id from lms_oauth_token')).toEqual([
        { lms_user_id: '1', grant_type: 'account_admin', account_id: '1' },
      ]);
    });

    it('a popup session from a ticket cannot complete a state started in another session', async () => {
      const iframe = bed.session(instructor());
      const other = bed.session(instructor());
      const start = await open('oauth2authorize', `ticket=${await ticketFor(other.cookie, 'oauth2authorize')}`);
      const callbackPath = await approveInLms(start, 2);
      const callback = await bed.t.app.inject({ method: 'GET', url: callbackPath, headers: { cookie: iframe.cookie } });
      expect(callback.statusCode).toBe(400);
      expect(bootstrapOf(callback.body)).toMatchObject({ errorCode: 'binding-mismatch' });
    });
  });
});
