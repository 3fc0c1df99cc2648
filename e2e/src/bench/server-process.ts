import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import v8 from 'node:v8';
import Fastify from 'fastify';
import pino from 'pino';
import { buildApp } from '@exb/server';
import { loadConfig } from '@exb/server/config/app-config.js';
import { openDatabase } from '@exb/server/db/orm.js';
import { defaultAssessmentSettings } from '@exb/server/domain/settings/model.js';
import { createSettingsRepository } from '@exb/server/domain/settings/settings-repository.js';
import { BindingRepository } from '@exb/server/identity/binding-repository.js';
import { createLogger } from '@exb/server/logger.js';
import { createExamBrowserServices } from '@exb/server/domain/exam-browser/services.js';
import { loadExbCertificate } from '@exb/server/config/exb-certificate.js';
import { IdentityService } from '@exb/server/identity/identity-service.js';
import { createOAuthServices } from '@exb/server/oauth/services.js';
import { deriveKey } from '@exb/server/security/derived-keys.js';
import { OneTimeStore } from '@exb/server/security/one-time-store.js';
import { randomToken } from '@exb/server/security/random-token.js';
import { SESSION_COOKIE_NAME } from '@exb/server/security/session-cookie.js';
import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';

/**
 * A server the benchmarks measure from outside, in its own process so that its CPU time is its own: `bare` (a bare
 * Fastify 5 server: a JSON route and a static string route) or `service` (the service as production runs it, from the
 * environment the parent passes, with its log written synchronously to a file). Speaks to the parent over IPC:
 * `cpu` answers `process.cpuUsage()` and the peak RSS, `memory` the memory of a phase of the run; the service also
 * mints one-time tokens for the windows that measure one step alone, and `statements` answers how many statements it
 * has sent to PostgreSQL so far (each one a round trip); for the exam-day benchmark it seals the instructor's session
 * and records one exam-day step of a student.
 */

export type ServerRequest =
  | { id: number; type: 'cpu' }
  | { id: number; type: 'statements' }
  | { id: number; type: 'memory'; phase: string }
  | { id: number; type: 'mint'; purpose: 'config-grant' | 'access-proof'; contentId: string; count: number; payload?: unknown }
  | { id: number; type: 'instructor-session' }
  | { id: number; type: 'authorize-students'; students: AuthorizedUser[] }
  | { id: number; type: 'stop' };

/** A user who has connected their LMS account, with the token the development LMS issued. */
export interface AuthorizedUser {
  lmsUserId: string;
  ltiSubject: string;
  accessToken: string;
  refreshToken: string | null;
  name: string;
}

export interface ServerSeed {
  courseId: string;
  contentIds: string[];
  courseContextId: string;
  student: AuthorizedUser;
  /** The course's instructor, whose grant proves them when the exam-day benchmark opens boards as them. */
  instructor?: AuthorizedUser;
  staticBytes: number;
  logFile?: string;
  /** Per-principal and per-address budgets far above what a benchmark sends from one address. */
  budget: number;
}

async function startBare(seed: ServerSeed): Promise<{ port: number; handle: (request: ServerRequest) => Promise<unknown> }> {
  const app = Fastify();
  const staticBody = 'x'.repeat(seed.staticBytes);
  app.get('/bench/bare', async () => ({ success: true, exbRequired: true }));
  app.get('/bench/static', async (_request, reply) => reply.type('application/javascript; charset=utf-8').send(staticBody));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    handle: async (request) => {
      if (request.type === 'stop') await app.close();
      return null;
    },
  };
}

