import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { randomBytes, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { generateSelfSignedCertificate } from '@exb/server/exb/certificate.js';
import { openDatabase } from '@exb/server/db/orm.js';
import { configKeyHashForUrl } from '@exb/server/exb/config-key.js';
import { freePort } from '@exb/server/free-port.js';
import { PRODUCTION_NODE_FLAGS } from '@exb/server/main.js';
import { createLogger } from '@exb/server/logger.js';
import { SESSION_COOKIE_NAME } from '@exb/server/security/session-cookie.js';
import { DETECTOR_SCRIPT_PATH, THEME_LOADER_PATH } from '@exb/server/http/detector.js';
import { openConfiguration } from '../exb-simulator/open.js';
import { opaqueId, stableUuid } from '../lms/ids.js';
import { createMockLms, type MockLms, type RunningLmsServer } from '../lms/index.js';
import { assertLoopback, formatLoadResult, mergeResults, runLoad, type LoadResult } from './load.js';
import type { MemoryFigures, MemoryPhase, ServerRequest, ServerSeed } from './server-process.js';

/**
 * The student hot paths as a synchronized exam start meets them, measured from outside. The service runs in production
 * mode in a child process of its own (its log written synchronously to a file, as a production process writes it);
 * a bare Fastify 5 server runs in a second child process in the same run; the development LMS (over TLS, since
 * production only talks HTTPS to the LMS) and the load generator run here. The two servers' CPU time is read from
 * inside them (`process.cpuUsage()`, all threads) before and after every measured window, so the CPU per request is
 * the server's own, whatever the generator costs. Windows alternate between the bare server and the service, round
 * after round, so drift in a shared machine hits both.
 *
 * Paths: the requirement check (against the bare JSON route), the detector and theme-loader scripts (against a bare
 * static string route of the detector's size), the proof (against a class's worth of stored per-download Config Keys),
 * the redemption, the download (with a fresh LMS session URL, and without one), and the whole start (LTI login →
 * launch → grant → HEAD → GET → proof → redemption, the id_token signed by the development LMS). Then a synchronized
 * start: 3,000 students, 100 at a time, each loading the quiz page's scripts and requirement and then running the
 * whole start. One-time tokens cannot be replayed, so the redemption and download windows draw from tokens the service
 * mints beforehand; a start mints its own, from its own launch.
 */

export interface StudentBenchOptions {
  durationMs?: number;
  rounds?: number;
  connections?: number;
  /** Students of the synchronized start, and how many start at once. */
  students?: number;
  studentsAtOnce?: number;
  /** Writes V8 CPU profiles of the service process here (`--cpu-prof`). */
  profileDir?: string;
  /** Also measures the whole start cut after each step, for the server CPU of each step. */
  startSteps?: boolean;
}

export interface PathResult {
  key: string;
  label: string;
  result: LoadResult;
  /** Server CPU time per request (per start for the whole start), microseconds. */
  cpuMicros: number;
  /** The bare route's CPU per request over this path's, where a bare route compares. */
  cpuRatio?: number;
}

export interface SyncStartResult {
  students: number;
  atOnce: number;
  failures: number;
  durationMs: number;
  steps: { step: string; p99: number; p50: number }[];
  cpuMicrosPerStudent: number;
  firstFailure?: string;
}

export interface StudentBenchResult {
  paths: PathResult[];
  sync: SyncStartResult;
  storedConfigKeys: number;
  peakRssMb: number;
  /** The Node flags the service ran with. */
  serviceFlags: string[];
  /** With `startSteps`: the server CPU per start of each step of the whole start, microseconds. */
  startSteps?: { step: string; cpuMicros: number }[];
  /** The service's memory per phase of the run, in order (a path measured in several rounds is one phase). */
  memory: MemoryPhase[];
  logLines: number;
}

const COURSE = '101';
/** The quiz the proof is measured on: its stored keys stay at the class size. */
const QUIZ = 'classicquiz_201';
/** The quiz the download and start rounds use, so their keys do not grow the proof's candidate set. */
const DOWNLOAD_QUIZ = 'classicquiz_202';
/** The development LMS's first student; its LTI subject is the one the LMS signs into launches. */
const STUDENT = { lmsUserId: '3', ltiSubject: stableUuid('user:3') };
const COURSE_CONTEXT_ID = opaqueId('course', 101);
const DEPLOYMENT_ID = '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb';
const LTI_ISSUER = 'https://canvas.bench.test';
const BASE_URL = 'https://exb.bench.test';
/** Downloads made before measuring, so the proof compares against a class's worth of stored keys. */
const CLASS_SIZE = 200;
const HUGE_BUDGET = 100_000_000;
/** Tokens the service mints for the benchmark per call. */
const MINT_BATCH = 1_000;
/** What a TLS-terminating proxy in front adds; the service trusts loopback proxies. */
const PROXY_HEADERS = { 'x-forwarded-for': '198.51.100.7', 'x-forwarded-proto': 'https' };
const SERVER_SCRIPT = fileURLToPath(new URL('./server-process.js', import.meta.url));

class ServerProcess {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();

  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
  ) {
    child.on('message', (message: { id?: number; result?: unknown; error?: string }) => {
      if (message.id === undefined) return;
      const waiter = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      if (message.error !== undefined) waiter?.reject(new Error(message.error));
      else waiter?.resolve(message.result);
    });
  }

  static start(kind: 'bare' | 'service', env: NodeJS.ProcessEnv, seed: ServerSeed, profileDir?: string): Promise<ServerProcess> {
    const child = fork(SERVER_SCRIPT, [kind], {
      env: { ...env, BENCH_SEED: JSON.stringify(seed) },
      execArgv: [
        ...(profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]),
        ...(kind === 'service' ? serviceNodeFlags() : []),
      ],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new Promise((resolve, reject) => {
      const failed = (code: number | null) => reject(new Error(`the ${kind} server exited with ${code} before it was ready`));
      child.once('exit', failed);
      child.once('message', (message: { ready?: boolean; port?: number }) => {
        if (message.ready !== true) return;
        child.off('exit', failed);
        resolve(new ServerProcess(child, message.port!));
      });
    });
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  call<T>(request: ServerRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.child.send({ ...request, id });
    });
  }

  /** CPU time of the whole process (every thread) so far, microseconds. */
  async cpu(): Promise<{ micros: number; maxRssKb: number }> {
    const usage = await this.call<{ cpu: NodeJS.CpuUsage; maxRssKb: number }>({ type: 'cpu' });
    return { micros: usage.cpu.user + usage.cpu.system, maxRssKb: usage.maxRssKb };
  }

  /** Ends a memory phase in the service process: its memory now and the highest seen since the last phase ended. */
  memory(phase: string): Promise<MemoryPhase> {
    return this.call<MemoryPhase>({ type: 'memory', phase });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    await this.call({ type: 'stop' }).catch(() => undefined);
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
  }
}

