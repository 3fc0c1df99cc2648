import type { LightMyRequestResponse } from 'fastify';
import { PLATFORM_STORAGE_SCRIPT_ROUTE } from '@exb/shared/service-paths.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_STATE_PURPOSE } from '../../src/lti/login-state.js';
import { STORAGE_NONCE_FIELD, STORAGE_STATE_FIELD } from '../../src/lti/platform-storage.js';
import { authorize, bootstrapOf, Browser, createHarness, formFields, LMS, login, outcomeOf, postLaunch, type Harness } from './launch-harness.js';

let h: Harness;
const logLines: string[] = [];
beforeAll(async () => {
  h = await createHarness({ platformStorage: true, logLines });
});

/** The `launch bound to the browser` lines logged since `from`: their level and path. */
function bindingLines(from: number): Array<{ level: number; browserBinding: string }> {
  return logLines
    .slice(from)
    .map((line) => JSON.parse(line) as { level: number; msg: string; browserBinding: string })
    .filter((line) => line.msg === 'launch bound to the browser')
    .map(({ level, browserBinding }) => ({ level, browserBinding }));
}
afterAll(() => h.close());

const INSTRUCTOR = { person: 'instructor', placement: 'course_navigation', courseId: 101 } as const;

type StorageConfig = {
  target: string;
  platformOrigin: string;
  put?: Array<{ key: string; value: string }>;
  next?: string;
  get?: { stateKey: string; nonceKey: string };
};

/** The configuration a platform-storage page hands its script. */
function storageConfigOf(response: LightMyRequestResponse): StorageConfig {
  const match = /<script id="exb-platform-storage" type="application\/json">(.*?)<\/script>/s.exec(response.body);
  if (!match?.[1]) throw new Error(`no platform-storage page: ${response.statusCode} ${response.body.slice(0, 200)}`);
  return JSON.parse(match[1]) as StorageConfig;
}

/**
 * One browser: its cookie jar for the tool (which, in a browser refusing third-party cookies, the test empties) and
 * the LMS's platform storage of this browser for the tool (the LMS page's `localStorage`).
 */
class StorageBrowser extends Browser {
  readonly storage = new Map<string, string>();
}

/** The login page's work: its entries into this browser's platform storage, then on to the authorization. */
async function loginWithStorage(browser: StorageBrowser, options: { keepCookies?: boolean } = {}) {
  const response = await login(h, browser, h.lms.platform.buildLaunch(INSTRUCTOR).loginParams);
  expect(response.response.statusCode).toBe(200);
  if (!options.keepCookies) browser.cookies.clear();
  const config = storageConfigOf(response.response);
  for (const entry of config.put ?? []) browser.storage.set(entry.key, entry.value);
  const location = new URL(config.next!);
  return { config, location, state: location.searchParams.get('state')!, nonce: location.searchParams.get('nonce')! };
}

/** The LMS's form post, then (no cookie) the launch page reading this browser's storage and posting again. */
async function launchWithStorage(browser: StorageBrowser, fields: Record<string, string>) {
  const first = await postLaunch(h, browser, fields);
  if (first.statusCode !== 200 || !first.body.includes('exb-platform-storage')) return { first, second: first };
  const { get } = storageConfigOf(first);
  const form = formFields(first.body);
  const read = { [STORAGE_STATE_FIELD]: browser.storage.get(get!.stateKey) ?? '', [STORAGE_NONCE_FIELD]: browser.storage.get(get!.nonceKey) ?? '' };
  browser.storage.delete(get!.stateKey);
  browser.storage.delete(get!.nonceKey);
  const second = await postLaunch(h, browser, { ...form, ...read });
  return { first, second, posted: { ...form, ...read } };
}

async function expectRefused(response: LightMyRequestResponse, code: string) {
  expect(response.statusCode).toBe(400);
  expect(bootstrapOf(response.body)).toMatchObject({ view: 'lti-error', errorCode: code });
}