async function startService(seed: ServerSeed): Promise<{ port: number; handle: (request: ServerRequest) => Promise<unknown> }> {
  const config = loadConfig(process.env);
  if (seed.logFile !== undefined) mkdirSync(path.dirname(seed.logFile), { recursive: true });
  const logger = createLogger(
    config.logLevel,
    seed.logFile === undefined ? undefined : pino.destination({ dest: seed.logFile, sync: true }),
  );
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    logger,
    connectTimeoutMs: config.databaseTimeoutMs,
    statementTimeoutMs: config.databaseTimeoutMs,
  });
  await db.migrate();
  const statements = countStatements(db.pool);
  const budget = seed.budget;
  const app = await buildApp({
    config,
    logger,
    db,
    examBrowser: {
      budgets: {
        grantPerPrincipal: budget,
        grantPerIp: budget,
        downloadPerIp: budget,
        proofPerIp: budget,
        redeemPerIp: budget,
        readinessPerPrincipal: budget,
      },
    },
  });
  await app.listen({ port: config.port, host: config.host });

  const settings = createSettingsRepository(db, config.secrets.appSecret);
  for (const contentId of seed.contentIds) {
    await settings.saveAssessmentSettings(seed.courseId, {
      ...defaultAssessmentSettings(seed.courseId, contentId),
      exbRequired: true,
      enabled: true,
      accessCode: 'bench-code-1',
      exitPasswordOverride: 'bench-exit',
    });
  }
  const oneTimeStore = new OneTimeStore(db.pool, deriveKey(config.secrets.appSecret, 'one-time-store'));
  const oauth = createOAuthServices(config, db.orm, oneTimeStore, logger);
  const authorize = (user: AuthorizedUser) =>
    oauth.oauth.tokens.saveAuthorization({
      lmsUserId: user.lmsUserId,
      scopes: APPLICATION_SCOPES,
      accessToken: user.accessToken,
      refreshToken: user.refreshToken,
      expiresInSeconds: null,
      lmsUserName: user.name,
      lmsGlobalUserId: null,
      lmsRegion: null,
      accountId: null,
      ltiIssuer: config.lti.issuer,
      ltiSubject: user.ltiSubject,
    });
  await authorize(seed.student);
  if (seed.instructor !== undefined) await authorize(seed.instructor);
  // The course is proven for its signed context, as after the first instructor's authorization.
  await new BindingRepository(db.orm).recordContext(
    { issuer: config.lti.issuer, kind: 'course', ltiContextId: seed.courseContextId, lmsId: seed.courseId },
    { lmsUserId: '2', role: 'instructor' },
  );

  const services = createExamBrowserServices({
    config,
    pool: db.pool,
    logger,
    certificates: loadExbCertificate(config.exb, logger),
    lms: oauth.lms,
    tokens: oauth.oauth.tokens,
    identity: new IdentityService(new BindingRepository(db.orm), oauth.oauth.tokens, oauth.lms, logger),
  });

  return {
    port: config.port,
    handle: async (request) => {
      switch (request.type) {
        case 'statements':
          return statements.count;
        case 'mint': {
          const policy = await services.loadPolicy(seed.courseId, request.contentId);
          if (policy === null || !policy.active) throw new Error(`${request.contentId} is not enforced`);
          const binding = { courseId: seed.courseId, contentId: request.contentId, fingerprint: policy.fingerprint };
          // Proof tokens are signed, not stored: 120 seconds from now, as the proof route mints them.
          if (request.purpose === 'access-proof') return Array.from({ length: request.count }, () => services.proofs.issueToken(binding));
          const tokens: string[] = [];
          for (let offset = 0; offset < request.count; offset += 1000) {
            const batch = Array.from({ length: Math.min(1000, request.count - offset) }, () => ({
              purpose: request.purpose,
              courseId: seed.courseId,
              contentId: request.contentId,
              fingerprint: policy.fingerprint,
              // Long enough for the whole run, which the service's clock measures in real time.
              ttlSeconds: 3600,
              ...(request.payload === undefined ? {} : { payload: request.payload }),
            }));
            for (const issued of await services.store.issue(batch)) tokens.push(issued.token);
          }
          return tokens;
        }
        case 'authorize-students':
          // The class of a synchronized start, each having connected their LMS account before the exam.
          for (const student of request.students) await authorize(student);
          return null;
        case 'instructor-session': {
          // The session cookie a launch leaves the course's instructor with, sealed with the service's own key.
          const instructor = seed.instructor;
          if (instructor === undefined) throw new Error('the seed names no instructor');
          const principal = {
            kind: 'instructor',
            lmsUserId: instructor.lmsUserId,
            ltiSubject: instructor.ltiSubject,
            issuer: config.lti.issuer,
            deploymentId: config.lti.deploymentIds[0] ?? '',
            ltiContextId: seed.courseContextId,
            courseId: seed.courseId,
          };
          const data = { sid: randomToken(), principal, launchTarget: '/lti/launch', exbLaunches: {}, createdAt: Date.now(), generation: 0 };
          return `${SESSION_COOKIE_NAME}=${encodeURIComponent(app.encodeSecureSession(app.createSecureSession({ data })))}`;
        }
        case 'stop':
          await app.close();
          await db.close();
          return null;
        default:
          return null;
      }
    },
  };
}

/**
 * Counts every statement the pool's connections send (the ORM's, the named hot statements, `begin` and `commit`): a
 * figure that, unlike CPU time, does not vary from run to run.
 */
function countStatements(pool: object): { readonly count: number } {
  const counter = { count: 0 };
  // pg's pool makes its connections from the client class it keeps as `Client`.
  const { prototype } = (pool as { Client: { prototype: { query: (...args: unknown[]) => unknown } } }).Client;
  const query = prototype.query;
  prototype.query = function (this: unknown, ...args: unknown[]) {
    counter.count += 1;
    return query.apply(this, args);
  };
  return counter;
}

