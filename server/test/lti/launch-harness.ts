import type { LightMyRequestResponse } from 'fastify';
import { setupServer } from 'msw/node';
import {
  createMockLms,
  lmsUnhandledRequestPolicy,
  type BuiltLaunch,
  type LaunchOptions,
  type MockLms,
} from '../../../e2e/src/lms/index.js';
import type { ExbRequirementLookup } from '../../src/domain/exb-requirement.js';
import { LOGIN_STATE_PURPOSE, TransactionBinder, type LoginState } from '../../src/lti/login-state.js';
import { deriveKey } from '../../src/security/derived-keys.js';
import { OneTimeStore } from '../../src/security/one-time-store.js';
import { SESSION_COOKIE_NAME } from '../../src/security/session-cookie.js';
import { createTestApp, type TestApp } from '../support/app.js';

export const TOOL = 'https://tool.example.test';
export const LMS = 'https://lms.example.test';
export const ISSUER = 'https://lms.example.test';
export const CLIENT_ID = '10000000000001';
export const DEPLOYMENT_ID = '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb';
export const OTHER_DEPLOYMENT_ID = '2:0f3c0a5e1c6a4bb0c0a7f0f1e2d3c4b5a6978877';

/** A browser's cookie jar for one origin: what it sends back and what Set-Cookie changes. */
export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(readonly userAgent = 'Mozilla/5.0 Chromium') {}

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** Applies Set-Cookie headers, keeping values exactly as sent (still percent-encoded). */
  absorb(response: LightMyRequestResponse): void {
    for (const header of ([] as string[]).concat(response.headers['set-cookie'] ?? [])) {
      const [pair = '', ...attributes] = header.split(';');
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator).trim();
      const value = pair.slice(separator + 1).trim();
      const expired = attributes.some((attribute) => {
        const [key = '', val = ''] = attribute.trim().split('=');
        if (key.toLowerCase() === 'max-age') return Number(val) <= 0;
        if (key.toLowerCase() === 'expires') return Date.parse(val) <= Date.now();
        return false;
      });
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  transactionCookies(): string[] {
    return [...this.cookies.keys()].filter((name) => name.startsWith('exb_lti_tx_'));
  }

  /** The session cookie's value, decoded. */
  session(): string | undefined {
    const raw = this.cookies.get(SESSION_COOKIE_NAME);
    return raw === undefined ? undefined : decodeURIComponent(raw);
  }
}

/** The service's clock for the LMS key set cache: real time, moved forward by tests to pass its cooldown. */
export class KeySetClock {
  private offsetMs = 0;

  readonly now = (): number => Date.now() + this.offsetMs;

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export interface Harness {
  t: TestApp;
  keySetClock: KeySetClock;
  lms: MockLms;
  msw: ReturnType<typeof setupServer>;
  /** Crafts login states and transaction cookies exactly as the service does (same derived keys). */
  states: OneTimeStore;
  binder: TransactionBinder;
  requirement: { required: boolean };
  close(): Promise<void>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  /**
   * The whole service as deployed: LMS API access configured (OAuth client of the mocked LMS's tool) and the
   * requirement read from the database, for flows that go on from the launch to authorization and management.
   */
  complete?: boolean;
  /** The LMS offers platform storage (`lti_storage_target`); off by default: these requests run no page script. */
  platformStorage?: boolean;
  /** Records the service's log lines (at `debug`). */
  logLines?: string[];
}

export const OAUTH_CLIENT_ID = '10000000000002';
export const OAUTH_CLIENT_SECRET = 'oauth-secret';

/** The service on a fresh database, and the mocked LMS answering in-process (msw) for its origin. */
export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const lms = createMockLms({
    baseUrl: LMS,
    issuer: ISSUER,
    platformStorage: options.platformStorage ?? false,
    tool: {
      baseUrl: TOOL,
      clientId: CLIENT_ID,
      deploymentId: DEPLOYMENT_ID,
      oauthClientId: OAUTH_CLIENT_ID,
      oauthClientSecret: OAUTH_CLIENT_SECRET,
    },
  });
  const msw = setupServer(...lms.handlers);
  msw.listen({ onUnhandledRequest: lmsUnhandledRequestPolicy(lms) });
  const requirement = { required: false };
  const exbRequirement: ExbRequirementLookup = { isRequired: async () => requirement.required };
  const keySetClock = new KeySetClock();
  const t = await createTestApp({
    ...(options.logLines ? { logLines: options.logLines } : {}),
    env: {
      BASE_URL: TOOL,
      LMS_URL: LMS,
      LTI_ISSUER: ISSUER,
      LTI_CLIENT_ID: CLIENT_ID,
      LTI_DEPLOYMENT_ID: `${DEPLOYMENT_ID},${OTHER_DEPLOYMENT_ID}`,
      ...(options.complete ? { LMS_OAUTH_CLIENT_ID: OAUTH_CLIENT_ID, LMS_OAUTH_CLIENT_SECRET: OAUTH_CLIENT_SECRET } : {}),
      ...options.env,
    },
    buildOptions: {
      platformKeys: { now: keySetClock.now },
      ...(options.complete ? { oauth: { tokenEndpointDeadlineMs: 1_500, lms: { callDeadlineMs: 3_000, listDeadlineMs: 5_000 } } } : { exbRequirement }),
    },
  });
  const secret = t.config.secrets.appSecret;
  return {
    t,
    keySetClock,
    lms,
    msw,
    states: new OneTimeStore(t.db.pool, deriveKey(secret, 'one-time-store')),
    binder: new TransactionBinder(deriveKey(secret, 'transaction-binding')),
    requirement,
    async close() {
      msw.close();
      await t.close();
    },
  };
}

