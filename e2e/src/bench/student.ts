import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { randomBytes, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { loadConfig } from '@exb/server/config/app-config.js';
import { generateSelfSignedCertificate } from '@exb/server/exb/certificate.js';
import { openDatabase } from '@exb/server/db/orm.js';
import { configKeyHashForUrl } from '@exb/server/exb/config-key.js';
import { freePort } from '@exb/server/free-port.js';
import { createLogger } from '@exb/server/logger.js';
import { ActionTokens } from '@exb/server/security/action-token.js';
import { randomToken } from '@exb/server/security/random-token.js';
import { SESSION_COOKIE_NAME } from '@exb/server/security/session-cookie.js';
import { DETECTOR_SCRIPT_PATH, THEME_LOADER_PATH } from '@exb/server/http/detector.js';
import { openConfiguration } from '../exb-simulator/open.js';
import { opaqueId } from '../lms/ids.js';
import { createMockLms, type RunningLmsServer } from '../lms/index.js';
import { assertLoopback, formatLoadResult, mergeResults, runLoad, type LoadResult } from './load.js';
import type { ServerRequest, ServerSeed } from './server-process.js';

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
 * the redemption, the download (with a fresh LMS session URL, and without one), and the whole start (grant → HEAD →
 * GET → proof → redemption). Then a synchronized start: 3,000 students, 100 at a time, each loading the quiz page's
 * scripts and requirement and then running the whole start. One-time tokens cannot be replayed, so the redemption and
 * download windows draw from tokens the service mints beforehand; a start mints its own.
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
  logLines: number;
}

