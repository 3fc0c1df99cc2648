import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { setupServer, type SetupServer } from 'msw/node';
import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { createMockLms, lmsUnhandledRequestPolicy, type MockLms } from '../../../e2e/src/lms/index.js';
import { configKeyHashFor, downloadConfiguration, openConfiguration, type OpenedConfiguration } from '../../../e2e/src/exb-simulator/index.js';
import type { Principal } from '../../src/identity/principal.js';
import type { ExamBrowserBudgetSizes } from '../../src/domain/exam-browser/admission.js';
import {
  createSettingsRepository,
  type AssessmentSettingsDraft,
  type SettingsRepository,
} from '../../src/domain/settings/settings-repository.js';
import { defaultAssessmentSettings, type AssessmentSettings, type CourseDefaults } from '../../src/domain/settings/model.js';
import { createLogger } from '../../src/logger.js';
import { grantTypeForScopes } from '../../src/oauth/grant-rules.js';
import { createOAuthServices, type OAuthServiceOptions } from '../../src/oauth/services.js';
import { ActionTokens } from '../../src/security/action-token.js';
import { deriveKey } from '../../src/security/derived-keys.js';
import { OneTimeStore } from '../../src/security/one-time-store.js';
import { createTestApp, type TestApp, type TestAppOptions } from '../support/app.js';
import { proveSeedContexts } from '../support/oauth-testbed.js';
import { DEPLOYMENT_ID, instructor, ISSUER, sessionFor, student, subjectFor, type TestSession } from '../support/sessions.js';
import { developmentIdentity } from '../exb-public/helpers.js';

export const SERVICE = 'https://tool.example.test';
export const LMS = 'https://lms.example.test';
export const OAUTH_CLIENT_ID = '170000000000042';
export const OAUTH_CLIENT_SECRET = 'test-oauth-client-secret-value';

export const COURSE = '101';
export const QUIZ = 'classicquiz_201';
export const NEW_QUIZ = 'newquiz:101:301';
export const TAKE_URL = `${LMS}/courses/101/quizzes/201/take`;
export const NEW_QUIZ_URL = `${LMS}/courses/101/assignments/301`;
export const ACCESS_CODE = 'exam-code-7431';
export const EXIT_PASSWORD = 'leave-now';

/** Browser requests from the tool's own pages carry this. */
export const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' } as const;

const FAST_OAUTH: OAuthServiceOptions = {
  tokenEndpointDeadlineMs: 1_500,
  lms: { callDeadlineMs: 3_000, listDeadlineMs: 5_000, backoff: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 } },
  accessTokens: { pollIntervalMs: 10, waitTimeoutMs: 2_000 },
};

export { student, instructor };

/** The service clock of the flow, moved by tests. */
export class TestClock {
  constructor(public now = Date.now()) {}

  readonly read = (): number => this.now;

  advance(seconds: number): void {
    this.now += seconds * 1000;
  }
}