/** Memory of this process in megabytes, as `process.memoryUsage()` reports it. */
export interface MemoryFigures {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/** One phase of a run: the memory at its end and the highest of each figure seen during it (sampled every 250 ms). */
export interface MemoryPhase {
  phase: string;
  end: MemoryFigures;
  peak: MemoryFigures;
}

const MB = 1024 * 1024;

function memoryNow(): MemoryFigures {
  const usage = process.memoryUsage();
  return {
    rss: usage.rss / MB,
    heapTotal: usage.heapTotal / MB,
    heapUsed: usage.heapUsed / MB,
    external: usage.external / MB,
    arrayBuffers: usage.arrayBuffers / MB,
  };
}

/**
 * Samples this process's memory every 250 ms (a sample reads V8's heap statistics, which costs the process CPU time the
 * benchmark counts) and keeps the highest figures since the last phase ended; `BENCH_HEAP_SNAPSHOT_DIR` also writes a
 * V8 heap snapshot at the end of every phase.
 */
class MemoryWatch {
  private peak = memoryNow();
  private readonly timer = setInterval(() => this.sample(), 250);

  constructor(
    private readonly snapshotDir: string | undefined,
    private readonly profiler: PhaseProfiler | undefined,
  ) {
    this.timer.unref();
  }

  private sample(): MemoryFigures {
    const now = memoryNow();
    for (const key of Object.keys(now) as (keyof MemoryFigures)[]) this.peak[key] = Math.max(this.peak[key], now[key]);
    return now;
  }

  async endPhase(phase: string): Promise<MemoryPhase> {
    const end = this.sample();
    const result = { phase, end, peak: this.peak };
    this.peak = { ...end };
    if (this.snapshotDir !== undefined) {
      mkdirSync(this.snapshotDir, { recursive: true });
      v8.writeHeapSnapshot(path.join(this.snapshotDir, `service-${fileSafe(phase)}.heapsnapshot`));
    }
    await this.profiler?.endPhase(phase);
    return result;
  }
}

function fileSafe(phase: string): string {
  return phase.replace(/[^a-z0-9-]+/gi, '-');
}

/**
 * One V8 CPU profile per phase of the run (`<dir>/service-<phase>.cpuprofile`, for Chromium's DevTools or any
 * `.cpuprofile` reader), so a phase's time is not mixed with the minting and warm-up around it.
 */
class PhaseProfiler {
  private constructor(
    private readonly session: Session,
    private readonly dir: string,
  ) {}

  static async start(dir: string): Promise<PhaseProfiler> {
    mkdirSync(dir, { recursive: true });
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    // Finer than the default millisecond: a request here is tens of microseconds.
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    return new PhaseProfiler(session, dir);
  }

  async endPhase(phase: string): Promise<void> {
    const { profile } = await this.session.post('Profiler.stop');
    writeFileSync(path.join(this.dir, `service-${fileSafe(phase)}.cpuprofile`), JSON.stringify(profile));
    await this.session.post('Profiler.start');
  }
}

async function main(): Promise<void> {
  const kind = process.argv[2];
  const seed = JSON.parse(process.env.BENCH_SEED ?? '{}') as ServerSeed;
  const server = kind === 'bare' ? await startBare(seed) : await startService(seed);
  const profileDir = process.env.BENCH_PROFILE_DIR || undefined;
  const memory = new MemoryWatch(
    process.env.BENCH_HEAP_SNAPSHOT_DIR || undefined,
    kind === 'service' && profileDir !== undefined ? await PhaseProfiler.start(profileDir) : undefined,
  );
  process.on('message', (message: ServerRequest) => {
    const answer = (result: unknown, error?: unknown) =>
      process.send?.({ id: message.id, result, error: error === undefined ? undefined : String(error instanceof Error ? error.stack : error) });
    if (message.type === 'cpu') {
      answer({ cpu: process.cpuUsage(), maxRssKb: process.resourceUsage().maxRSS, rss: process.memoryUsage().rss });
      return;
    }
    if (message.type === 'memory') {
      memory.endPhase(message.phase).then(answer, (error: unknown) => answer(null, error));
      return;
    }
    server.handle(message).then(
      (result) => {
        answer(result);
        if (message.type === 'stop') process.disconnect();
      },
      (error: unknown) => answer(null, error),
    );
  });
  process.send?.({ ready: true, port: server.port });
}

main().catch((error: unknown) => {
  process.stderr.write(`bench server failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
