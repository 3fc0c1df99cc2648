import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LTI_CLAIM } from '../../../e2e/src/lms/index.js';
import { LOGIN_STATE_PURPOSE } from '../../src/lti/login-state.js';
import {
  authorize,
  bootstrapOf,
  Browser,
  craftState,
  createHarness,
  launchAs,
  login,
  OTHER_DEPLOYMENT_ID,
  outcomeOf,
  postLaunch,
  prepareLaunch,
  TOOL,
  type Harness,
} from './launch-harness.js';
import { signJwt } from './token-fixtures.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const INSTRUCTOR = { person: 'instructor', placement: 'course_navigation', courseId: 101 } as const;
const JWKS = 'GET /api/lti/security/jwks';
const now = () => Math.floor(Date.now() / 1000);

/** Logs in, then posts a token the LMS signs from the login's claims after `change`: one check fails at a time. */
async function launchWithClaims(change: (claims: Record<string, unknown>) => void, sign?: (claims: Record<string, unknown>) => Promise<string> | string) {
  const browser = new Browser();
  const { login: started, claims } = await prepareLaunch(h, browser, INSTRUCTOR);
  change(claims);
  const idToken = sign ? await sign(claims) : await h.lms.platform.signIdToken(claims);
  const response = await postLaunch(h, browser, { id_token: idToken, state: started.state });
  return { response, state: started.state, browser };
}

async function expectRefused(response: { statusCode: number; body: string }, code: string, status = 400) {
  expect(response.statusCode).toBe(status);
  expect(bootstrapOf(response.body)).toMatchObject({ view: 'lti-error', errorCode: code });
}

