import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createLogger } from '../../src/logger.js';
import { clientAddressKey } from '../../src/security/admission-budget.js';
import {
  authorize,
  bootstrapOf,
  Browser,
  createHarness,
  login,
  outcomeOf,
  postLaunch,
  type Harness,
} from './launch-harness.js';

const INSTRUCTOR = { person: 'instructor', placement: 'course_navigation', courseId: 101 } as const;

async function budgetRows(h: Harness, prefix: string): Promise<{ key: string; points: number }[]> {
  return h.t.db.orm.em
    .getConnection()
    .execute<{ key: string; points: number }[]>('select key, points from admission_budget where key like ? order by key', [
      `${prefix}:%`,
    ]);
}

describe('distributed budgets', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({
      env: {
        LTI_LOGIN_BUDGET_PER_IP: '3',
        LTI_LAUNCH_BUDGET_PER_IP: '4',
        LTI_PROCESS_BUDGET_PER_IP: '1000',
        LTI_LAUNCH_BUDGET_PER_STATE: '2',
      },
    });
  });
  afterAll(() => h.close());

  it('answers logins over the per-address budget with 429 and retry-after: 60', async () => {
    const ip = '198.51.100.1';
    const params = h.lms.platform.buildLaunch(INSTRUCTOR).loginParams;
    for (let i = 0; i < 3; i += 1) {
      expect((await login(h, new Browser(), params, { remoteAddress: ip })).response.statusCode).toBe(302);
    }
    const refused = (await login(h, new Browser(), params, { remoteAddress: ip })).response;
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(outcomeOf(refused)).toBe('RATE_LIMITED');
    // Other addresses are not affected, and the count lives in PostgreSQL.
    expect((await login(h, new Browser(), params, { remoteAddress: '198.51.100.2' })).response.statusCode).toBe(302);
    expect(await budgetRows(h, 'lti-login-ip')).toContainEqual({ key: `lti-login-ip:${ip}`, points: 4 });
  });

  it('counts logins of all instances against one budget', async () => {
    const ip = '198.51.100.3';
    const second = await buildApp({ config: h.t.config, logger: createLogger('silent'), db: h.t.db });
    try {
      const params = new URLSearchParams(h.lms.platform.buildLaunch(INSTRUCTOR).loginParams).toString();
      const statuses: number[] = [];
      for (const app of [h.t.app, second, h.t.app, second]) {
        const response = await app.inject({
          method: 'POST',
          url: '/lti/login',
          payload: params,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          remoteAddress: ip,
        });
        statuses.push(response.statusCode);
      }
      expect(statuses).toEqual([302, 302, 302, 429]);
    } finally {
      await second.close();
    }
  });

  it('answers launches over the per-address budget with 429 before looking at the state', async () => {
    const ip = '198.51.100.4';
    const fields = { id_token: 'a.b.c', state: 'D'.repeat(43) };
    for (let i = 0; i < 4; i += 1) {
      expect(outcomeOf(await postLaunch(h, new Browser(), fields, { remoteAddress: ip }))).toBe('LTI_LAUNCH_STATE_INVALID');
    }
    const refused = await postLaunch(h, new Browser(), fields, { remoteAddress: ip });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    // Login and launch budgets are independent.
    const params = h.lms.platform.buildLaunch(INSTRUCTOR).loginParams;
    expect((await login(h, new Browser(), params, { remoteAddress: ip })).response.statusCode).toBe(302);
  });

  it('does not charge the address budget for an envelope refused before admission', async () => {
    const ip = '198.51.100.5';
    for (let i = 0; i < 6; i += 1) {
      expect(outcomeOf(await postLaunch(h, new Browser(), { state: 'x' }, { remoteAddress: ip }))).toBe(
        'LTI_LAUNCH_INVALID_ENVELOPE',
      );
    }
    expect(await budgetRows(h, 'lti-launch-ip')).not.toContainEqual(expect.objectContaining({ key: `lti-launch-ip:${ip}` }));
  });

  it('caps the tokens tried against one state, counting before the token is checked', async () => {
    const ip = '198.51.100.6';
    const browser = new Browser();
    const started = await login(h, browser, h.lms.platform.buildLaunch(INSTRUCTOR).loginParams, { remoteAddress: ip });
    const fields = await authorize(h, started.location, 'instructor');
    const broken = { ...fields, id_token: `${fields.id_token!.slice(0, -4)}AAAA` };
    expect(outcomeOf(await postLaunch(h, browser, broken, { remoteAddress: ip }))).toBe('LTI_TOKEN_SIGNATURE');
    expect(outcomeOf(await postLaunch(h, browser, broken, { remoteAddress: ip }))).toBe('LTI_TOKEN_SIGNATURE');
    // The genuine token is refused too now: the state's budget is spent.
    const refused = await postLaunch(h, browser, fields, { remoteAddress: ip });
    expect(refused.statusCode).toBe(429);
    // Another state of the same browser and address is unaffected.
    const next = await login(h, browser, h.lms.platform.buildLaunch(INSTRUCTOR).loginParams, { remoteAddress: '198.51.100.7' });
    const nextFields = await authorize(h, next.location, 'instructor');
    expect(bootstrapOf((await postLaunch(h, browser, nextFields, { remoteAddress: '198.51.100.7' })).body).view).toBe('teacher');
  });

  it('does not charge a state’s budget for launches refused earlier in the chain', async () => {
    const ip = '198.51.100.8';
    const browser = new Browser();
    const started = await login(h, browser, h.lms.platform.buildLaunch(INSTRUCTOR).loginParams, { remoteAddress: ip });
    const fields = await authorize(h, started.location, 'instructor');
    // Without the transaction cookie, twice: refused at step 4, the state's budget untouched.
    expect(outcomeOf(await postLaunch(h, new Browser(), fields, { remoteAddress: ip }))).toBe('LTI_LAUNCH_TRANSACTION_MISSING');
    expect(outcomeOf(await postLaunch(h, new Browser(), fields, { remoteAddress: ip }))).toBe('LTI_LAUNCH_TRANSACTION_MISSING');
    expect(bootstrapOf((await postLaunch(h, browser, fields, { remoteAddress: ip })).body).view).toBe('teacher');
  });
});

