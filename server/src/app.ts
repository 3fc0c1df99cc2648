import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import fastifySecureSession from '@fastify/secure-session';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { systemClock, type Clock } from './clock.js';
import type { AppConfig } from './config/app-config.js';
import { fastifyTrustProxy } from './config/trust-proxy.js';
import type { AppContext } from './context.js';
import type { Database } from './db/orm.js';
import { loadExbCertificate } from './config/exb-certificate.js';
import type { ExbRequirementLookup } from './domain/exb-requirement.js';
import {
  ACCESS_CODE_ROUTE,
  ACCESS_PROOF_ROUTE,
  CONFIG_DOWNLOAD_ROUTE,
  CONFIG_GRANT_ROUTE,
  DETECTOR_SCRIPT_ALIAS_ROUTE,
  DETECTOR_SCRIPT_ROUTE,
  EXB_LAUNCH_LOGIN_ROUTE,
  EXB_LAUNCH_ROUTE,
  LTI_LAUNCH_ROUTE,
  LTI_LOGIN_ROUTE,
  REQUIREMENT_ROUTE,
  THEME_LOADER_ROUTE,
} from '@exb/shared/service-paths.js';
import { AccessLogController, registerAccessLog } from './http/kit/access-log.js';
import { limitBodyTime } from './http/kit/body-deadline.js';
import { createClientErrorHandler } from './http/kit/client-errors.js';
import { frameworkErrorHandler, MAX_PARAM_LENGTH, registerErrorHandlers } from './http/kit/errors.js';
import { notFoundPage } from './http/kit/not-found.js';
import { lazyRequestLoggerFactory } from './http/kit/request-logger.js';
import { registerAdminPresetRoutes } from './http/routes/session/admin-presets-rest.js';
import { registerAdminRestRoutes } from './http/routes/session/admin-rest.js';
import { registerConfigGrantRoutes } from './http/routes/session/config-grant.js';
import { registerExbExitRoutes } from './http/routes/session/exb-exit.js';
import { registerExbHandoffRoutes } from './http/routes/session/exb-handoff.js';
import { registerExbLaunchRoutes } from './http/routes/session/exb-launch.js';
import { registerExbPublicRoutes } from './http/routes/session/exb-public.js';
import { registerExbStudentRoutes } from './http/routes/session/exb-student.js';
import { registerExbToolsRoutes } from './http/routes/session/exb-tools.js';
import { registerLtiRoutes } from './http/routes/session/lti.js';
import { registerOAuthRoutes } from './http/routes/session/oauth.js';
import { registerPublicRoutes } from './http/routes/session/public.js';
import { registerQuizzesRestRoutes } from './http/routes/session/quizzes-rest.js';
import { registerTrpcRoutes } from './http/routes/session/trpc.js';
import { registerConfigDownloadRoutes } from './http/routes/sessionless/config-download.js';
import { registerDetectorScriptRoutes, registerDetectorTraceRoutes } from './http/routes/sessionless/detector.js';
import { registerExbProofRoutes, registerRequirementRoutes } from './http/routes/sessionless/exb-proof.js';
import { registerExbSessionStartRoutes } from './http/routes/sessionless/exb-session-start.js';
import { OutageLog } from './db/outage-log.js';
import { scheduleHousekeeping, schedulePeriodicTask } from './housekeeping.js';
import { studentStepsRetention } from './domain/exam-day/student-steps.js';
import { BackgroundVerifier } from './domain/enforcement/background-verifier.js';
import { PreExamSweep } from './domain/pre-exam-sweep/pre-exam-sweep.js';
import { RESET_LEASE_TTL_SECONDS } from './domain/course-reset/reset-lease.js';
import { postgresBudget } from './security/admission-budget.js';
import { readClientAssets, ShellRenderer } from './pages/shell.js';
import { createAdminServices } from './domain/admin-services.js';
import { createManagementServices } from './domain/management-services.js';
import { createExamBrowserServices, type ExamBrowserOptions } from './domain/exam-browser/services.js';
import { ActionTokens } from './security/action-token.js';
import { AuditLog } from './audit/audit-log.js';
import { BindingRepository } from './identity/binding-repository.js';
import { IdentityService } from './identity/identity-service.js';
import { createOAuthServices, type OAuthServiceOptions } from './oauth/services.js';
import { deriveKey } from './security/derived-keys.js';
import { OneTimeStore } from './security/one-time-store.js';
import { NotificationListener } from './db/notification-listener.js';
import { ExamDayChanges, EXAM_DAY_CHANNEL, EXAM_DAY_COALESCE_MS } from './domain/exam-day/changes.js';
import { LiveBoards } from './domain/exam-day/live-boards.js';
import { sessionCookieOptions, SESSION_COOKIE_NAME } from './security/session-cookie.js';
import { dropEndedSession } from './security/session.js';
import { adoptTokenSession, renewTokenSession, SessionTokens } from './security/session-token.js';
import { SessionGenerations } from './security/session-generations.js';
import { loadToolKeys } from './security/tool-keys.js';
import { LtiAdmission } from './lti/admission.js';
import { TransactionBinder } from './lti/login-state.js';
import { LoginStateStore } from './lti/login-state-store.js';
import { PlatformKeySet, type PlatformKeySetOptions } from './lti/platform-keys.js';

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
  /** The service clock every stored lifetime is measured with (tests: a controllable one); real time by default. */
  clock?: Clock;
  /** Tunes the student exam-browser flow (tests: small budgets). */
  examBrowser?: ExamBrowserOptions;
  /** Overrides the connection timeouts (tests: short ones). */
  timeouts?: Partial<ServerTimeouts>;
  /** Tunes the LMS key set cache (tests: a controllable clock). */
  platformKeys?: Pick<PlatformKeySetOptions, 'now' | 'cooldownMs' | 'cacheTtlMs'>;
}