export function bootstrapOf(html: string): Record<string, unknown> {
  const match = /<script id="exb-bootstrap" type="application\/json">(.*?)<\/script>/s.exec(html);
  if (!match?.[1]) throw new Error(`no bootstrap element in ${html.slice(0, 200)}`);
  return JSON.parse(match[1]) as Record<string, unknown>;
}

/** The error code a refused launch shows, or the view name of any other page. */
export function outcomeOf(response: LightMyRequestResponse): string {
  if (response.statusCode === 302) return `redirect ${response.headers.location}`;
  const bootstrap = bootstrapOf(response.body);
  return typeof bootstrap.errorCode === 'string' ? bootstrap.errorCode : String(bootstrap.view);
}

function unescapeHtml(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The hidden inputs of the LMS's auto-posting form. */
export function formFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[unescapeHtml(match[1]!)] = unescapeHtml(match[2]!);
  }
  return fields;
}

export interface LoginResult {
  response: LightMyRequestResponse;
  /** The authorization request the service redirected to. */
  location: URL;
  state: string;
  nonce: string;
}

/** Step 1: the LMS's login initiation, posted (or sent as a query) to the service. */
export async function login(
  h: Harness,
  browser: Browser,
  params: Record<string, string>,
  options: { method?: 'GET' | 'POST'; path?: string; remoteAddress?: string } = {},
): Promise<LoginResult> {
  const method = options.method ?? 'POST';
  const path = options.path ?? '/lti/login';
  const response = await h.t.app.inject({
    method,
    url: method === 'GET' ? `${path}?${new URLSearchParams(params)}` : path,
    ...(method === 'POST' ? { payload: new URLSearchParams(params).toString() } : {}),
    headers: {
      cookie: browser.header(),
      'user-agent': browser.userAgent,
      ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
  });
  browser.absorb(response);
  const location = new URL(response.headers.location ?? `${TOOL}/no-redirect`);
  return {
    response,
    location,
    state: location.searchParams.get('state') ?? '',
    nonce: location.searchParams.get('nonce') ?? '',
  };
}

/** Steps 2 and 3 at the LMS: the browser (logged in as `person`) follows the redirect; the LMS answers with its form. */
export async function authorize(h: Harness, location: URL, person: number | string): Promise<Record<string, string>> {
  const response = await fetch(location, { headers: { cookie: h.lms.webSessionCookie(person) } });
  const html = await response.text();
  if (!response.ok) throw new Error(`authorization refused (${response.status}): ${html.slice(0, 200)}`);
  return formFields(html);
}

/** The LMS's form post back to the service. */
export async function postLaunch(
  h: Harness,
  browser: Browser,
  fields: Record<string, string>,
  options: { path?: string; remoteAddress?: string; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  const response = await h.t.app.inject({
    method: 'POST',
    url: options.path ?? '/lti/launch',
    payload: new URLSearchParams(fields).toString(),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: browser.header(),
      'user-agent': browser.userAgent,
      ...options.headers,
    },
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
  });
  browser.absorb(response);
  return response;
}

export async function getPage(
  h: Harness,
  browser: Browser,
  url: string,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const response = await h.t.app.inject({
    method: 'GET',
    url,
    headers: { cookie: browser.header(), 'user-agent': browser.userAgent, ...headers },
  });
  browser.absorb(response);
  return response;
}

export interface CompletedLaunch {
  launch: BuiltLaunch;
  login: LoginResult;
  fields: Record<string, string>;
  response: LightMyRequestResponse;
}

/** The whole flow for `person` from an LMS placement: login initiation, LMS authorization, launch post. */
export async function launchAs(
  h: Harness,
  browser: Browser,
  options: LaunchOptions,
  flow: { launchPath?: string } = {},
): Promise<CompletedLaunch> {
  const launch = h.lms.platform.buildLaunch(options);
  const started = await login(h, browser, launch.loginParams);
  if (started.response.statusCode !== 302) {
    throw new Error(`login refused: ${started.response.statusCode} ${started.response.body.slice(0, 300)}`);
  }
  const fields = await authorize(h, started.location, options.person);
  const response = await postLaunch(h, browser, fields, flow.launchPath ? { path: flow.launchPath } : {});
  return { launch, login: started, fields, response };
}

/**
 * A login that reached the LMS, and the claims the LMS would sign for it, without the LMS's authorization step: tests
 * then sign deliberately broken variants of the token. The claims carry the login's nonce.
 */
export async function prepareLaunch(
  h: Harness,
  browser: Browser,
  options: LaunchOptions,
): Promise<{ launch: BuiltLaunch; login: LoginResult; claims: Record<string, unknown> }> {
  const started = await login(h, browser, h.lms.platform.buildLaunch(options).loginParams);
  const launch = h.lms.platform.buildLaunch({ ...options, nonce: started.nonce });
  return { launch, login: started, claims: { ...launch.claims } };
}

/** A login state stored and bound exactly as the login stores one, with any content: for binding checks. */
export async function craftState(
  h: Harness,
  browser: Browser,
  overrides: Partial<LoginState> = {},
): Promise<{ state: string; nonce: string }> {
  const transaction = h.binder.create();
  browser.cookies.set(transaction.cookieName, transaction.cookieValue);
  const nonce = overrides.nonce ?? crypto.randomUUID();
  const payload: LoginState = {
    nonce,
    target: '/lti/launch',
    issuer: ISSUER,
    transactionBinding: transaction.binding,
    deploymentId: DEPLOYMENT_ID,
    createdAt: Date.now(),
    ...overrides,
  };
  const issued = await h.states.issue(LOGIN_STATE_PURPOSE, payload, 600);
  return { state: issued.token, nonce };
}