/** The service runs with the flags production starts it with, unless BENCH_SERVICE_NODE_FLAGS names others ('' for none). */
function serviceNodeFlags(): string[] {
  return (process.env.BENCH_SERVICE_NODE_FLAGS ?? PRODUCTION_NODE_FLAGS.join(' ')).split(' ').filter(Boolean);
}

/** Runs `work` and reads the server's CPU time around it. */
async function measured(server: ServerProcess, work: () => Promise<LoadResult>): Promise<{ result: LoadResult; cpuMicros: number }> {
  const before = await server.cpu();
  const result = await work();
  const after = await server.cpu();
  return { result, cpuMicros: after.micros - before.micros };
}

interface Environment {
  bare: ServerProcess;
  service: ServerProcess;
  lms: MockLms;
  lmsServer: RunningLmsServer;
  lmsUrl: string;
  identity: { certificatePem: string; privateKeyPem: string };
  logFile: string;
  close(): Promise<void>;
}

async function startEnvironment(profileDir: string | undefined): Promise<Environment> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'exb-bench-student-'));
  const cleanups: (() => Promise<unknown> | unknown)[] = [() => rmSync(dataDir, { recursive: true, force: true })];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  };
  try {
    const database = await benchDatabase(dataDir);
    cleanups.push(() => database.drop());

    // Production talks HTTPS to the LMS: the development LMS gets a certificate for 127.0.0.1 the service trusts.
    const lmsTlsKey = path.join(dataDir, 'lms-tls-key.pem');
    const lmsTlsCert = path.join(dataDir, 'lms-tls-cert.pem');
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', lmsTlsKey, '-out', lmsTlsCert,
    ], { stdio: 'ignore' });
    const lmsPort = await freePort();
    const lmsUrl = `https://127.0.0.1:${lmsPort}`;
    const lms = createMockLms({
      baseUrl: lmsUrl,
      issuer: LTI_ISSUER,
      tool: {
        baseUrl: BASE_URL,
        clientId: '10000000000001',
        deploymentId: DEPLOYMENT_ID,
        oauthClientId: '170000000000042',
        oauthClientSecret: 'bench-oauth-client-secret',
      },
    });
    const lmsServer = await lms.startHttpServer({
      port: lmsPort,
      tls: { cert: readFileSync(lmsTlsCert, 'utf8'), key: readFileSync(lmsTlsKey, 'utf8') },
    });
    cleanups.push(() => lmsServer.close());

    // Production is given every secret; these are made for the run.
    const certificate = generateSelfSignedCertificate({ commonName: 'exam-enforcement bench', days: 2 });
    const certificateFile = path.join(dataDir, 'exb-certificate.pem');
    writeFileSync(certificateFile, certificate.certificatePem);
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const servicePort = await freePort();
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      BASE_URL,
      PORT: String(servicePort),
      HOST: '127.0.0.1',
      TRUST_PROXY: 'loopback',
      LMS_URL: lmsUrl,
      LTI_ISSUER,
      LTI_CLIENT_ID: '10000000000001',
      LTI_DEPLOYMENT_ID: DEPLOYMENT_ID,
      LMS_OAUTH_CLIENT_ID: '170000000000042',
      LMS_OAUTH_CLIENT_SECRET: 'bench-oauth-client-secret',
      APP_SECRET: randomBytes(48).toString('base64url'),
      TOKEN_ENCRYPTION_KEYS: `bench1:${randomBytes(32).toString('base64')}`,
      LTI_TOOL_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      EXB_CONFIG_CERTIFICATE: certificateFile,
      DATA_DIR: dataDir,
      NODE_EXTRA_CA_CERTS: lmsTlsCert,
      ...(process.env.BENCH_HEAP_SNAPSHOT_DIR ? { BENCH_HEAP_SNAPSHOT_DIR: process.env.BENCH_HEAP_SNAPSHOT_DIR } : {}),
      ...(process.env.MALLOC_ARENA_MAX ? { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX } : {}),
      ...(database.url === undefined ? {} : { DATABASE_URL: database.url }),
    };
    const issued = lms.oauth.issueToken({ user: Number(STUDENT.lmsUserId), scopes: APPLICATION_SCOPES, expiresIn: null });
    const logFile = path.join(dataDir, 'service.log');
    const seed: ServerSeed = {
      courseId: COURSE,
      contentIds: [QUIZ, DOWNLOAD_QUIZ],
      courseContextId: COURSE_CONTEXT_ID,
      student: {
        ...STUDENT,
        accessToken: issued.accessToken,
        refreshToken: issued.refreshToken,
        name: issued.response.user.name,
      },
      staticBytes: 0,
      logFile,
      budget: HUGE_BUDGET,
    };
    const service = await ServerProcess.start('service', env, seed, profileDir);
    cleanups.push(() => service.stop());
    assertLoopback(new URL(service.origin));

    const probe = await request(new http.Agent(), service.origin, 'GET', DETECTOR_SCRIPT_PATH);
    if (probe.status !== 200) throw new Error(`the detector script answered ${probe.status}; run \`npm run build\` first`);
    const bare = await ServerProcess.start('bare', { PATH: process.env.PATH }, { ...seed, staticBytes: probe.body.length, logFile: undefined });
    cleanups.push(() => bare.stop());

    return {
      bare,
      service,
      lms,
      lmsServer,
      lmsUrl,
      identity: { certificatePem: certificate.certificatePem, privateKeyPem: certificate.privateKeyPem },
      logFile,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

export async function benchStudent(options: StudentBenchOptions = {}): Promise<StudentBenchResult> {
  const durationMs = options.durationMs ?? 3_000;
  const rounds = options.rounds ?? 3;
  const connections = options.connections ?? 16;
  const env = await startEnvironment(options.profileDir);
  try {
    const { bare, service } = env;
    const origin = service.origin;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256 });
    const grantPayload = (sessionUserId: string | null) => ({
      principal: { kind: sessionUserId === null ? 'instructor' : 'student', issuer: LTI_ISSUER, ...STUDENT },
      sessionUserId,
    });
    // The service's memory, phase by phase; a phase seen in several rounds keeps its highest figures and last end.
    const memory = new Map<string, MemoryPhase>();
    const phase = async (name: string) => {
      const seen = await service.memory(name);
      const before = memory.get(name);
      memory.set(name, before === undefined ? seen : { phase: name, end: seen.end, peak: maxFigures(before.peak, seen.peak) });
    };
    await phase('started');
    // Minting is the benchmark's own work in the service process: a thousand tokens at a time, so the service never
    // holds a whole window's worth at once, and kept apart from the paths' phases.
    const mint = async (purpose: 'config-grant' | 'access-proof', contentId: string, count: number, payload?: unknown) => {
      const tokens: string[] = [];
      for (let minted = 0; minted < count; minted += MINT_BATCH) {
        const batch = Math.min(MINT_BATCH, count - minted);
        tokens.push(...(await service.call<string[]>({ type: 'mint', purpose, contentId, count: batch, ...(payload === undefined ? {} : { payload }) })));
      }
      await phase('bench: minting tokens');
      return tokens;
    };

    // A class downloads: every student's configuration carries its own session URL and Config Key.
    const classGrants = await mint('config-grant', QUIZ, CLASS_SIZE, grantPayload(STUDENT.lmsUserId));
    let lastConfigKey = '';
    await inParallel(classGrants, 16, async (grant) => {
      const response = await request(agent, origin, 'GET', downloadPath(QUIZ, grant));
      if (response.status !== 200) throw new Error(`class download answered ${response.status}: ${response.body.toString()}`);
      lastConfigKey = openConfiguration(response.body, env.identity).configKey;
    });
    const takeUrl = new URL(`/courses/${COURSE}/quizzes/201/take`, env.lmsUrl).href;
    const proofBody = JSON.stringify({ configKeyHash: configKeyHashForUrl(takeUrl, lastConfigKey), url: takeUrl });
    const proof = await request(agent, origin, 'POST', `/api/exb/access-proof/${COURSE}/${QUIZ}`, proofBody, { 'content-type': 'application/json' });
    if (proof.status !== 200) throw new Error(`proof answered ${proof.status}: ${proof.body.toString()}`);
    await phase('class downloads');

    const fixed = {
      'bare-json': { server: bare, url: `${bare.origin}/bench/bare` },
      requirement: { server: service, url: `${origin}/api/exb/requirement/${COURSE}/${QUIZ}`, headers: { ...PROXY_HEADERS, origin: env.lmsUrl } },
      'bare-static': { server: bare, url: `${bare.origin}/bench/static` },
      detector: { server: service, url: `${origin}${DETECTOR_SCRIPT_PATH}`, headers: PROXY_HEADERS },
      'theme-loader': { server: service, url: `${origin}${THEME_LOADER_PATH}`, headers: PROXY_HEADERS },
      proof: {
        server: service,
        url: `${origin}/api/exb/access-proof/${COURSE}/${QUIZ}`,
        method: 'POST',
        headers: { ...PROXY_HEADERS, origin: env.lmsUrl, 'content-type': 'application/json' },
        body: proofBody,
      },
    } as const;
    const windows: Record<string, { result: LoadResult; cpuMicros: number }[]> = {};
    const record = async (key: string, server: ServerProcess, window: { result: LoadResult; cpuMicros: number }) => {
      (windows[key] ??= []).push(window);
      await phase(server === service ? key : 'idle (bare server measured)');
    };

    // Warm-up: caches, JIT, connection pools.
    for (const { server: _server, ...target } of Object.values(fixed)) {
      await runLoad({ ...target, connections, durationMs: Math.min(durationMs, 500) });
    }
    const startTakeUrl = new URL(`/courses/${COURSE}/quizzes/202/take`, env.lmsUrl).href;
    await runIterations(connections, Math.min(durationMs, 500), null, () => studentStart(agent, env, startTakeUrl));
    await phase('warm-up');

    for (let round = 0; round < rounds; round += 1) {
      for (const [key, { server, ...target }] of Object.entries(fixed)) {
        await record(key, server, await measured(server, () => runLoad({ ...target, connections, durationMs })));
      }
      const proofTokens = await mint('access-proof', QUIZ, 30_000);
      await record(
        'redemption',
        service,
        await measured(service, () =>
          runIterations(connections, durationMs, proofTokens, (token) =>
            timed(agent, origin, 'POST', `/api/exb/access-code/${COURSE}/${QUIZ}`, undefined, {
              ...PROXY_HEADERS,
              origin: env.lmsUrl,
              'x-exb-proof-token': token,
            }),
          ),
        ),
      );
      await record('bare-json', bare, await measured(bare, () => runLoad({ ...fixed['bare-json'], connections, durationMs })));
      const sessionGrants = await mint('config-grant', DOWNLOAD_QUIZ, 6_000, grantPayload(STUDENT.lmsUserId));
      await record(
        'download',
        service,
        await measured(service, () =>
          runIterations(connections, durationMs, sessionGrants, (grant) => timed(agent, origin, 'GET', downloadPath(DOWNLOAD_QUIZ, grant), undefined, PROXY_HEADERS)),
        ),
      );
      const plainGrants = await mint('config-grant', DOWNLOAD_QUIZ, 15_000, grantPayload(null));
      await record(
        'download-deterministic',
        service,
        await measured(service, () =>
          runIterations(connections, durationMs, plainGrants, (grant) => timed(agent, origin, 'GET', downloadPath(DOWNLOAD_QUIZ, grant), undefined, PROXY_HEADERS)),
        ),
      );
      await record('start', service, await measured(service, () => runIterations(connections, durationMs, null, () => studentStart(agent, env, startTakeUrl))));
    }

    // Each step's share: starts cut after it, less the starts cut before it.
    const startSteps: { step: string; cpuMicros: number }[] = [];
    if (options.startSteps === true) {
      let before = 0;
      for (const until of START_STEPS) {
        const window = await measured(service, () =>
          runIterations(connections, durationMs, null, () => studentStart(agent, env, startTakeUrl, { until })),
        );
        const perStart = window.result.requests === 0 ? 0 : window.cpuMicros / window.result.requests;
        startSteps.push({ step: until, cpuMicros: perStart - before });
        before = perStart;
      }
      await phase('start, step by step');
    }

    const sync = await synchronizedStart(agent, env, startTakeUrl, options.students ?? 3_000, options.studentsAtOnce ?? 100, () =>
      phase('synchronized start, first half'),
    );
    agent.destroy();
    await phase('synchronized start, second half');
    // What the process gives back once the load is over.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    await phase('5 s idle afterwards');

    const merged = (key: string) => {
      const list = windows[key]!;
      const result = mergeResults(list.map((window) => window.result));
      const cpu = list.reduce((sum, window) => sum + window.cpuMicros, 0);
      return { result, cpuMicros: result.requests === 0 ? 0 : cpu / result.requests };
    };
    const bareJson = merged('bare-json');
    const bareStatic = merged('bare-static');
    const labels: [string, string, { cpuMicros: number } | undefined][] = [
      ['bare-json', 'bare Fastify JSON route', undefined],
      ['requirement', 'requirement check (200 true)', bareJson],
      ['bare-static', 'bare Fastify static route', undefined],
      ['detector', 'detector script (production)', bareStatic],
      ['theme-loader', 'theme loader script', bareStatic],
      ['proof', `access proof (${CLASS_SIZE} stored keys)`, undefined],
      ['redemption', 'access-code redemption', undefined],
      ['download', 'download, session URL (LMS call)', undefined],
      ['download-deterministic', 'download, deterministic', undefined],
      ['start', 'whole start (login to code, 7 requests)', undefined],
    ];
    const peak = await service.cpu();
    const logLines = readFileSync(env.logFile, 'utf8').split('\n').filter(Boolean).length;
    return {
      paths: labels.map(([key, label, against]) => {
        const { result, cpuMicros } = merged(key);
        return { key, label, result, cpuMicros, ...(against === undefined ? {} : { cpuRatio: against.cpuMicros / cpuMicros }) };
      }),
      sync,
      storedConfigKeys: CLASS_SIZE,
      peakRssMb: peak.maxRssKb / 1024,
      serviceFlags: serviceNodeFlags(),
      memory: [...memory.values()],
      ...(startSteps.length > 0 ? { startSteps } : {}),
      logLines,
    };
  } finally {
    await env.close();
  }
}