export interface ServerTimeouts {
  /** The headers, and then the body, must each arrive within this; otherwise `408` and the connection closes. */
  requestMs: number;
  /** A connection without traffic either way for this long is closed (longer than any handler waits for the LMS). */
  idleMs: number;
}

/** Every request the service accepts is a few kilobytes; a client that cannot send one in 30 seconds holds a socket for nothing. */
export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = { requestMs: 30_000, idleMs: 90_000 };

export const DEFAULT_CLIENT_DIST_DIR = fileURLToPath(new URL('../../client/dist/', import.meta.url));

// Nothing the service accepts needs more than this; the launch routes set their own larger cap (`http/kit/launch-body.ts`).
const BODY_LIMIT_BYTES = 256 * 1024;

/**
 * The routes every student's quiz page and exam start calls, thousands of times a minute in an exam window: the public
 * ones, and the LTI login, launch and config grant each student's start begins with. Their successful answers are
 * counted per minute rather than logged one by one (`http/kit/access-log.ts`); refusals and failures are logged as ever.
 */
export const HOT_PATHS: ReadonlySet<string> = new Set([
  LTI_LOGIN_ROUTE.path,
  LTI_LAUNCH_ROUTE.path,
  EXB_LAUNCH_ROUTE.path,
  EXB_LAUNCH_LOGIN_ROUTE.path,
  CONFIG_GRANT_ROUTE.path,
  REQUIREMENT_ROUTE.path,
  DETECTOR_SCRIPT_ROUTE.path,
  DETECTOR_SCRIPT_ALIAS_ROUTE.path,
  THEME_LOADER_ROUTE.path,
  ACCESS_PROOF_ROUTE.path,
  ACCESS_CODE_ROUTE.path,
  CONFIG_DOWNLOAD_ROUTE.path,
]);