describe('launch refusals: the token', () => {
  it('refuses a wrong signature (tampered payload)', async () => {
    const browser = new Browser();
    const launch = h.lms.platform.buildLaunch(INSTRUCTOR);
    const started = await login(h, browser, launch.loginParams);
    const fields = await authorize(h, started.location, 'instructor');
    const [header, payload, signature] = fields.id_token!.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    claims[`${LTI_CLAIM}custom`] = { ...(claims[`${LTI_CLAIM}custom`] as object), lms_course_id: '102' };
    const forged = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    await expectRefused(await postLaunch(h, browser, { ...fields, id_token: forged }), 'LTI_TOKEN_SIGNATURE');
  });

  it('refuses a token signed by a foreign key under the LMS’s kid', async () => {
    const foreign = h.lms.platform.generateKey();
    const { response } = await launchWithClaims(() => {}, (claims) =>
      h.lms.platform.signIdToken(claims, { key: foreign.privateKey, kid: h.lms.platform.keys.active.kid }),
    );
    await expectRefused(response, 'LTI_TOKEN_SIGNATURE');
  });

  it('refuses a token signed by a key the LMS does not publish, after refetching the key set once', async () => {
    const foreign = h.lms.platform.generateKey({ kid: '2099-01-01T00:00:00Z' });
    await launchAs(h, new Browser(), INSTRUCTOR); // the key set is cached now
    h.keySetClock.advance(30_000);
    const before = h.lms.calls.count(JWKS);
    const { response } = await launchWithClaims(() => {}, (claims) => h.lms.platform.signIdToken(claims, { key: foreign }));
    await expectRefused(response, 'LTI_TOKEN_UNKNOWN_KEY');
    expect(h.lms.calls.count(JWKS)).toBe(before + 1);
  });

  it('fetches the key set at most once more for 30 launches with unknown kids, and still picks up a rotation', async () => {
    await launchAs(h, new Browser(), INSTRUCTOR);
    h.keySetClock.advance(30_000);
    const before = h.lms.calls.count(JWKS);
    for (let i = 0; i < 30; i += 1) {
      const forged = h.lms.platform.generateKey({ kid: `2097-01-01T00:00:${String(i).padStart(2, '0')}Z` });
      const { response } = await launchWithClaims(() => {}, (claims) => h.lms.platform.signIdToken(claims, { key: forged }));
      await expectRefused(response, 'LTI_TOKEN_UNKNOWN_KEY');
    }
    expect(h.lms.calls.count(JWKS) - before).toBeLessThanOrEqual(1);

    // A real rotation right after is picked up once the cooldown has passed. (A day ahead: key ids are timestamps in
    // seconds, and another test rotates within the same second.)
    const rotated = h.lms.platform.keys.rotate(h.lms.clock.now() + 86_400_000);
    try {
      h.keySetClock.advance(30_000);
      expect((await launchAs(h, new Browser(), INSTRUCTOR)).response.statusCode).toBe(200);
      expect(h.lms.calls.count(JWKS) - before).toBeLessThanOrEqual(2);
    } finally {
      h.lms.platform.keys.reset();
      expect(rotated.kid).toBeTruthy();
    }
  });

  it('uses the cached key set, and refetches it once when the LMS rotates its key', async () => {
    await launchAs(h, new Browser(), INSTRUCTOR);
    const before = h.lms.calls.count(JWKS);
    expect((await launchAs(h, new Browser(), INSTRUCTOR)).response.statusCode).toBe(200);
    expect(h.lms.calls.count(JWKS)).toBe(before);
    const rotated = h.lms.platform.keys.rotate(h.lms.clock.now());
    try {
      h.keySetClock.advance(30_000);
      const { response } = await launchAs(h, new Browser(), INSTRUCTOR);
      expect(response.statusCode).toBe(200);
      expect(h.lms.calls.count(JWKS)).toBe(before + 1);
    } finally {
      h.lms.platform.keys.reset();
      expect(rotated.kid).toBeTruthy();
    }
  });

  it('refuses a platform key under 2048 bits with an explanatory page', async () => {
    const weak = h.lms.platform.generateKey({ bits: 1024, kid: '2098-01-01T00:00:00Z' });
    h.lms.platform.keys.publish(weak);
    h.keySetClock.advance(30_000);
    try {
      // Libraries refuse to sign RS256 with 1024 bits; the LMS of this test does it by hand.
      const { response } = await launchWithClaims(() => {}, (claims) =>
        signJwt(claims, weak.privateKey, { alg: 'RS256', kid: weak.kid }),
      );
      await expectRefused(response, 'LTI_PLATFORM_KEY_TOO_WEAK');
      expect(bootstrapOf(response.body).message).toMatch(/1024-bit RSA key.*at least 2048 bits/);
    } finally {
      h.lms.platform.keys.withdraw(weak.kid);
    }
  });

  it('refuses a token that is not RS256', async () => {
    const { response } = await launchWithClaims(() => {}, (claims) =>
      h.lms.platform.signIdToken(claims, { alg: 'RS512' }),
    );
    await expectRefused(response, 'LTI_TOKEN_ALGORITHM');
  });

  it.each([
    ['a wrong issuer', (c: Record<string, unknown>) => void (c.iss = 'https://evil.example.test'), 'LTI_TOKEN_ISSUER'],
    ['a wrong audience', (c: Record<string, unknown>) => void Object.assign(c, { aud: '10000000000099', azp: '10000000000099' }), 'LTI_TOKEN_AUDIENCE'],
    ['an audience array without this tool', (c: Record<string, unknown>) => void Object.assign(c, { aud: ['x', 'y'], azp: 'x' }), 'LTI_TOKEN_AUDIENCE'],
    ['an expired token', (c: Record<string, unknown>) => void (c.exp = now() - 120), 'LTI_TOKEN_EXPIRED'],
    ['an iat in the future', (c: Record<string, unknown>) => void (c.iat = now() + 300), 'LTI_TOKEN_ISSUED_IN_FUTURE'],
    ['an old token', (c: Record<string, unknown>) => void (c.iat = now() - 3000), 'LTI_TOKEN_TOO_OLD'],
    ['a nonce mismatch', (c: Record<string, unknown>) => void (c.nonce = crypto.randomUUID()), 'LTI_TOKEN_NONCE'],
    ['another LTI version', (c: Record<string, unknown>) => void (c[`${LTI_CLAIM}version`] = '1.1.0'), 'LTI_TOKEN_VERSION'],
    ['another message type', (c: Record<string, unknown>) => void (c[`${LTI_CLAIM}message_type`] = 'LtiSubmissionReviewRequest'), 'LTI_TOKEN_MESSAGE_TYPE'],
    ['an unlisted deployment', (c: Record<string, unknown>) => void (c[`${LTI_CLAIM}deployment_id`] = '9:unlisted'), 'LTI_TOKEN_DEPLOYMENT'],
    ['a foreign target', (c: Record<string, unknown>) => void (c[`${LTI_CLAIM}target_link_uri`] = 'https://evil.example.test/lti/launch'), 'LTI_TOKEN_TARGET'],
  ])('refuses %s', async (_name, change, code) => {
    const { response, state } = await launchWithClaims(change);
    await expectRefused(response, code);
    // A refused token leaves the state unclaimed and creates no session.
    expect(await h.states.peek(LOGIN_STATE_PURPOSE, state)).not.toBeNull();
    expect(response.headers['set-cookie'] ?? '').not.toContain('exb_session=');
  });

  it.each([
    ['sub', (c: Record<string, unknown>) => void (c.sub = `${String(c.sub)}\u0000`)],
    ['context.id', (c: Record<string, unknown>) => void Object.assign(c[`${LTI_CLAIM}context`] as object, { id: 'ctx\u0000' })],
    ['a custom value', (c: Record<string, unknown>) => void Object.assign(c[`${LTI_CLAIM}custom`] as object, { lms_user_id: '2\u0000' })],
    ['the name', (c: Record<string, unknown>) => void (c.name = 'Ian\u0000')],
  ])('refuses a NUL character in %s as a malformed token, as no text column can hold it', async (_name, change) => {
    const { response, state } = await launchWithClaims(change);
    await expectRefused(response, 'LTI_TOKEN_MALFORMED');
    expect(await h.states.peek(LOGIN_STATE_PURPOSE, state)).not.toBeNull();
  });

  it('refuses a token of another login of the same browser (nonce mismatch)', async () => {
    const browser = new Browser();
    const a = await login(h, browser, h.lms.platform.buildLaunch(INSTRUCTOR).loginParams);
    const b = await login(h, browser, h.lms.platform.buildLaunch(INSTRUCTOR).loginParams);
    const fieldsA = await authorize(h, a.location, 'instructor');
    await expectRefused(await postLaunch(h, browser, { ...fieldsA, state: b.state }), 'LTI_TOKEN_NONCE');
  });
});