describe('process-local budgets', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({
      env: { LTI_LOGIN_BUDGET_PER_IP: '1000', LTI_LAUNCH_BUDGET_PER_IP: '1000', LTI_PROCESS_BUDGET_PER_IP: '2' },
    });
  });
  afterAll(() => h.close());

  it('sheds logins over the process budget without charging the database', async () => {
    const ip = '203.0.113.1';
    const params = h.lms.platform.buildLaunch(INSTRUCTOR).loginParams;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await login(h, new Browser(), params, { remoteAddress: ip })).response.statusCode);
    expect(statuses).toEqual([302, 302, 429, 429]);
    expect(await budgetRows(h, 'lti-login-ip')).toContainEqual({ key: `lti-login-ip:${ip}`, points: 2 });
  });

  it('sheds launches over the process budget', async () => {
    const ip = '203.0.113.2';
    const fields = { id_token: 'a.b.c', state: 'E'.repeat(43) };
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await postLaunch(h, new Browser(), fields, { remoteAddress: ip })).statusCode);
    expect(statuses).toEqual([400, 400, 429]);
  });
});

describe('client address keys', () => {
  it.each([
    ['192.0.2.7', '192.0.2.7'],
    ['::ffff:192.0.2.7', '192.0.2.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:0db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
  ])('%s counts as %s', (ip, key) => {
    expect(clientAddressKey(ip)).toBe(key);
  });
});

describe.each([
  ['a hop count', '1'],
  ['the proxy address', '10.0.0.5'],
  ['a CIDR range', '10.0.0.0/24'],
])('behind a proxy trusted by %s', (_name, trustProxy) => {
  let h: Harness;
  const PROXY = '10.0.0.5';
  beforeAll(async () => {
    h = await createHarness({ env: { TRUST_PROXY: trustProxy, LTI_LOGIN_BUDGET_PER_IP: '2', LTI_PROCESS_BUDGET_PER_IP: '1000' } });
  });
  afterAll(() => h.close());

  /** A login through the proxy, which appends the address it saw to whatever `X-Forwarded-For` the client sent. */
  const loginThroughProxy = (clientSent: string, client: string) =>
    h.t.app.inject({
      method: 'GET',
      url: `/lti/login?${new URLSearchParams(h.lms.platform.buildLaunch(INSTRUCTOR).loginParams)}`,
      headers: { 'x-forwarded-for': `${clientSent}, ${client}` },
      remoteAddress: PROXY,
    });

  it('charges the address the proxy saw: invented X-Forwarded-For entries do not escape the budget', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 4; i += 1) statuses.push((await loginThroughProxy(`192.0.2.${i}`, '198.51.100.77')).statusCode);
    expect(statuses).toEqual([302, 302, 429, 429]);
    expect(await budgetRows(h, 'lti-login-ip')).toEqual([{ key: 'lti-login-ip:198.51.100.77', points: 4 }]);
  });

  it.skipIf(trustProxy === '1')('believes no X-Forwarded-For from a client that is not the proxy', async () => {
    const direct = () =>
      h.t.app.inject({
        method: 'GET',
        url: `/lti/login?${new URLSearchParams(h.lms.platform.buildLaunch(INSTRUCTOR).loginParams)}`,
        headers: { 'x-forwarded-for': `192.0.2.${Math.floor(Math.random() * 250)}` },
        remoteAddress: '203.0.113.9',
      });
    const statuses = [(await direct()).statusCode, (await direct()).statusCode, (await direct()).statusCode];
    expect(statuses).toEqual([302, 302, 429]);
  });
});
