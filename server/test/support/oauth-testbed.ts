import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { setupServer, type SetupServer } from 'msw/node';
import { expect } from 'vitest';
import { createMockLms, lmsUnhandledRequestPolicy, type MockLms } from '../../../e2e/src/lms/index.js';
import { buildApp } from '../../src/app.js';
import type { Principal } from '../../src/identity/principal.js';
import { BindingRepository } from '../../src/identity/binding-repository.js';
import { createLogger } from '../../src/logger.js';
import { grantTypeForScopes } from '../../src/oauth/grant-rules.js';
import { createOAuthServices, type OAuthServiceOptions } from '../../src/oauth/services.js';
import { deriveKey } from '../../src/security/derived-keys.js';
import { OneTimeStore } from '../../src/security/one-time-store.js';
import { createTestApp, type TestApp } from './app.js';
import { contextIdFor, DEPLOYMENT_ID, ISSUER, sessionFor, subjectFor, type TestSession } from './sessions.js';

export const BASE_URL = 'https://tool.example.test';
export const LMS_URL = 'https://lms.example.test';
export const OAUTH_CLIENT_ID = '170000000000042';
export const OAUTH_CLIENT_SECRET = 'test-oauth-client-secret-value';

/** Test-speed settings: short deadlines and backoff so failure paths finish quickly. */
export const FAST_OAUTH: OAuthServiceOptions = {
  tokenEndpointDeadlineMs: 1_500,
  lms: { callDeadlineMs: 3_000, listDeadlineMs: 5_000, backoff: { maxAttempts: 5, baseDelayMs: 20, maxDelayMs: 100 } },
  accessTokens: { pollIntervalMs: 10, waitTimeoutMs: 5_000 },
};

export interface OAuthTestbed {
  lms: MockLms;
  msw: SetupServer;
  t: TestApp;
  /** A second service instance on the same database (another process behind the load balancer). */
  second: FastifyInstance;
  /** Everything the service logged, for secret-leak checks. */
  logs: string[];
  /** The OAuth services and LMS connector of an instance, for calling the LMS client directly. */
  services(options?: OAuthServiceOptions): ReturnType<typeof createOAuthServices>;
  session(principal: Principal, options?: { launchTarget?: string; sid?: string }): TestSession;
  close(): Promise<void>;
}

function collector(logs: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
}

/**
 * The service on a fresh database with the mocked LMS answering every LMS request in-process (msw), as the tool
 * registered in it. Unhandled requests to the LMS origin or the network fail the test.
 */
export interface OAuthTestbedOptions {
  oauth?: OAuthServiceOptions;
  lms?: Partial<Parameters<typeof createMockLms>[0]>;
  /**
   * Whether the seeded courses and accounts start proven for their signed context ids, as after the first instructor's
   * authorization in a real deployment (default). Identity tests turn it off and prove them through the LMS.
   */
  provenContexts?: boolean;
  /** The URL the service reaches its database through (a relay in front of it, for connection-loss tests). */
  connectThrough?: (databaseUrl: string) => string;
}

/**
 * Records every seeded course and account of the mocked LMS as proven for the context id its launches carry: what the
 * first authorization in each course would have proven through the LMS.
 */
export async function proveSeedContexts(lms: MockLms, orm: TestApp['db']['orm'], issuer = ISSUER): Promise<void> {
  const bindings = new BindingRepository(orm);
  const contexts = [
    ...[...lms.state.courses.keys()].map((id) => ({ kind: 'course' as const, id: String(id) })),
    ...[...lms.state.accounts.keys()].map((id) => ({ kind: 'account' as const, id: String(id) })),
  ];
  for (const { kind, id } of contexts) {
    // Proven as a student's connect proves a course: the first request of an instructor of the course then makes that
    // instructor its manager of record, whose grant the background verifier may use.
    const role = kind === 'course' ? 'student' : 'administrator';
    await bindings.recordContext({ issuer, kind, ltiContextId: contextIdFor(kind, id), lmsId: id }, { lmsUserId: 'seed', role });
  }
}