export async function createContext(options: BuildAppOptions): Promise<AppContext> {
  const { config, logger, db } = options;
  const clientDistDir = options.clientDistDir ?? DEFAULT_CLIENT_DIST_DIR;
  const assets = readClientAssets(clientDistDir);
  if (!assets.script) logger.warn({ clientDistDir }, 'client bundle not found; run `npm run build`');
  const clock = options.clock ?? systemClock;
  const oneTimeStore = new OneTimeStore(db.pool, deriveKey(config.secrets.appSecret, 'one-time-store'), clock);
  const oauthServices = createOAuthServices(config, db.orm, oneTimeStore, logger, options.oauth);
  const { pool } = db;
  const exbCertificates = loadExbCertificate(config.exb, logger);
  const identity = new IdentityService(
    new BindingRepository(db.orm),
    oauthServices.oauth.tokens,
    oauthServices.lms,
    logger.child({ component: 'identity' }),
    Date.now,
    oauthServices.oauth.tokens,
  );
  const examBrowser = createExamBrowserServices(
    { config, pool, clock, logger, certificates: exbCertificates, lms: oauthServices.lms, tokens: oauthServices.oauth.tokens, identity },
    options.examBrowser,
  );
  const audit = new AuditLog(db.orm, logger.child({ component: 'audit' }));
  const management = createManagementServices({
    db,
    audit,
    logger,
    appSecret: config.secrets.appSecret,
    baseUrl: config.baseUrl,
    managedExitPassword: config.exb.managedQuitPassword,
    clock,
  });
  const examDayChanges = new ExamDayChanges(EXAM_DAY_COALESCE_MS, Date.now, management.examDay);
  return {
    config,
    logger,
    db,
    oneTimeStore,
    sessionGenerations: new SessionGenerations(pool),
    ...oauthServices,
    identity,
    audit,
    toolKeys: await loadToolKeys(config.lti.toolPrivateKeys),
    shell: new ShellRenderer(assets, { lmsOrigin: config.lmsUrl }),
    exbCertificates,
    platformKeys: new PlatformKeySet({ jwksUrl: config.lti.jwksUrl, ...options.platformKeys }),
    ltiAdmission: new LtiAdmission(pool, config.lti.budgets),
    transactionBinder: new TransactionBinder(deriveKey(config.secrets.appSecret, 'transaction-binding')),
    loginStates: new LoginStateStore(oneTimeStore),
    exbRequirement: options.exbRequirement ?? examBrowser.requirement,
    actionTokens: ActionTokens.fromAppSecret(config.secrets.appSecret, { now: clock }),
    sessionTokens: new SessionTokens(deriveKey(config.secrets.appSecret, 'session-token'), clock),
    management,
    admin: createAdminServices({ orm: db.orm, logger, config, management, audit }),
    examBrowser,
    databaseOutage: new OutageLog(logger),
    examDayChanges,
    liveBoards: new LiveBoards(management.examDay, examDayChanges, Date.now, logger.child({ component: 'exam-day-live' })),
  };
}

/**
 * The background access-code verifier over a context's database, grants and LMS, with the configured batch size and
 * call budget (`ACCESS_CODE_VERIFY_*`); `config` and `leaseSeconds` replace them (tests).
 */
export function createAccessCodeVerifier(
  ctx: AppContext,
  config: AppConfig['accessCodeVerifier'] = ctx.config.accessCodeVerifier,
  leaseSeconds?: number,
): BackgroundVerifier {
  return new BackgroundVerifier({
    ...(leaseSeconds === undefined ? {} : { leaseSeconds }),
    orm: ctx.db.orm,
    settings: ctx.management.settings,
    verification: ctx.management.verification,
    holderFor: (courseId, preferred) => ctx.oauth.tokens.courseManagerHolder(courseId, preferred),
    lmsFor: (holder, options) => ctx.lms.forPrincipal(holder, options),
    callBudget: postgresBudget({ name: 'access-code-verifier', points: config.callsPerMinute, durationSeconds: 60 }, ctx.db.pool),
    logger: ctx.logger.child({ component: 'access-code-verifier' }),
    config,
  });
}

/**
 * The pre-exam sweep over a context's database, grants and LMS: the verifier's grant rule, batch size and call budget
 * (the same budget row, so the two together stay within `ACCESS_CODE_VERIFY_CALLS_PER_MINUTE`); `now` and
 * `leaseSeconds` replace the clock and the lease lifetime (tests).
 */
