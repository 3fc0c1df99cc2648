import { randomBytes } from 'node:crypto';
import { LTI_CONFIG_ROUTE } from '@exb/shared/service-paths.js';
import { pathToFileURL } from 'node:url';
import type { RunningServer } from '@exb/server/main.js';
import type { MockLms } from './lms/index.js';

export interface DevelopmentEnvironment {
  lmsUrl: string;
  serviceUrl: string;
  launchPageUrl: string;
  /** The development LMS's simulated exam browser, which the service's handoff page links to. */
  examBrowserUrl: string;
  /** The origin of the development LMS's New Quizzes engine, another origin than the LMS. */
  newQuizzesUrl: string;
  /** The development LMS itself, for tests that change its people or quizzes. */
  lms: MockLms;
  /** The service's logger (its last-resort error policy logs there). */
  logger: RunningServer['logger'];
  close(): Promise<void>;
}

/**
 * Starts the development LMS and the service configured for each other: the LMS knows the service's registration,
 * keys and redirect URIs; the service trusts the LMS as its issuer, key set and OAuth provider, with the testbed on.
 * The LMS's simulated exam browser opens configurations with the development certificate the service generated.
 *
 * Environment: `LMS_PORT` (default 3001) and `HOST` (default 127.0.0.1, as the service's in development) for the LMS, `NEW_QUIZZES_PORT` (default: a
 * free one) for its New Quizzes engine; everything else is passed to the service (`PORT`, `BASE_URL`, `DATABASE_URL`,
 * ...). The API developer key can be set up as an administrator might have left it: `DEV_LMS_API_KEY_WITHOUT_SCOPES`
 * (scopes, separated by spaces or commas, the key lacks: the LMS then refuses authorizations asking for them with
 * `invalid_scope`) and `DEV_LMS_API_KEY_ALLOW_INCLUDES=false` (the LMS drops the `include[]` parameters of the
 * service's calls). Both are addressed as `localhost`. With `lmsTls` the LMS is served
 * over HTTPS with that certificate, which makes the tool's http frame cross-site to it, as under a production LMS.
 */
