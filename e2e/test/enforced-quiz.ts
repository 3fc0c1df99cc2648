import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEVELOPMENT_CERTIFICATE_FILE, DEVELOPMENT_CERTIFICATE_KEY_FILE } from '../../server/src/config/dev-secrets.js';
import { freePort } from '../../server/src/free-port.js';
import { createTestApp, type TestApp } from '../../server/test/support/app.js';
import { DEPLOYMENT_ID, ISSUER, instructor, sessionFor, type TestSession } from '../../server/test/support/sessions.js';
import { createMockLms, type LmsSeed, type MockLms, type RunningLmsServer } from '../src/lms/index.js';

const DETECTOR_BUNDLES = ['lms-exb-theme-loader.js', 'lms-exb-detector.js'].map((name) =>
  fileURLToPath(new URL(`../../detector/dist/${name}`, import.meta.url)),
);
const CLIENT_MANIFEST = fileURLToPath(new URL('../../client/dist/.vite/manifest.json', import.meta.url));

const CLIENT_ID = '10000000000001';
const OAUTH_CLIENT_ID = '10000000000002';

export const COURSE = '101';
/** The enforced quiz: no access code in the LMS until enforcement sets one. */
export const QUIZ = '201';
export const CONTENT_ID = `classicquiz_${QUIZ}`;

export interface ServiceResponse {
  status: number;
  body: string;
  headers: Record<string, unknown>;
}

/**
 * The service and the development LMS over HTTP, the LMS theme loading the service's theme loader on every page, and
 * quiz 201 of course 101 enforced by its instructor through the service's own routes: the service put a generated
 * access code on the quiz in the LMS.
 */
export interface EnforcedQuiz {
  readonly t: TestApp;
  readonly lms: MockLms;
  readonly lmsUrl: string;
  readonly serviceUrl: string;
  /** The code enforcement put on the quiz in the LMS. */
  readonly accessCode: string;
  /** The service's development certificate and key, which decrypt its configurations. */
  readonly identity: { certificatePem: string; privateKeyPem: string };
  /** A service request as the tool's own pages send it (mutations carry Fetch Metadata and a JSON body). */
  request(method: 'GET' | 'POST' | 'PUT', url: string, cookie: string, body?: Record<string, unknown>): Promise<ServiceResponse>;
  /** {@link request}, failing unless it answers 200. */
  expectOk(method: 'GET' | 'POST' | 'PUT', url: string, cookie: string, body?: Record<string, unknown>): Promise<ServiceResponse>;
  /**
   * The LMS OAuth authorization as the person's browser completes it: the service's start sends the browser to the
   * LMS, the person approves there, and the LMS sends the code back to the service's callback.
   */
  authorizeInLms(session: TestSession, start: string, lmsUserId: number): Promise<void>;
  close(): Promise<void>;
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

export async function startEnforcedQuiz(options: { oauthClientSecret: string; exitPassword: string; seed?: LmsSeed }): Promise<EnforcedQuiz> {
  for (const bundle of DETECTOR_BUNDLES) {
    check(existsSync(bundle), `the detector bundles are missing: run \`npm run build -w detector\` (${bundle})`);
  }
  check(existsSync(CLIENT_MANIFEST), 'the client bundle is missing: run `npm run build -w client`');

  const lmsUrl = `http://127.0.0.1:${await freePort()}`;
  const t = await createTestApp({
    listen: true,
    env: {
      LMS_URL: lmsUrl,
      LTI_ISSUER: ISSUER,
      LTI_CLIENT_ID: CLIENT_ID,
      LTI_DEPLOYMENT_ID: DEPLOYMENT_ID,
      LMS_OAUTH_CLIENT_ID: OAUTH_CLIENT_ID,
      LMS_OAUTH_CLIENT_SECRET: options.oauthClientSecret,
    },
  });
  const serviceUrl = t.url!;
  const lms = createMockLms({
    baseUrl: lmsUrl,
    issuer: ISSUER,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    tool: {
      baseUrl: serviceUrl,
      clientId: CLIENT_ID,
      deploymentId: DEPLOYMENT_ID,
      oauthClientId: OAUTH_CLIENT_ID,
      oauthClientSecret: options.oauthClientSecret,
      themeJavaScriptUrl: `${serviceUrl}/js/lms-exb-theme-loader.js`,
    },
  });
  const lmsServer: RunningLmsServer = await lms.startHttpServer();
  const secrets = path.join(t.dataDir, 'secrets');

  const request: EnforcedQuiz['request'] = async (method, url, cookie, body) => {
    const payload = body ?? (method === 'GET' ? undefined : {});
    const response = await t.app.inject({
      method,
      url,
      headers: { cookie, ...(method === 'GET' ? {} : { 'sec-fetch-site': 'same-origin' }) },
      ...(payload === undefined ? {} : { payload }),
    });
    return { status: response.statusCode, body: response.body, headers: response.headers };
  };
  const expectOk: EnforcedQuiz['expectOk'] = async (method, url, cookie, body) => {
    const response = await request(method, url, cookie, body);
    check(response.status === 200, `${method} ${url} answered ${response.status}: ${response.body}`);
    return response;
  };
  const authorizeInLms: EnforcedQuiz['authorizeInLms'] = async (session, start, lmsUserId) => {
    const started = await request('GET', start, session.cookie);
    check(started.status === 302, `${start} answered ${started.status}`);
    const location = new URL(String(started.headers.location));
    check(`${location.origin}${location.pathname}` === `${lmsUrl}/login/oauth2/auth`, `${start} went to ${location}`);
    const approval = lms.oauth.approve({
      user: lmsUserId,
      scopes: location.searchParams.get('scope')!.split(' '),
      state: location.searchParams.get('state')!,
      redirectUri: location.searchParams.get('redirect_uri')!,
      clientId: location.searchParams.get('client_id')!,
    });
    const callback = new URL(approval.redirectUrl);
    check(`${callback.origin}${callback.pathname}` === `${serviceUrl}/api/oauth2callback`, `the LMS sent the code to ${callback}`);
    await expectOk('GET', `${callback.pathname}${callback.search}`, session.cookie);
  };

  // The instructor connects the tool to the LMS, discovers the course's quizzes, sets the course exit password and
  // turns enforcement on for the quiz: the service puts a generated access code on it in the LMS.
  const teacher = sessionFor(t.app, instructor({ courseId: COURSE }));
  await authorizeInLms(teacher, '/api/oauth2authorize', 2);
  await expectOk('POST', `/api/quizzes/course/${COURSE}/refresh`, teacher.cookie);
  await expectOk('PUT', `/api/quizzes/course/${COURSE}/defaults`, teacher.cookie, { quitPassword: options.exitPassword });
  await expectOk('POST', `/api/quizzes/${COURSE}/${QUIZ}/exb/enable`, teacher.cookie);
  const accessCode = lms.state.quizzes.get(Number(QUIZ))!.accessCode;
  check(typeof accessCode === 'string', 'enforcement put no access code on the quiz');

  return {
    t,
    lms,
    lmsUrl,
    serviceUrl,
    accessCode: accessCode!,
    identity: {
      certificatePem: readFileSync(path.join(secrets, DEVELOPMENT_CERTIFICATE_FILE), 'utf8'),
      privateKeyPem: readFileSync(path.join(secrets, DEVELOPMENT_CERTIFICATE_KEY_FILE), 'utf8'),
    },
    request,
    expectOk,
    authorizeInLms,
    async close() {
      await lmsServer.close();
      await t.close();
    },
  };
}