describe('launch refusals: envelope, state, browser binding', () => {
  it('refuses an oversized envelope before any cryptography, leaving the state usable', async () => {
    const browser = new Browser();
    const started = await login(h, browser, h.lms.platform.buildLaunch(INSTRUCTOR).loginParams);
    const fields = await authorize(h, started.location, 'instructor');
    const before = h.lms.calls.count(JWKS);
    const huge = `${'a'.repeat(33 * 1024)}.b.c`;
    await expectRefused(await postLaunch(h, browser, { ...fields, id_token: huge }), 'LTI_LAUNCH_INVALID_ENVELOPE');
    expect(h.lms.calls.count(JWKS)).toBe(before);
    expect((await postLaunch(h, browser, fields)).statusCode).toBe(200);
  });

  it.each([
    ['no id_token', { id_token: undefined }],
    ['no state', { state: undefined }],
    ['a malformed state', { state: 'x' }],
    ['a malformed id_token', { id_token: 'not a token' }],
  ])('refuses %s as an invalid envelope', async (_name, change) => {
    const browser = new Browser();
    const started = await login(h, browser, h.lms.platform.buildLaunch(INSTRUCTOR).loginParams);
    const fields: Record<string, string | undefined> = { ...(await authorize(h, started.location, 'instructor')), ...change };
    const clean = Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined));
    await expectRefused(await postLaunch(h, browser, clean), 'LTI_LAUNCH_INVALID_ENVELOPE');
  });

  it('explains an error the LMS posts instead of a token', async () => {
    const browser = new Browser();
    const started = await login(h, browser, h.lms.platform.buildLaunch(INSTRUCTOR).loginParams);
    // Someone else is logged into the LMS in this browser: the LMS answers login_required.
    const fields = await authorize(h, started.location, 'student1');
    expect(fields.error).toBe('login_required');
    const response = await postLaunch(h, browser, fields);
    await expectRefused(response, 'LTI_LAUNCH_PLATFORM_ERROR');
    expect(JSON.stringify(bootstrapOf(response.body).details)).toContain('login_required');
    expect(response.body).not.toContain('Must have an active user session');
  });

  it('refuses an unknown state', async () => {
    const browser = new Browser();
    const started = await login(h, browser, h.lms.platform.buildLaunch(INSTRUCTOR).loginParams);
    const fields = await authorize(h, started.location, 'instructor');
    await expectRefused(await postLaunch(h, browser, { ...fields, state: 'B'.repeat(43) }), 'LTI_LAUNCH_STATE_INVALID');
  });

  it('refuses a launch without the transaction cookie', async () => {
    const browser = new Browser();
    const started = await login(h, browser, h.lms.platform.buildLaunch(INSTRUCTOR).loginParams);
    const fields = await authorize(h, started.location, 'instructor');
    browser.cookies.clear();
    await expectRefused(await postLaunch(h, browser, fields), 'LTI_LAUNCH_TRANSACTION_MISSING');
  });

  it('refuses a foreign transaction cookie under the expected name', async () => {
    const browser = new Browser();
    const started = await login(h, browser, h.lms.platform.buildLaunch(INSTRUCTOR).loginParams);
    const fields = await authorize(h, started.location, 'instructor');
    const other = new Browser();
    await login(h, other, h.lms.platform.buildLaunch(INSTRUCTOR).loginParams);
    const [name] = browser.transactionCookies();
    browser.cookies.set(name!, other.cookies.get(other.transactionCookies()[0]!)!);
    await expectRefused(await postLaunch(h, browser, fields), 'LTI_LAUNCH_TRANSACTION_MISMATCH');
  });

  it('refuses a state taken to another browser', async () => {
    const victim = new Browser();
    const started = await login(h, victim, h.lms.platform.buildLaunch(INSTRUCTOR).loginParams);
    const fields = await authorize(h, started.location, 'instructor');
    const attacker = new Browser();
    await login(h, attacker, h.lms.platform.buildLaunch(INSTRUCTOR).loginParams); // has a transaction cookie of its own
    await expectRefused(await postLaunch(h, attacker, fields), 'LTI_LAUNCH_TRANSACTION_MISSING');
    // The victim's launch still works.
    expect((await postLaunch(h, victim, fields)).statusCode).toBe(200);
  });

  it('refuses a replayed state', async () => {
    const browser = new Browser();
    const launch = h.lms.platform.buildLaunch(INSTRUCTOR);
    const started = await login(h, browser, launch.loginParams);
    const fields = await authorize(h, started.location, 'instructor');
    const cookies = new Map(browser.cookies);
    expect((await postLaunch(h, browser, fields)).statusCode).toBe(200);
    // Even with the original cookies restored, the state is spent.
    for (const [name, value] of cookies) browser.cookies.set(name, value);
    await expectRefused(await postLaunch(h, browser, fields), 'LTI_LAUNCH_STATE_INVALID');
  });

  it('lets exactly one of parallel replays win', async () => {
    const browser = new Browser();
    const started = await login(h, browser, h.lms.platform.buildLaunch(INSTRUCTOR).loginParams);
    const fields = await authorize(h, started.location, 'instructor');
    const header = browser.header();
    const responses = await Promise.all(
      Array.from({ length: 4 }, () =>
        h.t.app.inject({
          method: 'POST',
          url: '/lti/launch',
          payload: new URLSearchParams(fields).toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: header },
        }),
      ),
    );
    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses).toEqual([200, 400, 400, 400]);
    for (const response of responses.filter((r) => r.statusCode === 400)) {
      expect(['LTI_LAUNCH_STATE_REPLAYED', 'LTI_LAUNCH_STATE_INVALID']).toContain(outcomeOf(response));
    }
    expect(responses.filter((r) => String(r.headers['set-cookie'] ?? '').includes('exb_session='))).toHaveLength(1);
  });

  it('refuses a token whose deployment differs from the login’s', async () => {
    const browser = new Browser();
    const { login: started, claims } = await prepareLaunch(h, browser, INSTRUCTOR);
    claims[`${LTI_CLAIM}deployment_id`] = OTHER_DEPLOYMENT_ID; // allowlisted, but not what the login named
    const response = await postLaunch(h, browser, { id_token: await h.lms.platform.signIdToken(claims), state: started.state });
    await expectRefused(response, 'LTI_BINDING_DEPLOYMENT');
    expect(await h.states.peek(LOGIN_STATE_PURPOSE, started.state)).not.toBeNull();
  });

  it('refuses a token whose target differs from the login’s', async () => {
    const browser = new Browser();
    const { login: started, claims } = await prepareLaunch(h, browser, INSTRUCTOR);
    claims[`${LTI_CLAIM}target_link_uri`] = `${TOOL}/exb/launch/classicquiz_201`;
    const response = await postLaunch(h, browser, { id_token: await h.lms.platform.signIdToken(claims), state: started.state });
    await expectRefused(response, 'LTI_BINDING_TARGET');
  });

  it('refuses a token whose issuer differs from the login state’s', async () => {
    const browser = new Browser();
    const { state, nonce } = await craftState(h, browser, { issuer: 'https://previous-issuer.example.test' });
    const claims = { ...h.lms.platform.buildLaunch({ ...INSTRUCTOR, nonce }).claims };
    const response = await postLaunch(h, browser, { id_token: await h.lms.platform.signIdToken(claims), state });
    await expectRefused(response, 'LTI_BINDING_ISSUER');
  });

  it('accepts a crafted state that binds correctly (the binding checks are what refuses the others)', async () => {
    const browser = new Browser();
    const { state, nonce } = await craftState(h, browser);
    const claims = { ...h.lms.platform.buildLaunch({ ...INSTRUCTOR, nonce }).claims };
    const response = await postLaunch(h, browser, { id_token: await h.lms.platform.signIdToken(claims), state });
    expect(bootstrapOf(response.body).view).toBe('teacher');
  });

  it('checks the state and the browser before the token', async () => {
    const browser = new Browser();
    const started = await login(h, browser, h.lms.platform.buildLaunch(INSTRUCTOR).loginParams);
    const fields = await authorize(h, started.location, 'instructor');
    const broken = { ...fields, id_token: `${fields.id_token!.slice(0, -4)}AAAA` };
    await expectRefused(await postLaunch(h, new Browser(), broken), 'LTI_LAUNCH_TRANSACTION_MISSING');
    await expectRefused(await postLaunch(h, new Browser(), { ...broken, state: 'C'.repeat(43) }), 'LTI_LAUNCH_STATE_INVALID');
  });
});