/** The targets of the speed work, for the summary line. */
export const STUDENT_TARGETS = { requirementRatio: 0.6, detectorRatio: 0.8, proofMicros: 250, startMicros: 6_000, rssMb: 250 } as const;

export function formatStudentBench(result: StudentBenchResult): string {
  const by = (key: string) => result.paths.find((path) => path.key === key)!;
  const lines = result.paths.map(({ label, result: r, cpuMicros, cpuRatio }) =>
    `${formatLoadResult(label, r)}  cpu ${cpuMicros >= 1000 ? `${(cpuMicros / 1000).toFixed(2)} ms` : `${cpuMicros.toFixed(0)} µs`}` +
      (cpuRatio === undefined ? '' : `  ratio ${cpuRatio.toFixed(2)}`),
  );
  const sync = result.sync;
  if (result.startSteps !== undefined) {
    lines.push(`  whole start by step, server cpu: ${result.startSteps.map(({ step, cpuMicros }) => `${step} ${cpuMicros.toFixed(0)} µs`).join(', ')}`);
  }
  lines.push(
    `synchronized start: ${sync.students} students, ${sync.atOnce} at a time: ${(sync.durationMs / 1000).toFixed(1)} s, ` +
      `${sync.failures} failed, server cpu ${(sync.cpuMicrosPerStudent / 1000).toFixed(2)} ms per student (page scripts included)` +
      (sync.firstFailure === undefined ? '' : `; first failure: ${sync.firstFailure}`),
    `  p99 per step: ${sync.steps.map((step) => `${step.step} ${step.p99.toFixed(1)} ms`).join(', ')}`,
    ...formatMemoryPhases(result.memory),
    `service peak RSS ${result.peakRssMb.toFixed(0)} MB (node ${result.serviceFlags.join(' ') || 'without flags'}); ${result.logLines} log lines written`,
  );
  const t = STUDENT_TARGETS;
  const mark = (ok: boolean) => (ok ? 'ok' : 'MISS');
  const requirement = by('requirement').cpuRatio!;
  const detector = by('detector').cpuRatio!;
  const proof = by('proof').cpuMicros;
  const start = by('start').cpuMicros;
  const missed = Object.entries({
    'requirement-ratio': requirement >= t.requirementRatio,
    'detector-ratio': detector >= t.detectorRatio,
    'proof-cpu': proof <= t.proofMicros,
    'start-cpu': start <= t.startMicros,
    sync: sync.failures === 0,
    rss: result.peakRssMb < t.rssMb,
  })
    .filter(([, ok]) => !ok)
    .map(([name]) => name);
  lines.push(
    `SUMMARY requirement-ratio ${requirement.toFixed(2)} (${mark(requirement >= t.requirementRatio)} >=${t.requirementRatio}) ` +
      `detector-ratio ${detector.toFixed(2)} (${mark(detector >= t.detectorRatio)} >=${t.detectorRatio}) ` +
      `proof-cpu ${proof.toFixed(0)}us (${mark(proof <= t.proofMicros)} <=${t.proofMicros}) ` +
      `start-cpu ${(start / 1000).toFixed(2)}ms (${mark(start <= t.startMicros)} <=${t.startMicros / 1000}) ` +
      `sync ${sync.students - sync.failures}/${sync.students} in ${(sync.durationMs / 1000).toFixed(1)}s ` +
      `rss ${result.peakRssMb.toFixed(0)}MB (${mark(result.peakRssMb < t.rssMb)} <${t.rssMb}) ` +
      (missed.length === 0 ? 'verdict PASS' : `verdict FAIL (${missed.join(', ')})`),
  );
  return lines.join('\n');
}

