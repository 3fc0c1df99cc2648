import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import fastifySecureSession from '@fastify/secure-session';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { AppConfig } from './config.js';
import type { AppContext } from './context.js';
import type { Database } from './db/orm.js';
import { CertificateStore } from './exb/certificate-store.js';
import type { ExbRequirementLookup } from './domain/exb-requirement.js';
import { registerErrorHandlers } from './http/errors.js';
import { scheduleHousekeeping } from './housekeeping.js';
import { registerPublicRoutes } from './http/public.js';
import { registerLtiRoutes } from './http/lti.js';
import { registerExbLaunchRoutes } from './http/exb-launch.js';
import { registerExbPublicRoutes } from './http/exb-public.js';
import { registerDetectorRoutes } from './http/detector.js';
import { readClientAssets, ShellRenderer } from './http/shell.js';
import { registerTrpcRoutes } from './http/trpc.js';
import { registerOAuthRoutes } from './http/oauth.js';
import { registerQuizzesRestRoutes } from './http/quizzes-rest.js';
import { registerExbConfigRoutes } from './http/exb-config.js';
import { registerExbProofRoutes } from './http/exb-proof.js';
import { registerExbExitRoutes } from './http/exb-exit.js';
import { registerExbStudentRoutes } from './http/exb-student.js';
import { createStudentServices, type StudentFlowOptions } from './domain/student/services.js';
import { ActionTokens } from './security/action-token.js';
import { createOAuthServices, type OAuthServiceOptions } from './oauth/services.js';
import { deriveKey } from './security/derived-keys.js';
import { OneTimeStore } from './security/one-time-store.js';
import { sessionCookieOptions, SESSION_COOKIE_NAME } from './security/session-cookie.js';
import { loadToolKeys } from './security/tool-keys.js';
import { LtiAdmission } from './lti/admission.js';
import { TransactionBinder } from './lti/login-state.js';
import { PlatformKeySet } from './lti/platform-keys.js';

export interface BuildAppOptions {
  config: AppConfig;
  logger: Logger;
  db: Database;
  /** Where the built client lives; defaults to the client workspace's dist folder. */
  clientDistDir?: string;
  /** Replaces the lookup of whether an assessment requires the exam browser (tests); by default the stored settings answer. */
  exbRequirement?: ExbRequirementLookup;
  /** Tunes the LMS client and token refresh (tests: shorter deadlines and polling). */
  oauth?: OAuthServiceOptions;
  /** Tunes the student exam-browser flow (tests: a controllable clock, small budgets). */
  exbStudent?: StudentFlowOptions;
}

export const DEFAULT_CLIENT_DIST_DIR = fileURLToPath(new URL('../../client/dist/', import.meta.url));

// LTI launches carry a signed token of a few kilobytes; nothing the service accepts needs more than this.
const BODY_LIMIT_BYTES = 256 * 1024;

export async function createContext(options: BuildAppOptions): Promise<AppContext> {
  const { config, logger, db } = options;
  const clientDistDir = options.clientDistDir ?? DEFAULT_CLIENT_DIST_DIR;
  const assets = readClientAssets(clientDistDir);
  if (!assets.script) logger.warn({ clientDistDir }, 'client bundle not found; run `npm run build`');
  const oneTimeStore = new OneTimeStore(db.orm, deriveKey(config.secrets.appSecret, 'one-time-store'));
  const oauthServices = createOAuthServices(config, db.orm, oneTimeStore, logger, options.oauth);
  const pool = await db.orm.em.getConnection().getNativeClient();
  const exbCertificates = CertificateStore.load(config.exb, logger);
  const exbStudent = createStudentServices(
    { config, pool, logger, certificates: exbCertificates, lms: oauthServices.lms, tokens: oauthServices.oauth.tokens },
    options.exbStudent,
  );
  return {
    config,
    logger,
    db,
    oneTimeStore,
    ...oauthServices,
    toolKeys: await loadToolKeys(config.lti.toolPrivateKeys),
    shell: new ShellRenderer(assets, { lmsOrigin: config.lmsUrl }),
    exbCertificates,
    platformKeys: new PlatformKeySet({ jwksUrl: config.lti.jwksUrl }),
    ltiAdmission: new LtiAdmission(pool, config.lti.budgets),
    transactionBinder: new TransactionBinder(deriveKey(config.secrets.appSecret, 'transaction-binding')),
    exbRequirement: options.exbRequirement ?? exbStudent.requirement,
    actionTokens: ActionTokens.fromAppSecret(config.secrets.appSecret, { now: exbStudent.clock }),
    exbStudent,
  };
}

export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const ctx = await createContext(options);
  const { config } = ctx;
  const app = Fastify({
    // pino's Logger is a FastifyBaseLogger; the cast keeps the instance type the default one route modules expect.
    loggerInstance: ctx.logger as FastifyBaseLogger,
    trustProxy: config.trustProxy,
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: () => randomUUID(),
    return503OnClosing: true,
  });

  await app.register(fastifyCookie);
  await app.register(fastifySecureSession, {
    key: deriveKey(config.secrets.appSecret, 'session-cookie'),
    cookieName: SESSION_COOKIE_NAME,
    cookie: sessionCookieOptions(config.baseUrl),
  });
  await app.register(fastifyFormbody, { bodyLimit: BODY_LIMIT_BYTES });
  await app.register(fastifyStatic, {
    root: path.join(options.clientDistDir ?? DEFAULT_CLIENT_DIST_DIR, 'assets'),
    prefix: '/assets/',
    // Built assets have content hashes in their names, so they can be cached for good.
    immutable: true,
    maxAge: '365d',
    index: false,
  });

  registerErrorHandlers(app);
  scheduleHousekeeping(app, { oneTimeTokens: ctx.oneTimeStore, examBrowserTokens: ctx.exbStudent.store });
  await registerPublicRoutes(app, ctx);
  await registerLtiRoutes(app, ctx);
  await registerExbLaunchRoutes(app, ctx);
  await registerExbPublicRoutes(app, ctx);
  await registerDetectorRoutes(app, ctx);
  await registerTrpcRoutes(app, ctx);
  await registerOAuthRoutes(app, ctx);
  await registerQuizzesRestRoutes(app, ctx);
  await registerExbConfigRoutes(app, ctx);
  await registerExbProofRoutes(app, ctx);
  await registerExbExitRoutes(app, ctx);
  await registerExbStudentRoutes(app, ctx);
  return app;
}