const COURSE = '101';
/** The quiz the proof is measured on: its stored keys stay at the class size. */
const QUIZ = 'classicquiz_201';
/** The quiz the download and start rounds use, so their keys do not grow the proof's candidate set. */
const DOWNLOAD_QUIZ = 'classicquiz_202';
const STUDENT = { lmsUserId: '3', ltiSubject: 'bench-student-3' };
const COURSE_CONTEXT_ID = opaqueId('course', 101);
const DEPLOYMENT_ID = '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb';
const LTI_ISSUER = 'https://canvas.bench.test';
const BASE_URL = 'https://exb.bench.test';
/** Downloads made before measuring, so the proof compares against a class's worth of stored keys. */
const CLASS_SIZE = 200;
const HUGE_BUDGET = 100_000_000;
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
      execArgv: profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`],
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

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    await this.call({ type: 'stop' }).catch(() => undefined);
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
  }
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
  lmsServer: RunningLmsServer;
  lmsUrl: string;
  studentCookie: string;
  actionToken(): string;
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
      ...(database.url === undefined ? {} : { DATABASE_URL: database.url }),
    };
    const config = loadConfig(env);
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

    const session = {
      sid: randomToken(),
      principal: {
        kind: 'student' as const,
        ...STUDENT,
        issuer: config.lti.issuer,
        deploymentId: DEPLOYMENT_ID,
        ltiContextId: COURSE_CONTEXT_ID,
        courseId: COURSE,
      },
      launchTarget: `/exb/launch/${DOWNLOAD_QUIZ}`,
      exbLaunches: {},
      createdAt: Date.now(),
    };
    const cookie = await service.call<string>({ type: 'cookie', session });
    const actionTokens = ActionTokens.fromAppSecret(config.secrets.appSecret);
    return {
      bare,
      service,
      lmsServer,
      lmsUrl,
      studentCookie: `${SESSION_COOKIE_NAME}=${cookie}`,
      actionToken: () => actionTokens.issue(session, 'config-grant'),
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
    const mint = (purpose: 'config-grant' | 'access-proof', contentId: string, count: number, payload?: unknown) =>
      service.call<string[]>({ type: 'mint', purpose, contentId, count, ...(payload === undefined ? {} : { payload }) });

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
    const record = (key: string, window: { result: LoadResult; cpuMicros: number }) => (windows[key] ??= []).push(window);

    // Warm-up: caches, JIT, connection pools.
    for (const { server: _server, ...target } of Object.values(fixed)) {
      await runLoad({ ...target, connections, durationMs: Math.min(durationMs, 500) });
    }
    const startTakeUrl = new URL(`/courses/${COURSE}/quizzes/202/take`, env.lmsUrl).href;
    await runIterations(connections, Math.min(durationMs, 500), null, () => studentStart(agent, env, startTakeUrl));

    for (let round = 0; round < rounds; round += 1) {
      for (const [key, { server, ...target }] of Object.entries(fixed)) {
        record(key, await measured(server, () => runLoad({ ...target, connections, durationMs })));
      }
      const proofTokens = await mint('access-proof', QUIZ, 30_000);
      record(
        'redemption',
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
      record('bare-json', await measured(bare, () => runLoad({ ...fixed['bare-json'], connections, durationMs })));
      const sessionGrants = await mint('config-grant', DOWNLOAD_QUIZ, 6_000, grantPayload(STUDENT.lmsUserId));
      record(
        'download',
        await measured(service, () =>
          runIterations(connections, durationMs, sessionGrants, (grant) => timed(agent, origin, 'GET', downloadPath(DOWNLOAD_QUIZ, grant), undefined, PROXY_HEADERS)),
        ),
      );
      const plainGrants = await mint('config-grant', DOWNLOAD_QUIZ, 15_000, grantPayload(null));
      record(
        'download-deterministic',
        await measured(service, () =>
          runIterations(connections, durationMs, plainGrants, (grant) => timed(agent, origin, 'GET', downloadPath(DOWNLOAD_QUIZ, grant), undefined, PROXY_HEADERS)),
        ),
      );
      record('start', await measured(service, () => runIterations(connections, durationMs, null, () => studentStart(agent, env, startTakeUrl))));
    }

    const sync = await synchronizedStart(agent, env, startTakeUrl, options.students ?? 3_000, options.studentsAtOnce ?? 100);
    agent.destroy();

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
      ['start', 'whole start (grant,HEAD,GET,proof,code)', undefined],
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
  lines.push(
    `synchronized start: ${sync.students} students, ${sync.atOnce} at a time: ${(sync.durationMs / 1000).toFixed(1)} s, ` +
      `${sync.failures} failed, server cpu ${(sync.cpuMicrosPerStudent / 1000).toFixed(2)} ms per student (page scripts included)` +
      (sync.firstFailure === undefined ? '' : `; first failure: ${sync.firstFailure}`),
    `  p99 per step: ${sync.steps.map((step) => `${step.step} ${step.p99.toFixed(1)} ms`).join(', ')}`,
    `service peak RSS ${result.peakRssMb.toFixed(0)} MB; ${result.logLines} log lines written`,
  );
  const t = STUDENT_TARGETS;
  const mark = (ok: boolean) => (ok ? 'ok' : 'MISS');
  const requirement = by('requirement').cpuRatio!;
  const detector = by('detector').cpuRatio!;
  const proof = by('proof').cpuMicros;
  const start = by('start').cpuMicros;
  lines.push(
    `SUMMARY requirement-ratio ${requirement.toFixed(2)} (${mark(requirement >= t.requirementRatio)} >=${t.requirementRatio}) ` +
      `detector-ratio ${detector.toFixed(2)} (${mark(detector >= t.detectorRatio)} >=${t.detectorRatio}) ` +
      `proof-cpu ${proof.toFixed(0)}us (${mark(proof <= t.proofMicros)} <=${t.proofMicros}) ` +
      `start-cpu ${(start / 1000).toFixed(2)}ms (${mark(start <= t.startMicros)} <=${t.startMicros / 1000}) ` +
      `sync ${sync.students - sync.failures}/${sync.students} in ${(sync.durationMs / 1000).toFixed(1)}s ` +
      `rss ${result.peakRssMb.toFixed(0)}MB (${mark(result.peakRssMb < t.rssMb)} <${t.rssMb})`,
  );
  return lines.join('\n');
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

/**
 * One start as the student's browsers make it: the grant from the tool page, the exam browser's HEAD and GET of the
 * download, the proof and the redemption from the quiz page. The latency is the sum of the five requests; decrypting the
 * downloaded file (the exam browser's work) is left out. With `pageLoad`, the quiz page's theme loader, requirement
 * check and detector script come first, as the LMS page loads them.
 */
async function studentStart(
  agent: http.Agent,
  env: Environment,
  takeUrl: string,
  steps?: StepTimes,
  pageLoad = false,
): Promise<{ ok: boolean; ms: number; bytes: number; failure?: string }> {
  const origin = env.service.origin;
  const lms = { ...PROXY_HEADERS, origin: env.lmsUrl };
  let total = 0;
  const step = async (name: string, answer: Promise<HttpAnswer>): Promise<HttpAnswer> => {
    const done = await answer;
    total += done.ms;
    if (steps !== undefined) steps[name] = done.ms;
    return done;
  };
  const fail = (name: string, answer: HttpAnswer) => ({ ok: false, ms: total, bytes: 0, failure: `${name} ${answer.status} ${answer.body.toString().slice(0, 160)}` });
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
  const grant = await step(
    'grant',
    request(agent, origin, 'POST', `/api/exb/config-grant/${COURSE}/${DOWNLOAD_QUIZ}`, JSON.stringify({ actionToken: env.actionToken() }), {
      ...PROXY_HEADERS,
      cookie: env.studentCookie,
      'content-type': 'application/json',
      'sec-fetch-site': 'same-origin',
    }),
  );
  if (grant.status !== 200) return fail('grant', grant);
  const launch = new URL((JSON.parse(grant.body.toString('utf8')) as { exbLaunchUrl: string }).exbLaunchUrl.replace(/^exbs?:/, 'http:'));
  const pathAndQuery = `${launch.pathname}${launch.search}`;
  const head = await step('head', request(agent, origin, 'HEAD', pathAndQuery, undefined, PROXY_HEADERS));
  if (head.status !== 200) return fail('head', head);
  const download = await step('download', request(agent, origin, 'GET', pathAndQuery, undefined, PROXY_HEADERS));
  if (download.status !== 200) return fail('download', download);
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
  const token = (JSON.parse(proof.body.toString('utf8')) as { proofToken: string }).proofToken;
  const redemption = await step(
    'code',
    request(agent, origin, 'POST', `/api/exb/access-code/${COURSE}/${DOWNLOAD_QUIZ}`, undefined, { ...lms, 'x-exb-proof-token': token }),
  );
  if (redemption.status !== 200) return fail('code', redemption);
  return { ok: true, ms: total, bytes: download.body.length };
}

/** Every student of a class starts within the same minute, `atOnce` at a time; no start may fail. */
async function synchronizedStart(agent: http.Agent, env: Environment, takeUrl: string, students: number, atOnce: number): Promise<SyncStartResult> {
  const names = ['theme-loader', 'requirement', 'detector', 'grant', 'head', 'download', 'proof', 'code'];
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
        const steps: StepTimes = {};
        const outcome = await studentStart(agent, env, takeUrl, steps, true).catch((error: unknown) => ({
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