function maxFigures(a: MemoryFigures, b: MemoryFigures): MemoryFigures {
  return {
    rss: Math.max(a.rss, b.rss),
    heapTotal: Math.max(a.heapTotal, b.heapTotal),
    heapUsed: Math.max(a.heapUsed, b.heapUsed),
    external: Math.max(a.external, b.external),
    arrayBuffers: Math.max(a.arrayBuffers, b.arrayBuffers),
  };
}

/** One line per memory phase: the highest of each figure during it, and RSS and heap used at its end. */
export function formatMemoryPhases(phases: readonly MemoryPhase[]): string[] {
  const mb = (value: number) => `${value.toFixed(0).padStart(4)}`;
  return [
    `service memory, MB (peak during the phase: rss, heap used/total, external, array buffers; at its end: rss, heap used)`,
    ...phases.map(
      ({ phase, peak, end }) =>
        `  ${phase.padEnd(34)} peak rss ${mb(peak.rss)}  heap ${mb(peak.heapUsed)}/${mb(peak.heapTotal)}  ` +
        `ext ${mb(peak.external)}  ab ${mb(peak.arrayBuffers)}   end rss ${mb(end.rss)}  heap ${mb(end.heapUsed)}`,
    ),
  ];
}

/** A fresh database on DATABASE_URL's server, dropped afterwards; without DATABASE_URL the embedded server. */
export async function benchDatabase(dataDir: string): Promise<{ url: string | undefined; drop(): Promise<void> }> {
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl === undefined || serverUrl === '') return { url: undefined, drop: async () => undefined };
  const name = `exb_bench_${randomBytes(6).toString('hex')}`;
  const admin = await openDatabase({ databaseUrl: serverUrl, dataDir, logger: createLogger('silent'), poolSize: 1 });
  await admin.orm.em.getConnection().execute(`create database ${name}`);
  await admin.close();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const again = await openDatabase({ databaseUrl: serverUrl, dataDir, logger: createLogger('silent'), poolSize: 1 });
      try {
        await again.orm.em.getConnection().execute(`drop database if exists ${name} with (force)`);
      } finally {
        await again.close();
      }
    },
  };
}