export function createPreExamSweep(ctx: AppContext, options: { now?: () => Date; leaseSeconds?: number } = {}): PreExamSweep {
  const config = ctx.config.accessCodeVerifier;
  return new PreExamSweep({
    ...(options.leaseSeconds === undefined ? {} : { leaseSeconds: options.leaseSeconds }),
    orm: ctx.db.orm,
    records: ctx.management.sweepRecords,
    settings: ctx.management.settings,
    verification: ctx.management.verification,
    enforcement: ctx.management.enforcement,
    holderFor: (courseId, preferred) => ctx.oauth.tokens.courseManagerHolder(courseId, preferred),
    lmsFor: (holder, lmsOptions) => ctx.lms.forPrincipal(holder, lmsOptions),
    callBudget: postgresBudget({ name: 'access-code-verifier', points: config.callsPerMinute, durationSeconds: 60 }, ctx.db.pool),
    logger: ctx.logger.child({ component: 'pre-exam-sweep' }),
    now: options.now ?? (() => new Date()),
    batchSize: config.batchSize,
  });
}

/** How often every instance looks for interrupted course resets: four times per reset lease lifetime. */
export const RESET_RECOVERY_INTERVAL_MS = (RESET_LEASE_TTL_SECONDS * 1000) / 4;

/** The LMS a recovery restores codes with: the stored grant of whoever started the reset, or of another manager. */
export function resetRecoveryLms(ctx: AppContext) {
  return async (courseId: string, preferredLmsUserId: string) => {
    const holder = await ctx.oauth.tokens.courseManagerHolder(courseId, preferredLmsUserId);
    return holder === null ? null : ctx.lms.forPrincipal(holder);
  };
}

/**
 * Feeds this instance's exam-day boards from the database's notifications, on one connection of their own. Before the
 * server closes, the open boards' streams end, so they do not hold the close up.
 */
async function listenForExamDayChanges(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const listener = new NotificationListener({
    connectionString: ctx.db.url,
    channel: EXAM_DAY_CHANNEL,
    logger: ctx.logger.child({ component: 'exam-day-listener' }),
    onNotification: (payload) => ctx.examDayChanges.notified(payload),
    onReconnect: () => ctx.examDayChanges.everythingChanged(),
    connectTimeoutMs: ctx.config.databaseTimeoutMs,
  });
  app.addHook('preClose', async () => {
    ctx.liveBoards.close();
    await listener.close();
  });
  await listener.start();
}

