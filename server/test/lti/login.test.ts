import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_STATE_PURPOSE, loginStateSchema } from '../../src/lti/login-state.js';
import {
  authorize,
  Browser,
  CLIENT_ID,
  createHarness,
  DEPLOYMENT_ID,
  ISSUER,
  LMS,
  login,
  outcomeOf,
  postLaunch,
  TOOL,
  type Harness,
} from './launch-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const params = (overrides: Record<string, string | undefined> = {}): Record<string, string> => {
  const base: Record<string, string | undefined> = {
    iss: ISSUER,
    login_hint: '535fa085f22b4655f48cd5a36a9215f64c062838',
    target_link_uri: `${TOOL}/lti/launch`,
    client_id: CLIENT_ID,
    lti_deployment_id: DEPLOYMENT_ID,
    lti_message_hint: 'eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJ2ZXJpZmllciI6IngifQ.c2ln',
    canvas_environment: 'prod',
    // Without `lti_storage_target`: a platform without platform storage (its login: `platform-storage.test.ts`).
    ...overrides,
  };
  return Object.fromEntries(Object.entries(base).filter((entry): entry is [string, string] => entry[1] !== undefined));
};

describe('GET and POST /lti/login', () => {
  it.each(['GET', 'POST'] as const)('%s redirects to the LMS authorization endpoint with every parameter', async (method) => {
    const browser = new Browser();
    const { response, location } = await login(h, browser, params(), { method });
    expect(response.statusCode).toBe(302);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(`${location.origin}${location.pathname}`).toBe(`${LMS}/api/lti/authorize_redirect`);
    const query = Object.fromEntries(location.searchParams);
    expect(query).toEqual({
      scope: 'openid',
      response_type: 'id_token',
      response_mode: 'form_post',
      prompt: 'none',
      client_id: CLIENT_ID,
      redirect_uri: `${TOOL}/lti/launch`,
      login_hint: params().login_hint,
      lti_message_hint: params().lti_message_hint,
      nonce: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
  });

  it('sets a short-lived HttpOnly, Secure transaction cookie fit for the LMS frame', async () => {
    const browser = new Browser();
    const { response } = await login(h, browser, params());
    const setCookie = String(response.headers['set-cookie']);
    expect(setCookie).toMatch(/^exb_lti_tx_[A-Za-z0-9_-]{16}=[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}\.[0-9a-z]{1,12};/);
    expect(setCookie).toContain('Max-Age=600');
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('Secure');
    expect(setCookie).toContain('SameSite=None');
    expect(setCookie).toContain('Partitioned');
    expect(setCookie).toContain('Path=/');
  });

  it('keeps at most four transaction cookies: each new login clears the oldest abandoned ones', async () => {
    const browser = new Browser();
    const logins = [];
    for (let i = 0; i < 10; i += 1) {
      const launch = h.lms.platform.buildLaunch({ person: 'instructor', placement: 'course_navigation', courseId: 101 });
      logins.push(await login(h, browser, launch.loginParams));
      expect(browser.transactionCookies().length).toBe(Math.min(i + 1, 4));
    }
    const cleared = String(logins[9]!.response.headers['set-cookie']);
    expect(cleared).toMatch(/exb_lti_tx_[A-Za-z0-9_-]{16}=; .*Max-Age=0|Expires=Thu, 01 Jan 1970/);
    expect(cleared).toContain('Partitioned');
    // The newest logins still launch; the oldest lost their cookie.
    const newest = await postLaunch(h, browser, await authorize(h, logins[9]!.location, 'instructor'));
    expect(newest.statusCode).toBe(200);
    const oldest = await postLaunch(h, browser, await authorize(h, logins[0]!.location, 'instructor'));
    expect(outcomeOf(oldest)).toBe('LTI_LAUNCH_TRANSACTION_MISSING');
  });

  it('stores the login state encrypted for ten minutes, with a fresh nonce each time', async () => {
    const browser = new Browser();
    const first = await login(h, browser, params());
    const second = await login(h, browser, params());
    expect(first.nonce).not.toBe(second.nonce);
    const stored = loginStateSchema.parse(await h.states.peek(LOGIN_STATE_PURPOSE, first.state));
    expect(stored).toMatchObject({ nonce: first.nonce, target: '/lti/launch', issuer: ISSUER, deploymentId: DEPLOYMENT_ID });
    const rows = await h.t.db.orm.em
      .getConnection()
      .execute<{ payload: Buffer; ttl: number }[]>(
        `select payload, extract(epoch from (expires_at - created_at)) as ttl from one_time_token where purpose = ? order by created_at desc limit 1`,
        [LOGIN_STATE_PURPOSE],
      );
    expect(Math.round(Number(rows[0]!.ttl))).toBe(600);
    expect(rows[0]!.payload.toString('latin1')).not.toContain(first.nonce);
  });

  it('normalizes GET and POST identically: the same parameters give the same redirect', async () => {
    const viaGet = await login(h, new Browser(), params(), { method: 'GET' });
    const viaPost = await login(h, new Browser(), params(), { method: 'POST' });
    const strip = (url: URL) => {
      const copy = new URL(url);
      copy.searchParams.delete('state');
      copy.searchParams.delete('nonce');
      return copy.toString();
    };
    expect(strip(viaGet.location)).toBe(strip(viaPost.location));
  });

  it('accepts the older deployment_id parameter name', async () => {
    const { response } = await login(h, new Browser(), params({ lti_deployment_id: undefined, deployment_id: DEPLOYMENT_ID }));
    expect(response.statusCode).toBe(302);
  });

  it('accepts a login without client_id', async () => {
    expect((await login(h, new Browser(), params({ client_id: undefined }))).response.statusCode).toBe(302);
  });

  it.each([
    ['a missing iss', { iss: undefined }, 'LTI_LOGIN_INVALID_REQUEST'],
    ['a missing login_hint', { login_hint: undefined }, 'LTI_LOGIN_INVALID_REQUEST'],
    ['a missing target_link_uri', { target_link_uri: undefined }, 'LTI_LOGIN_INVALID_REQUEST'],
    ['an lti_message_hint over 8192 characters', { lti_message_hint: 'x'.repeat(8193) }, 'LTI_LOGIN_INVALID_REQUEST'],
    ['a target_link_uri over 2048 characters', { target_link_uri: `${TOOL}/lti/launch`.padEnd(2049, 'x') }, 'LTI_LOGIN_INVALID_REQUEST'],
    ['a foreign issuer', { iss: 'https://evil.example.test' }, 'LTI_LOGIN_ISSUER'],
    ['another client id', { client_id: '10000000000099' }, 'LTI_LOGIN_CLIENT_ID'],
    ['a target on another origin', { target_link_uri: 'https://evil.example.test/lti/launch' }, 'LTI_LOGIN_TARGET'],
    ['a target on another path', { target_link_uri: `${TOOL}/api/oauth2callback` }, 'LTI_LOGIN_TARGET'],
    ['an unknown deployment id', { lti_deployment_id: '9:unknown' }, 'LTI_LOGIN_DEPLOYMENT'],
    ['no deployment id', { lti_deployment_id: undefined }, 'LTI_LOGIN_DEPLOYMENT'],
  ])('refuses %s with 400 and no cookie or state', async (_name, overrides, code) => {
    const browser = new Browser();
    const before = await h.t.db.orm.em.getConnection().execute<{ n: string }[]>('select count(*) as n from one_time_token');
    const { response } = await login(h, browser, params(overrides));
    expect(response.statusCode).toBe(400);
    expect(outcomeOf(response)).toBe(code);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(browser.transactionCookies()).toEqual([]);
    const after = await h.t.db.orm.em.getConnection().execute<{ n: string }[]>('select count(*) as n from one_time_token');
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it('forwards lti_message_hint and login_hint byte for byte', async () => {
    const hint = 'a+b/c=d&e?f%20g ü';
    const { location } = await login(h, new Browser(), params({ lti_message_hint: hint, login_hint: hint }));
    expect(location.searchParams.get('lti_message_hint')).toBe(hint);
    expect(location.searchParams.get('login_hint')).toBe(hint);
  });
});

describe('deployment id checking disabled', () => {
  let off: Harness;
  beforeAll(async () => {
    off = await createHarness({ env: { LTI_DEPLOYMENT_ID_CHECKING_ENABLED: 'false' } });
  });
  afterAll(() => off.close());

  it('accepts a login without or with an unlisted deployment id', async () => {
    expect((await login(off, new Browser(), params({ lti_deployment_id: undefined }))).response.statusCode).toBe(302);
    expect((await login(off, new Browser(), params({ lti_deployment_id: '9:other' }))).response.statusCode).toBe(302);
  });
});