export async function startDevelopment(
  env: NodeJS.ProcessEnv = process.env,
  options: { lmsTls?: { cert: string; key: string } } = {},
): Promise<DevelopmentEnvironment> {
  const { createMockLms, EXAM_BROWSER_PATH } = await import('./lms/index.js');
  const { DEVELOPER_KEY_SCOPES } = await import('./lms/scopes.js');
  const { developmentExamBrowserIdentity } = await import('./lms/exam-browser/identity.js');
  const { DEVELOPMENT_LTI_CLIENT_ID, DEVELOPMENT_LTI_DEPLOYMENT_ID } = await import('@exb/server/config/app-config.js');

  const lmsPort = Number(env.LMS_PORT ?? 3001);
  if (!Number.isInteger(lmsPort) || lmsPort < 0 || lmsPort > 65535) throw new Error(`LMS_PORT must be a port number, got "${env.LMS_PORT}"`);
  const lmsHost = env.HOST ?? '127.0.0.1';
  const publicHost = ['0.0.0.0', '::', '127.0.0.1', '::1'].includes(lmsHost) ? 'localhost' : lmsHost;
  const serviceUrl = (env.BASE_URL ?? `http://localhost:${env.PORT ?? 3000}`).replace(/\/$/, '');

  const withoutScopes = new Set((env.DEV_LMS_API_KEY_WITHOUT_SCOPES ?? '').split(/[\s,]+/).filter(Boolean));
  const tool = {
    baseUrl: serviceUrl,
    clientId: env.LTI_CLIENT_ID ?? DEVELOPMENT_LTI_CLIENT_ID,
    deploymentId: env.LTI_DEPLOYMENT_ID?.split(',')[0]?.trim() || DEVELOPMENT_LTI_DEPLOYMENT_ID,
    oauthClientId: env.LMS_OAUTH_CLIENT_ID ?? '10000000000002',
    oauthClientSecret: env.LMS_OAUTH_CLIENT_SECRET ?? randomBytes(24).toString('base64url'),
    themeJavaScriptUrl: `${serviceUrl}/js/lms-exb-theme-loader.js`,
    oauthScopes: DEVELOPER_KEY_SCOPES.filter((scope) => !withoutScopes.has(scope)),
  };
  const scheme = options.lmsTls ? 'https' : 'http';
  const lms = createMockLms({ baseUrl: `${scheme}://${publicHost}:${lmsPort}`, tool, allowIncludes: env.DEV_LMS_API_KEY_ALLOW_INCLUDES !== 'false' });
  const lmsServer = await lms.startHttpServer({ port: lmsPort, host: lmsHost, ...(options.lmsTls ? { tls: options.lmsTls } : {}) });
  // New Quizzes runs on a host of its own; here `127.0.0.1` beside an LMS addressed as `localhost` (another site), or
  // another port of the LMS's host (another origin) where the certificate names only that host.
  const newQuizzesPort = Number(env.NEW_QUIZZES_PORT ?? 0);
  if (!Number.isInteger(newQuizzesPort) || newQuizzesPort < 0 || newQuizzesPort > 65535) {
    await lmsServer.close();
    throw new Error(`NEW_QUIZZES_PORT must be a port number, got "${env.NEW_QUIZZES_PORT}"`);
  }
  const newQuizzesHost = publicHost === 'localhost' && !options.lmsTls ? '127.0.0.1' : publicHost;
  let newQuizzesServer: Awaited<ReturnType<typeof lms.startNewQuizzesServer>>;
  try {
    newQuizzesServer = await lms.startNewQuizzesServer({
      origin: `${scheme}://${newQuizzesHost}:${newQuizzesPort}`,
      port: newQuizzesPort,
      host: lmsHost,
      ...(options.lmsTls ? { tls: options.lmsTls } : {}),
    });
  } catch (error) {
    await lmsServer.close();
    throw error;
  }

  const examBrowserUrl = `${lms.baseUrl}${EXAM_BROWSER_PATH}`;
  let service: RunningServer;
  try {
    const { startServer } = await import('@exb/server/main.js');
    service = await startServer({
      ...env,
      BASE_URL: serviceUrl,
      LMS_URL: lms.baseUrl,
      LTI_ISSUER: lms.issuer,
      LTI_CLIENT_ID: tool.clientId,
      LTI_DEPLOYMENT_ID: tool.deploymentId,
      LMS_OAUTH_CLIENT_ID: tool.oauthClientId,
      LMS_OAUTH_CLIENT_SECRET: tool.oauthClientSecret,
      TESTBED_ENABLED: 'true',
      // The development LMS's key holds the exam-day scopes, so its board shows attempts and the roster.
      LMS_OAUTH_EXAM_DAY_SCOPES: env.LMS_OAUTH_EXAM_DAY_SCOPES ?? 'true',
    }, { developmentLms: { examBrowserUrl } });
  } catch (error) {
    await newQuizzesServer.close();
    await lmsServer.close();
    throw error;
  }

  lms.examBrowser.enable(developmentExamBrowserIdentity(service.config));

  // Use the registration the service actually serves, so the LMS launches exactly what an administrator would paste.
  try {
    const response = await fetch(`${service.url}${LTI_CONFIG_ROUTE.path}`);
    if (!response.ok) throw new Error(`status ${response.status}`);
    lms.platform.installRegistration(await response.json());
  } catch (error) {
    process.stderr.write(`[dev] could not read ${service.url}${LTI_CONFIG_ROUTE.path} (${String(error)}); using the documented registration\n`);
  }

  return {
    lmsUrl: lms.baseUrl,
    serviceUrl: service.url,
    launchPageUrl: lms.launchPageUrl,
    examBrowserUrl,
    newQuizzesUrl: newQuizzesServer.url,
    lms,
    logger: service.logger,
    async close() {
      await service.close();
      await newQuizzesServer.close();
      await lmsServer.close();
    },
  };
}

async function main(argv: string[]): Promise<void> {
  const server = await import('@exb/server/main.js');
  // `--start` is `npm start`: with an LMS configured it is the plain service; without one, the development pair.
  if (argv.includes('--start') && process.env.LMS_URL) {
    const running = await server.startServer(process.env);
    server.closeOnSignals(running);
    server.exitOnFatalErrors(running);
    return;
  }
  try {
    const running = await startDevelopment(process.env);
    server.closeOnSignals(running);
    server.exitOnFatalErrors(running);
    process.stdout.write(
      [
        '',
        `  Development LMS  ${running.lmsUrl}`,
        `  Service          ${running.serviceUrl}`,
        '',
        `  Launch page: ${running.launchPageUrl}`,
        '  (launch as an instructor, a student, an administrator, a designer or a TA,',
        '   or open a link with its own custom fields, as a course author could write it)',
        '',
        `  New Quizzes engine (framed by new-quiz pages): ${running.newQuizzesUrl}`,
        '',
        `  Simulated exam browser: ${running.examBrowserUrl}`,
        '  (a student\'s download page links to it: "Open in the testbed\'s simulated exam browser")',
        '',
        '',
      ].join('\n'),
    );
  } catch (error) {
    server.exitOnStartupError(error);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main(process.argv.slice(2));
}