describe('platform storage: the login', () => {
  it('puts the transaction value and the nonce into the named frame, sets the cookie too, and then goes on', async () => {
    const browser = new StorageBrowser();
    const response = await login(h, browser, h.lms.platform.buildLaunch(INSTRUCTOR).loginParams);
    expect(response.response.statusCode).toBe(200);
    expect(response.response.headers['cache-control']).toBe('no-store');
    expect(response.response.headers['referrer-policy']).toBe('no-referrer');
    expect(String(response.response.headers['content-security-policy'])).toContain("script-src 'self'");
    const config = storageConfigOf(response.response);
    const next = new URL(config.next!);
    expect(`${next.origin}${next.pathname}`).toBe(`${LMS}/api/lti/authorize_redirect`);
    const [state, nonce] = [next.searchParams.get('state')!, next.searchParams.get('nonce')!];
    const [transactionCookie] = browser.transactionCookies();
    expect(config).toEqual({
      target: 'post_message_forwarding',
      platformOrigin: LMS,
      put: [
        { key: `state_${state}`, value: browser.cookies.get(transactionCookie!) },
        { key: `nonce_${nonce}`, value: nonce },
      ],
      next: next.toString(),
    });
    expect(response.response.body).toContain(`<script src="${PLATFORM_STORAGE_SCRIPT_ROUTE.path}"></script>`);
  });

  it('serves the pages’ script as a self-contained script', async () => {
    const response = await h.t.app.inject({ method: 'GET', url: PLATFORM_STORAGE_SCRIPT_ROUTE.path });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/javascript/);
    expect(response.body).toMatch(/["']lti\.put_data["']/);
    expect(response.body).toMatch(/["']lti\.get_data["']/);
    // Nothing a bundler adds from outside the function (a helper of its own) may be in it.
    expect(response.body).not.toMatch(/__name|__awaiter|require\(/);
  });
});

describe('platform storage: the launch', () => {
  it('binds a launch without cookies through the storage, once', async () => {
    const from = logLines.length;
    const browser = new StorageBrowser();
    const started = await loginWithStorage(browser);
    const fields = await authorize(h, started.location, 'instructor');
    const { first, second, posted } = await launchWithStorage(browser, fields);
    expect(first.statusCode).toBe(200);
    expect(formFields(first.body)).toMatchObject({ id_token: fields.id_token, state: fields.state });
    expect(storageConfigOf(first)).toEqual({
      target: 'post_message_forwarding',
      platformOrigin: LMS,
      get: { stateKey: `state_${started.state}`, nonceKey: `nonce_${started.nonce}` },
    });
    expect(bootstrapOf(second.body).view).toBe('teacher');
    expect(await h.states.peek(LOGIN_STATE_PURPOSE, started.state)).toBeNull();
    expect(bindingLines(from)).toEqual([{ level: 30, browserBinding: 'platform-storage' }]);
    // Neither the transaction value nor the id_token reaches the log.
    expect(logLines.join('\n')).not.toContain(posted![STORAGE_STATE_FIELD]!);
    expect(logLines.join('\n')).not.toContain(fields.id_token!.split('.')[2]!);

    // Replay: the same form with the same storage values again.
    await expectRefused(await postLaunch(h, new StorageBrowser(), posted!), 'LTI_LAUNCH_STATE_INVALID');
  });

  it('takes the cookie path where the browser kept the cookie, with no storage page', async () => {
    const from = logLines.length;
    const browser = new StorageBrowser();
    const started = await loginWithStorage(browser, { keepCookies: true });
    const fields = await authorize(h, started.location, 'instructor');
    const response = await postLaunch(h, browser, fields);
    expect(bootstrapOf(response.body).view).toBe('teacher');
    expect(bindingLines(from)).toEqual([{ level: 20, browserBinding: 'cookie' }]);
  });

  it('lets exactly one of parallel replays win', async () => {
    const browser = new StorageBrowser();
    const started = await loginWithStorage(browser);
    const fields = await authorize(h, started.location, 'instructor');
    const read = { [STORAGE_STATE_FIELD]: browser.storage.get(`state_${started.state}`)!, [STORAGE_NONCE_FIELD]: started.nonce };
    const responses = await Promise.all(Array.from({ length: 4 }, () => postLaunch(h, new StorageBrowser(), { ...fields, ...read })));
    expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 400, 400, 400]);
    for (const response of responses.filter((r) => r.statusCode === 400)) {
      expect(['LTI_LAUNCH_STATE_REPLAYED', 'LTI_LAUNCH_STATE_INVALID']).toContain(outcomeOf(response));
    }
  });

  it('refuses a state taken to another browser, whose storage holds nothing for it', async () => {
    const victim = new StorageBrowser();
    const started = await loginWithStorage(victim);
    const fields = await authorize(h, started.location, 'instructor');
    const attacker = new StorageBrowser();
    await loginWithStorage(attacker); // has storage entries of its own login
    const { second } = await launchWithStorage(attacker, fields);
    await expectRefused(second, 'LTI_LAUNCH_TRANSACTION_MISSING');
    // The victim's launch still works.
    expect(bootstrapOf((await launchWithStorage(victim, fields)).second.body).view).toBe('teacher');
  });

  it('refuses another login’s transaction value under the state’s key', async () => {
    const browser = new StorageBrowser();
    const started = await loginWithStorage(browser);
    const fields = await authorize(h, started.location, 'instructor');
    const other = await loginWithStorage(browser);
    browser.storage.set(`state_${started.state}`, browser.storage.get(`state_${other.state}`)!);
    await expectRefused((await launchWithStorage(browser, fields)).second, 'LTI_LAUNCH_TRANSACTION_MISMATCH');
  });

  it('refuses a nonce that is not the state’s own', async () => {
    const browser = new StorageBrowser();
    const started = await loginWithStorage(browser);
    const fields = await authorize(h, started.location, 'instructor');
    const other = await loginWithStorage(browser);
    browser.storage.set(`nonce_${started.nonce}`, other.nonce);
    await expectRefused((await launchWithStorage(browser, fields)).second, 'LTI_LAUNCH_TRANSACTION_MISMATCH');
  });

  it('refuses a token of another login of the same browser (nonce mismatch in the token)', async () => {
    const browser = new StorageBrowser();
    const a = await loginWithStorage(browser);
    const b = await loginWithStorage(browser);
    const fieldsA = await authorize(h, a.location, 'instructor');
    await expectRefused((await launchWithStorage(browser, { ...fieldsA, state: b.state })).second, 'LTI_TOKEN_NONCE');
  });

  it('refuses empty storage values (the storage did not answer) without another storage page', async () => {
    const browser = new StorageBrowser();
    const started = await loginWithStorage(browser);
    const fields = await authorize(h, started.location, 'instructor');
    browser.storage.clear();
    const { second } = await launchWithStorage(browser, fields);
    await expectRefused(second, 'LTI_LAUNCH_TRANSACTION_MISSING');
    expect(await h.states.peek(LOGIN_STATE_PURPOSE, started.state)).not.toBeNull();
  });

  it('does not let storage values stand in for the cookie of a login that used no storage', async () => {
    const browser = new StorageBrowser();
    const launch = h.lms.platform.buildLaunch(INSTRUCTOR);
    const { lti_storage_target: _target, ...withoutStorage } = launch.loginParams;
    const started = await login(h, browser, withoutStorage);
    expect(started.response.statusCode).toBe(302);
    const value = browser.cookies.get(browser.transactionCookies()[0]!)!;
    browser.cookies.clear();
    const fields = await authorize(h, started.location, 'instructor');
    const response = await postLaunch(h, browser, { ...fields, [STORAGE_STATE_FIELD]: value, [STORAGE_NONCE_FIELD]: started.nonce });
    await expectRefused(response, 'LTI_LAUNCH_TRANSACTION_MISSING');
  });
});