export async function createOAuthTestbed(options: OAuthTestbedOptions = {}): Promise<OAuthTestbed> {
  const lms = createMockLms({
    baseUrl: LMS_URL,
    // Requests without a browser: the platform-storage pages' script would not run.
    platformStorage: false,
    tool: {
      baseUrl: BASE_URL,
      clientId: '10000000000001',
      deploymentId: DEPLOYMENT_ID,
      oauthClientId: OAUTH_CLIENT_ID,
      oauthClientSecret: OAUTH_CLIENT_SECRET,
    },
    ...options.lms,
  });
  const msw = setupServer(...lms.handlers);
  msw.listen({ onUnhandledRequest: lmsUnhandledRequestPolicy(lms) });
  const t = await createTestApp({
    ...(options.connectThrough ? { connectThrough: options.connectThrough } : {}),
    env: {
      BASE_URL,
      LMS_URL,
      LMS_OAUTH_CLIENT_ID: OAUTH_CLIENT_ID,
      LMS_OAUTH_CLIENT_SECRET: OAUTH_CLIENT_SECRET,
    },
  });
  // The default instance logs nowhere; the instances under test log to a collector, so tests can check that no
  // secret ever reaches a log line.
  await t.app.close();
  const logs: string[] = [];
  const logger = createLogger('debug', collector(logs));
  const oauth = { ...FAST_OAUTH, ...options.oauth };
  const app = await buildApp({ config: t.config, logger, db: t.db, oauth });
  const second = await buildApp({ config: t.config, logger, db: t.db, oauth });
  await Promise.all([app.ready(), second.ready()]);
  const testApp: TestApp = { ...t, app };
  if (options.provenContexts !== false) await proveSeedContexts(lms, t.db.orm);
  const oneTimeStore = new OneTimeStore(t.db.pool, deriveKey(t.config.secrets.appSecret, 'one-time-store'));
  return {
    lms,
    msw,
    t: testApp,
    second,
    logs,
    services: (serviceOptions) => createOAuthServices(t.config, t.db.orm, oneTimeStore, logger, { ...FAST_OAUTH, ...serviceOptions }),
    session: (principal, sessionOptions) => sessionFor(app, principal, sessionOptions),
    async close() {
      msw.close();
      await second.close();
      await app.close();
      await t.close();
    },
  };
}

/** Starts an authorization, approves it in the LMS as `lmsUser` and returns the callback path carrying code and state. */
export async function approvedCallback(
  testbed: OAuthTestbed,
  cookie: string,
  options: { start?: string; lmsUser?: string | number } = {},
): Promise<{ callbackPath: string; state: string; scopes: string[] }> {
  const start = await testbed.t.app.inject({ method: 'GET', url: options.start ?? '/api/oauth2authorize', headers: { cookie } });
  expect(start.statusCode).toBe(302);
  const location = new URL(start.headers.location as string);
  const state = location.searchParams.get('state')!;
  const scopes = location.searchParams.get('scope')!.split(' ');
  const approval = testbed.lms.oauth.approve({
    user: options.lmsUser ?? 2,
    scopes,
    state,
    redirectUri: location.searchParams.get('redirect_uri')!,
    clientId: location.searchParams.get('client_id')!,
  });
  const callback = new URL(approval.redirectUrl);
  expect(`${callback.origin}${callback.pathname}`).toBe(`${BASE_URL}/api/oauth2callback`);
  return { callbackPath: `${callback.pathname}${callback.search}`, state, scopes };
}

export function bootstrapOf(html: string): Record<string, unknown> {
  const match = /<script id="exb-bootstrap" type="application\/json">(.*?)<\/script>/s.exec(html);
  if (!match?.[1]) throw new Error('no bootstrap element');
  return JSON.parse(match[1]) as Record<string, unknown>;
}

/** Stores a grant for `userId` as a completed authorization would. */
export async function storeGrant(bed: OAuthTestbed, userId: number, scopes: readonly string[], expiresIn: number | null = 3600) {
  const issued = bed.lms.oauth.issueToken({ user: userId, scopes, expiresIn });
  await bed.services().oauth.tokens.saveAuthorization({
    lmsUserId: String(userId),
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
    ltiSubject: subjectFor(userId),
  });
  return issued;
}