function downloadPath(contentId: string, grant: string): string {
  return `/exb/config/${COURSE}/${contentId}.exb?grant=${grant}`;
}

interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  ms: number;
}

function request(
  agent: http.Agent,
  origin: string,
  method: string,
  pathAndQuery: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  const url = new URL(pathAndQuery, origin);
  return new Promise((resolve, reject) => {
    const sent = performance.now();
    const outgoing = http.request(
      {
        agent,
        method,
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks), ms: performance.now() - sent }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

async function timed(
  agent: http.Agent,
  origin: string,
  method: string,
  pathAndQuery: string,
  body?: string,
  headers?: Record<string, string>,
): Promise<{ ok: boolean; ms: number; bytes: number }> {
  const answer = await request(agent, origin, method, pathAndQuery, body, headers);
  return { ok: answer.status === 200, ms: answer.ms, bytes: answer.body.length };
}

type StepTimes = Record<string, number>;

/** The steps of a start after the quiz page's scripts, in order. */
const START_STEPS = ['login', 'launch', 'grant', 'head', 'download', 'proof', 'code'] as const;
type StartStep = (typeof START_STEPS)[number];

/** The cookies one browser keeps for the service: what `Set-Cookie` sets, minus what it expires. */
class CookieJar {
  private readonly cookies = new Map<string, string>();

  absorb(answer: HttpAnswer): void {
    for (const header of ([] as string[]).concat(answer.headers['set-cookie'] ?? [])) {
      const [pair = '', ...attributes] = header.split(';');
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator).trim();
      const value = pair.slice(separator + 1).trim();
      const expired = attributes.some((attribute) => /^\s*max-age\s*=\s*(0|-)/i.test(attribute));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  has(name: string): boolean {
    return this.cookies.has(name);
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** Addresses of the RFC 2544 benchmarking range, one per start, as a class's own browsers would come from. */
let nextAddress = 0;
function studentAddress(): string {
  const index = nextAddress++ % 65_536;
  return `198.18.${index >> 8}.${index & 255}`;
}

const BOOTSTRAP = /<script id="exb-bootstrap" type="application\/json">(.*?)<\/script>/s;

/**
 * One start as the student's browsers make it, from a browser of its own (its own address, no cookies): the LTI
 * launch of the assessment (login initiation and the launch the LMS posts back), the grant from the required-browser
 * page, the exam browser's HEAD and GET of the download, the proof and the redemption from the quiz page. The latency
 * is the sum of the seven requests to the service; the LMS's authorization step (signing the id_token) and decrypting
 * the downloaded file (the exam browser's work) are left out. With `pageLoad`, the quiz page's theme loader,
 * requirement check and detector script come first, as the LMS page loads them.
 */
async function studentStart(
  agent: http.Agent,
  env: Environment,
  takeUrl: string,
  options: { steps?: StepTimes; pageLoad?: boolean; until?: StartStep } = {},
): Promise<{ ok: boolean; ms: number; bytes: number; failure?: string }> {
  const { steps, pageLoad = false, until } = options;
  const done = () => ({ ok: true, ms: total, bytes: 0 });
  const origin = env.service.origin;
  const lms = { ...PROXY_HEADERS, origin: env.lmsUrl };
  let total = 0;
  const step = async (name: string, answer: Promise<HttpAnswer>): Promise<HttpAnswer> => {
    const done = await answer;
    total += done.ms;
    if (steps !== undefined) steps[name] = done.ms;
    return done;
  };
  const fail = (name: string, answer: HttpAnswer) => {
    const body = answer.body.toString('utf8');
    // A page names its error in its bootstrap; JSON answers carry their own code.
    const detail = /"errorCode":"([^"]+)"/.exec(body)?.[1] ?? body.slice(0, 160);
    return { ok: false, ms: total, bytes: 0, failure: `${name} ${answer.status} ${detail}` };
  };
  if (pageLoad) {
    for (const [name, pathname] of [
      ['theme-loader', THEME_LOADER_PATH],
      ['requirement', `/api/exb/requirement/${COURSE}/${DOWNLOAD_QUIZ}`],
      ['detector', DETECTOR_SCRIPT_PATH],
    ] as const) {
      const answer = await step(name, request(agent, origin, 'GET', pathname, undefined, name === 'requirement' ? lms : PROXY_HEADERS));
      if (answer.status !== 200) return fail(name, answer);
    }
  }
  // The LTI launch of the assessment's link: the LMS's login initiation, its authorization (the development LMS signs
  // the id_token here, in this process) and the form it posts back; the launch answers the required-browser page.
  const browser = { ...PROXY_HEADERS, 'x-forwarded-for': studentAddress() };
  const jar = new CookieJar();
  const built = env.lms.platform.buildLaunch({ person: Number(STUDENT.lmsUserId), placement: 'assessment', contentId: DOWNLOAD_QUIZ });
  const login = await step(
    'login',
    request(agent, origin, 'POST', '/lti/login', new URLSearchParams(built.loginParams).toString(), {
      ...browser,
      'content-type': 'application/x-www-form-urlencoded',
      'sec-fetch-site': 'cross-site',
    }),
  );
  if (login.status !== 302 || typeof login.headers.location !== 'string') return fail('login', login);
  jar.absorb(login);
  if (until === 'login') return done();
  const authorization = await env.lms.platform.authorize(
    Object.fromEntries(new URL(login.headers.location).searchParams),
    Number(STUDENT.lmsUserId),
  );
  if (authorization.kind !== 'form_post' || authorization.fields.id_token === undefined) {
    return { ok: false, ms: total, bytes: 0, failure: `authorization ${JSON.stringify(authorization).slice(0, 160)}` };
  }
  const launched = await step(
    'launch',
    request(agent, origin, 'POST', new URL(authorization.action).pathname, new URLSearchParams(authorization.fields).toString(), {
      ...browser,
      cookie: jar.header(),
      origin: env.lmsUrl,
      'content-type': 'application/x-www-form-urlencoded',
      'sec-fetch-site': 'cross-site',
    }),
  );
  jar.absorb(launched);
  const bootstrap = BOOTSTRAP.exec(launched.body.toString('utf8'))?.[1];
  if (launched.status !== 200 || bootstrap === undefined || !jar.has(SESSION_COOKIE_NAME)) return fail('launch', launched);
  const page = JSON.parse(bootstrap) as { view?: string; actionToken?: string; configGrantUrl?: string };
  if (page.view !== 'exb-required' || page.actionToken === undefined || page.configGrantUrl === undefined) return fail('launch', launched);
  if (until === 'launch') return done();

  const grant = await step(
    'grant',
    request(agent, origin, 'POST', page.configGrantUrl, JSON.stringify({ actionToken: page.actionToken }), {
      ...browser,
      cookie: jar.header(),
      'content-type': 'application/json',
      'sec-fetch-site': 'same-origin',
    }),
  );
  if (grant.status !== 200) return fail('grant', grant);
  if (until === 'grant') return done();
  const launch = new URL((JSON.parse(grant.body.toString('utf8')) as { exbLaunchUrl: string }).exbLaunchUrl.replace(/^exbs?:/, 'http:'));
  const pathAndQuery = `${launch.pathname}${launch.search}`;
  const head = await step('head', request(agent, origin, 'HEAD', pathAndQuery, undefined, PROXY_HEADERS));
  if (head.status !== 200) return fail('head', head);
  if (until === 'head') return done();
  const download = await step('download', request(agent, origin, 'GET', pathAndQuery, undefined, PROXY_HEADERS));
  if (download.status !== 200) return fail('download', download);
  if (until === 'download') return done();
  const { configKey } = openConfiguration(download.body, env.identity);
  const proof = await step(
    'proof',
    request(
      agent,
      origin,
      'POST',
      `/api/exb/access-proof/${COURSE}/${DOWNLOAD_QUIZ}`,
      JSON.stringify({ configKeyHash: configKeyHashForUrl(takeUrl, configKey), url: takeUrl }),
      { ...lms, 'content-type': 'application/json' },
    ),
  );
  if (proof.status !== 200) return fail('proof', proof);
  if (until === 'proof') return done();
  const token = (JSON.parse(proof.body.toString('utf8')) as { proofToken: string }).proofToken;
  const redemption = await step(
    'code',
    request(agent, origin, 'POST', `/api/exb/access-code/${COURSE}/${DOWNLOAD_QUIZ}`, undefined, { ...lms, 'x-exb-proof-token': token }),
  );
  if (redemption.status !== 200) return fail('code', redemption);
  return { ok: true, ms: total, bytes: download.body.length };
}

/** Every student of a class starts within the same minute, `atOnce` at a time; no start may fail. */
async function synchronizedStart(
  agent: http.Agent,
  env: Environment,
  takeUrl: string,
  students: number,
  atOnce: number,
  halfway?: () => Promise<void>,
): Promise<SyncStartResult> {
  const names = ['theme-loader', 'requirement', 'detector', ...START_STEPS];
  const times = new Map(names.map((name) => [name, [] as number[]]));
  let failures = 0;
  let firstFailure: string | undefined;
  let next = 0;
  const before = await env.service.cpu();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(atOnce, students) }, async () => {
      while (next < students) {
        next += 1;
        if (next === Math.ceil(students / 2)) await halfway?.();
        const steps: StepTimes = {};
        const outcome = await studentStart(agent, env, takeUrl, { steps, pageLoad: true }).catch((error: unknown) => ({
          ok: false,
          failure: String(error),
        }));
        if (!outcome.ok) {
          failures += 1;
          firstFailure ??= outcome.failure;
        }
        for (const [name, ms] of Object.entries(steps)) times.get(name)!.push(ms);
      }
    }),
  );
  const durationMs = performance.now() - started;
  const after = await env.service.cpu();
  const at = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return {
    students,
    atOnce,
    failures,
    durationMs,
    steps: names.map((step) => {
      const sorted = times.get(step)!.sort((a, b) => a - b);
      return { step, p50: at(sorted, 0.5), p99: at(sorted, 0.99) };
    }),
    cpuMicrosPerStudent: (after.micros - before.micros) / students,
    ...(firstFailure === undefined ? {} : { firstFailure }),
  };
}

/**
 * A closed loop like `runLoad`, for requests that differ per iteration: each of `connections` workers takes the next
 * item (or runs without one when `items` is null) until the time is up or the items run out.
 */
async function runIterations<T>(
  connections: number,
  durationMs: number,
  items: T[] | null,
  iteration: (item: T) => Promise<{ ok: boolean; ms: number; bytes: number }>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let failures = 0;
  let bodyBytes = 0;
  let next = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  const worker = async () => {
    while (performance.now() < deadline) {
      if (items !== null && next >= items.length) return;
      const item = items === null ? (undefined as T) : items[next++]!;
      const outcome = await iteration(item);
      if (outcome.ok) {
        latencies.push(outcome.ms);
        bodyBytes = outcome.bytes;
      } else {
        failures += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = performance.now() - started;
  const samples = Float64Array.from(latencies).sort();
  if (items !== null && next >= items.length && performance.now() < deadline - 1) {
    process.stderr.write(`note: ran out of pre-minted tokens after ${Math.round(elapsed)} ms\n`);
  }
  return mergeResults([
    {
      requests: samples.length,
      failures,
      durationMs: elapsed,
      requestsPerSecond: (samples.length / elapsed) * 1000,
      bodyBytes,
      latencyMs: { mean: 0, p50: 0, p90: 0, p99: 0, max: 0 },
      samples,
    },
  ]);
}

async function inParallel<T>(items: readonly T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}