export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const ctx = await createContext(options);
  const { config } = ctx;
  const timeouts = { ...DEFAULT_SERVER_TIMEOUTS, ...options.timeouts };
  const notFound = notFoundPage(ctx.shell, config.lmsUrl);
  const app = Fastify({
    // pino's Logger is a FastifyBaseLogger; the cast keeps the instance type the default one route modules expect.
    loggerInstance: ctx.logger as FastifyBaseLogger,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrorHandler(notFound),
    genReqId: () => randomUUID(),
    childLoggerFactory: lazyRequestLoggerFactory(),
    // The access log (`http/kit/access-log.ts`) writes one line per request at most, and none for the hot paths' successes.
    logController: new AccessLogController(),
    return503OnClosing: true,
    requestTimeout: timeouts.requestMs,
    connectionTimeout: timeouts.idleMs,
    // Node looks for overdue requests every 30 seconds by default, which would let one live twice its timeout.
    http: { connectionsCheckingInterval: Math.min(1_000, Math.max(25, Math.floor(timeouts.requestMs / 10))) },
    clientErrorHandler: createClientErrorHandler(ctx.logger as FastifyBaseLogger),
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

  registerErrorHandlers(app, { lmsOrigin: config.lmsUrl, databaseOutage: ctx.databaseOutage, notFoundPage: notFound });
  registerAccessLog(app, HOT_PATHS);
  limitBodyTime(app, timeouts.requestMs);
  scheduleHousekeeping(app, {
    oneTimeTokens: ctx.oneTimeStore,
    examBrowserTokens: ctx.examBrowser.store,
    examDayExemptions: ctx.management.exemptions,
    auditTrail: { purgeExpired: () => ctx.audit.purgeOlderThan(new Date(Date.now() - config.audit.retentionDays * 86_400_000)) },
    preExamSweeps: ctx.management.sweepRecords,
    examDayLmsReads: { purgeExpired: () => ctx.management.examDay.lmsStore.purgeOlderThan(new Date(Date.now() - config.examDay.retentionDays * 86_400_000)) },
    examDayRecords: studentStepsRetention(ctx.db.pool, config.examDay.retentionDays),
  });
  await listenForExamDayChanges(app, ctx);
  const verifier = createAccessCodeVerifier(ctx);
  schedulePeriodicTask(app, 'access-code verification', config.accessCodeVerifier.intervalSeconds * 1000, () => verifier.runBatch());
  app.addHook('onClose', () => verifier.stop());
  const sweep = createPreExamSweep(ctx);
  schedulePeriodicTask(app, 'pre-exam sweep', config.accessCodeVerifier.preExamSweepIntervalSeconds * 1000, () => sweep.run());
  app.addHook('onClose', () => sweep.stop());
  // A course reset whose process died is finished or undone from its journal once its lease expired: at this
  // instance's start, then a few times per lease lifetime, so the LMS and the records agree within one lifetime.
  schedulePeriodicTask(app, 'course-reset recovery', RESET_RECOVERY_INTERVAL_MS, () => ctx.admin.resetRecovery.sweep(resetRecoveryLms(ctx)), {
    atStart: true,
  });

  // The hot public routes (the quiz page's scripts and requirement check, the proof and redemption, the exam browser's
  // download) read no cookie and keep no session: they live outside the session's scope and pay none of its hooks.
  // The scripts, which pages load with script tags, have a scope of their own, without the LMS origin's CORS hook.
  await app.register(async (scripts) => {
    await registerDetectorScriptRoutes(scripts, ctx);
  });
  await app.register(async (sessionless) => {
    await registerDetectorTraceRoutes(sessionless, ctx);
    await registerRequirementRoutes(sessionless, ctx);
    await registerExbProofRoutes(sessionless, ctx);
    await registerConfigDownloadRoutes(sessionless, ctx);
    await registerExbSessionStartRoutes(sessionless, ctx);
  });
  await app.register(async (withSession) => {
    await withSession.register(fastifyCookie);
    await withSession.register(fastifySecureSession, {
      key: deriveKey(config.secrets.appSecret, 'session-cookie'),
      cookieName: SESSION_COOKIE_NAME,
      cookie: sessionCookieOptions(),
    });
    // The session codec stays reachable on the application itself (tests and benchmarks seal and open cookies with it).
    app.decorate('createSecureSession', withSession.createSecureSession);
    app.decorate('encodeSecureSession', withSession.encodeSecureSession);
    app.decorate('decodeSecureSession', withSession.decodeSecureSession);
    // After the cookie is opened and before any route reads it: a request carrying the session as a header token is
    // served with that session (`security/session-token.ts`), and its answer brings a fresh token.
    withSession.addHook('onRequest', async (request) => adoptTokenSession(request, ctx.sessionTokens, withSession.createSecureSession));
    withSession.addHook('onSend', async (request, reply) => renewTokenSession(request, reply, ctx.sessionTokens));
    // Then a session whose person's sessions were ended is gone.
    withSession.addHook('onRequest', (request) => dropEndedSession(request, ctx.sessionGenerations));

    await registerPublicRoutes(withSession, ctx);
    await registerLtiRoutes(withSession, ctx);
    await registerExbLaunchRoutes(withSession, ctx);
    await registerExbPublicRoutes(withSession, ctx);
    await registerTrpcRoutes(withSession, ctx);
    await registerOAuthRoutes(withSession, ctx);
    await registerQuizzesRestRoutes(withSession, ctx);
    await registerAdminRestRoutes(withSession, ctx);
    await registerAdminPresetRoutes(withSession, ctx);
    await registerConfigGrantRoutes(withSession, ctx);
    await registerExbToolsRoutes(withSession, ctx);
    await registerExbExitRoutes(withSession, ctx);
    await registerExbStudentRoutes(withSession, ctx);
    await registerExbHandoffRoutes(withSession, ctx);
  });
  return app;
}