export interface StudentHarness {
  t: TestApp;
  app: FastifyInstance;
  lms: MockLms;
  msw: SetupServer;
  clock: TestClock;
  settings: SettingsRepository;
  identity: { certificatePem: string; privateKeyPem: string };
  actionTokens: ActionTokens;
  session(principal: Principal): TestSession;
  /** Stores an enforced setting (code, exit password) for the assessment; overrides win. */
  enforce(contentId?: string, overrides?: Partial<AssessmentSettingsDraft>): Promise<AssessmentSettings>;
  update(contentId: string, change: (current: AssessmentSettings) => Partial<AssessmentSettingsDraft>): Promise<AssessmentSettings>;
  courseDefaults(defaults: Partial<CourseDefaults>): Promise<void>;
  /** Gives the LMS user an OAuth grant as a completed student authorization would. */
  authorizeStudent(lmsUserId?: number, scopes?: readonly string[]): Promise<void>;
  grant(principal?: Principal, contentId?: string, body?: Record<string, unknown>): Promise<LightMyRequestResponse>;
  /** Grant → download → open, as the student's exam browser does. */
  start(principal?: Principal, contentId?: string): Promise<{ opened: OpenedConfiguration; exbLaunchUrl: string }>;
  /** The exam browser's first page: opens a configuration's start URL on the service, as the exam browser does (no cookies). */
  openStart(startUrl: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  prove(contentId: string, configKey: string, url?: string): Promise<LightMyRequestResponse>;
  redeem(contentId: string, proofToken: string): Promise<LightMyRequestResponse>;
  /** `fetch` for the simulator, answered by `app.inject`. */
  fetch: typeof fetch;
  close(): Promise<void>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  configOptions?: TestAppOptions['configOptions'];
  budgets?: Partial<ExamBrowserBudgetSizes>;
  /** Leave the LMS API unconfigured: no session handoff, deterministic configurations for everyone. */
  withoutLmsApi?: boolean;
  /** The service reaches its database through this (a relay, for fault tests). */
  connectThrough?: TestAppOptions['connectThrough'];
  /** Also listen on a loopback port, for clients that close their connections. */
  listen?: boolean;
  /** Collects the service's log lines (at `debug`) here. */
  logLines?: string[];
}

/**
 * The service on a fresh database with a controllable clock, and the mocked LMS answering in-process (msw). msw's
 * interception is process-wide and the last server listening answers: in a file with several harnesses, run the tests
 * of one harness before the next is created, and close a harness only when no other one is used afterwards.
 */
export async function createStudentHarness(options: HarnessOptions = {}): Promise<StudentHarness> {
  const lms = createMockLms({
    baseUrl: LMS,
    // Requests without a browser: the platform-storage pages' script would not run (`server/test/lti/platform-storage.test.ts` covers it).
    platformStorage: false,
    tool: {
      baseUrl: SERVICE,
      clientId: '10000000000001',
      deploymentId: DEPLOYMENT_ID,
      oauthClientId: OAUTH_CLIENT_ID,
      oauthClientSecret: OAUTH_CLIENT_SECRET,
    },
  });
  const msw = setupServer(...lms.handlers);
  msw.listen({ onUnhandledRequest: lmsUnhandledRequestPolicy(lms) });
  const clock = new TestClock();
  const t = await createTestApp({
    env: {
      BASE_URL: SERVICE,
      LMS_URL: LMS,
      ...(options.withoutLmsApi ? {} : { LMS_OAUTH_CLIENT_ID: OAUTH_CLIENT_ID, LMS_OAUTH_CLIENT_SECRET: OAUTH_CLIENT_SECRET }),
      ...options.env,
    },
    ...(options.configOptions ? { configOptions: options.configOptions } : {}),
    ...(options.connectThrough ? { connectThrough: options.connectThrough } : {}),
    ...(options.listen ? { listen: true } : {}),
    ...(options.logLines ? { logLines: options.logLines } : {}),
    buildOptions: {
      oauth: FAST_OAUTH,
      clock: clock.read,
      ...(options.budgets ? { examBrowser: { budgets: options.budgets } } : {}),
    },
  });
  const { app, config } = t;
  await proveSeedContexts(lms, t.db.orm);
  const settings = createSettingsRepository(t.db, config.secrets.appSecret);
  const actionTokens = ActionTokens.fromAppSecret(config.secrets.appSecret, { now: clock.read });
  const identity = config.exb.configEncryptionEnabled ? developmentIdentity(t.dataDir) : { certificatePem: '', privateKeyPem: '' };
  const sessions = new Map<string, TestSession>();
  const session = (principal: Principal) => {
    const key = JSON.stringify(principal);
    let existing = sessions.get(key);
    if (existing === undefined) {
      existing = sessionFor(app, principal);
      sessions.set(key, existing);
    }
    return existing;
  };

  const injectFetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    if (url.origin !== SERVICE) throw new Error(`unexpected fetch of ${url.origin}`);
    const method = (init?.method ?? 'GET') as 'GET' | 'HEAD';
    const response = await app.inject({ method, url: `${url.pathname}${url.search}`, headers: init?.headers as Record<string, string> });
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : String(value));
    }
    return new Response(method === 'HEAD' ? null : response.rawPayload, { status: response.statusCode, headers });
  }) as typeof fetch;

  const harness: StudentHarness = {
    t,
    app,
    lms,
    msw,
    clock,
    settings,
    identity,
    actionTokens,
    session,
    async enforce(contentId = QUIZ, overrides = {}) {
      const existing = await settings.loadAssessmentSettings(COURSE, contentId);
      const base = existing ?? defaultAssessmentSettings(COURSE, contentId);
      return settings.saveAssessmentSettings(COURSE, {
        ...base,
        exbRequired: true,
        enabled: true,
        accessCode: ACCESS_CODE,
        exitPasswordOverride: EXIT_PASSWORD,
        ...overrides,
      });
    },
    async update(contentId, change) {
      const current = (await settings.loadAssessmentSettings(COURSE, contentId))!;
      return settings.saveAssessmentSettings(COURSE, { ...current, ...change(current) });
    },
    async courseDefaults(defaults) {
      await settings.saveCourseDefaults(COURSE, {
        courseId: COURSE,
        urlRules: [],
        externalTools: [],
        startPassword: null,
        exitPassword: null,
        setupCompleted: true,
        ...defaults,
      });
    },
    async authorizeStudent(lmsUserId = 3, scopes = APPLICATION_SCOPES) {
      const issued = lms.oauth.issueToken({ user: lmsUserId, scopes, expiresIn: 3600 });
      const oneTimeStore = new OneTimeStore(t.db.pool, deriveKey(config.secrets.appSecret, 'one-time-store'));
      const services = createOAuthServices(config, t.db.orm, oneTimeStore, createLogger('silent'), FAST_OAUTH);
      await services.oauth.tokens.saveAuthorization({
        lmsUserId: String(lmsUserId),
        scopes,
        accessToken: issued.response.access_token,
        refreshToken: issued.response.refresh_token ?? null,
        expiresInSeconds: issued.response.expires_in ?? null,
        lmsUserName: issued.response.user.name,
        lmsGlobalUserId: issued.response.user.global_id,
        lmsRegion: issued.response.canvas_region,
        // An administrator's authorization carries the root account the callback verified (the seeded LMS's account 1).
        accountId: grantTypeForScopes(scopes) === 'account_admin' ? '1' : null,
        ltiIssuer: ISSUER,
        ltiSubject: subjectFor(lmsUserId),
      });
    },
    async grant(principal = student(), contentId = QUIZ, body) {
      const s = session(principal);
      return app.inject({
        method: 'POST',
        url: `/api/exb/config-grant/${COURSE}/${contentId}`,
        headers: { cookie: s.cookie, ...SAME_ORIGIN },
        payload: body ?? { actionToken: actionTokens.issue(s.session, 'config-grant') },
      });
    },
    async start(principal = student(), contentId = QUIZ) {
      const grant = await harness.grant(principal, contentId);
      if (grant.statusCode !== 200) throw new Error(`config grant answered ${grant.statusCode}: ${grant.body}`);
      const { exbLaunchUrl } = grant.json() as { exbLaunchUrl: string };
      const downloaded = await downloadConfiguration(exbLaunchUrl, { fetch: injectFetch });
      const opened = openConfiguration(downloaded.bytes, config.exb.configEncryptionEnabled ? identity : {});
      return { opened, exbLaunchUrl };
    },
    openStart(startUrl, headers = {}) {
      const url = new URL(startUrl);
      if (url.origin !== SERVICE) throw new Error(`not a start URL of the service: ${startUrl}`);
      return app.inject({ method: 'GET', url: `${url.pathname}${url.search}`, headers });
    },
    prove(contentId, configKey, url = pageUrl(contentId)) {
      return app.inject({
        method: 'POST',
        url: `/api/exb/access-proof/${COURSE}/${contentId}`,
        payload: { configKeyHash: configKeyHashFor(url, configKey), url },
      });
    },
    redeem(contentId, proofToken) {
      return app.inject({
        method: 'POST',
        url: `/api/exb/access-code/${COURSE}/${contentId}`,
        headers: { 'x-exb-proof-token': proofToken },
      });
    },
    fetch: injectFetch,
    async close() {
      msw.close();
      await t.close();
    },
  };
  return harness;
}

/** The page the detector proves on: the classic take page or the new quiz assignment page. */
export function pageUrl(contentId: string): string {
  const classic = /^classicquiz_(\d+)$/.exec(contentId);
  if (classic) return `${LMS}/courses/${COURSE}/quizzes/${classic[1]}/take`;
  const [, course, assignment] = contentId.split(':');
  return `${LMS}/courses/${course}/assignments/${assignment}`;
}

/** The grant query value of a `sebs://` launch URL. */
export function grantOf(exbLaunchUrl: string): string {
  return new URL(exbLaunchUrl.replace(/^sebs:/, 'https:')).searchParams.get('grant')!;
}

/** The request path of a `sebs://` launch URL. */
export function downloadPathOf(exbLaunchUrl: string): string {
  const url = new URL(exbLaunchUrl.replace(/^sebs:/, 'https:'));
  return `${url.pathname}${url.search}`;
}

export { configKeyHashFor };
