import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { buildApp } from '@exb/server';
import { loadConfig, type AppConfig } from '@exb/server/config.js';
import { DEVELOPMENT_CERTIFICATE_FILE, DEVELOPMENT_CERTIFICATE_KEY_FILE } from '@exb/server/config/dev-secrets.js';
import { openDatabase, type Database } from '@exb/server/db/orm.js';
import { defaultAssessmentSettings } from '@exb/server/domain/settings/model.js';
import { createSettingsRepository } from '@exb/server/domain/settings/settings-repository.js';
import { createStudentServices, type StudentServices } from '@exb/server/domain/student/services.js';
import type { StudentPolicy } from '@exb/server/domain/student/policy.js';
import { CertificateStore } from '@exb/server/exb/certificate-store.js';
import { configKeyHashForUrl } from '@exb/server/exb/config-key.js';
import { freePort } from '@exb/server/free-port.js';
import { createLogger } from '@exb/server/logger.js';
import { createOAuthServices } from '@exb/server/oauth/services.js';
import { ActionTokens } from '@exb/server/security/action-token.js';
import { OneTimeStore } from '@exb/server/security/one-time-store.js';
import { deriveKey } from '@exb/server/security/derived-keys.js';
import { randomToken } from '@exb/server/security/random-token.js';
import { SESSION_COOKIE_NAME } from '@exb/server/security/session-cookie.js';
import { openConfiguration } from '../exb-simulator/open.js';
import { createMockLms, type MockLms, type RunningLmsServer } from '../lms/index.js';
import { assertLoopback, formatLoadResult, mergeResults, runLoad, type LoadResult } from './load.js';

/**
 * The student hot paths on loopback, beside a bare Fastify route of the same application in the same run: the
 * requirement check, the proof (against a class's worth of stored per-download Config Keys), the redemption, the
 * download (with a fresh LMS session URL from the development LMS over HTTP, and without one), and a whole student start
 * (grant → HEAD → GET → proof → redemption). Everything the service does runs for real: PostgreSQL (DATABASE_URL, else
 * an embedded server), the certificate encryption, the LMS call.
 *
 * One-time tokens cannot be replayed, so the redemption and download rounds draw from tokens minted beforehand with the
 * service's own store; a start mints its own. The load loop, the development LMS and the service share this process:
 * absolute numbers include their cost, the ratios are what the comparison is for. In the whole start, decrypting the
 * downloaded file (the exam browser's work) is left out of the latency.
 */

export interface StudentBenchOptions {
  durationMs?: number;
  rounds?: number;
  connections?: number;
}

export interface StudentBenchResult {
  bare: LoadResult;
  targets: { label: string; result: LoadResult }[];
  /** Server-side cost of building and encrypting one configuration, in milliseconds. */
  buildMs: { withSession: number; deterministic: number };
  storedConfigKeys: number;
}

const COURSE = '101';
/** The quiz the proof is measured on: its stored keys stay at the class size. */
const QUIZ = 'classicquiz_201';
/** The quiz the download and start rounds use, so their keys do not grow the proof's candidate set. */
const DOWNLOAD_QUIZ = 'classicquiz_202';
const STUDENT = { lmsUserId: '3', ltiSubject: 'bench-student-3' };
/** Downloads made before measuring, so the proof compares against a class's worth of stored keys. */
const CLASS_SIZE = 200;
const HUGE_BUDGET = 100_000_000;

interface Setup {
  app: FastifyInstance;
  origin: string;
  services: StudentServices;
  policy: StudentPolicy;
  downloadPolicy: StudentPolicy;
  studentCookie: string;
  /** Issued per start, as the page a student loads would. */
  actionToken(): string;
  identity: { certificatePem: string; privateKeyPem: string };
  config: AppConfig;
  close(): Promise<void>;
}

export async function benchStudent(options: StudentBenchOptions = {}): Promise<StudentBenchResult> {
  const durationMs = options.durationMs ?? 3_000;
  const rounds = options.rounds ?? 3;
  const connections = options.connections ?? 16;
  const setup = await startService();
  try {
    const { origin, services, policy, downloadPolicy } = setup;
    const agent = new http.Agent({ keepAlive: true, maxSockets: connections * 4, maxFreeSockets: connections * 4 });

    // A class downloads: every student's configuration carries its own session URL and Config Key.
    const classGrants = await mintGrants(services, policy, CLASS_SIZE, '3');
    let lastConfigKey = '';
    await inParallel(classGrants, 16, async (grant) => {
      const response = await request(agent, origin, 'GET', downloadPath(QUIZ, grant));
      if (response.status !== 200) throw new Error(`class download answered ${response.status}`);
      lastConfigKey = openConfiguration(response.body, setup.identity).configKey;
    });
    const takeUrl = new URL(`/courses/${COURSE}/quizzes/201/take`, setup.config.lmsUrl).href;
    const proofBody = JSON.stringify({ configKeyHash: configKeyHashForUrl(takeUrl, lastConfigKey), url: takeUrl });
    const proof = await request(agent, origin, 'POST', `/api/exb/access-proof/${COURSE}/${QUIZ}`, proofBody, { 'content-type': 'application/json' });
    if (proof.status !== 200) throw new Error(`proof answered ${proof.status}: ${proof.body.toString()}`);

    const fixed = {
      bare: { url: `${origin}/bench/bare` },
      requirement: { url: `${origin}/api/exb/requirement/${COURSE}/${QUIZ}` },
      proof: {
        url: `${origin}/api/exb/access-proof/${COURSE}/${QUIZ}`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: proofBody,
      },
    };
    const results: Record<string, LoadResult[]> = {};
    const record = (label: string, result: LoadResult) => (results[label] ??= []).push(result);

    // Warm-up: caches, JIT, connection pools.
    for (const target of Object.values(fixed)) await runLoad({ ...target, connections, durationMs: Math.min(durationMs, 500) });

    for (let round = 0; round < rounds; round += 1) {
      record('bare', await runLoad({ ...fixed.bare, connections, durationMs }));
      record('requirement', await runLoad({ ...fixed.requirement, connections, durationMs }));
      record('proof', await runLoad({ ...fixed.proof, connections, durationMs }));

      const proofTokens = await mintProofs(services, policy, 40_000);
      record(
        'redemption',
        await runIterations(connections, durationMs, proofTokens, async (token) =>
          timed(agent, origin, 'POST', `/api/exb/access-code/${COURSE}/${QUIZ}`, undefined, { 'x-exb-proof-token': token }),
        ),
      );

      const sessionGrants = await mintGrants(services, downloadPolicy, 6_000, '3');
      record(
        'download',
        await runIterations(connections, durationMs, sessionGrants, (grant) => timed(agent, origin, 'GET', downloadPath(DOWNLOAD_QUIZ, grant))),
      );

      const plainGrants = await mintGrants(services, downloadPolicy, 20_000, null);
      record(
        'download-deterministic',
        await runIterations(connections, durationMs, plainGrants, (grant) => timed(agent, origin, 'GET', downloadPath(DOWNLOAD_QUIZ, grant))),
      );

      const startTakeUrl = new URL(`/courses/${COURSE}/quizzes/202/take`, setup.config.lmsUrl).href;
      record('start', await runIterations(connections, durationMs, null, () => studentStart(agent, setup, startTakeUrl)));
    }

    const bare = mergeResults(results.bare!);
    const labels: [string, string][] = [
      ['requirement', 'requirement check (200 true)'],
      ['proof', `access proof (${CLASS_SIZE} stored keys)`],
      ['redemption', 'access-code redemption'],
      ['download', 'download, session URL (LMS call)'],
      ['download-deterministic', 'download, deterministic'],
      ['start', 'whole student start (5 requests)'],
    ];
    // A fresh look from the minting instance, which has opened none of them.
    const storedConfigKeys = (await services.store.refreshConfigKeys(COURSE, QUIZ, policy.fingerprint)).length;
    return {
      bare,
      targets: labels.map(([key, label]) => ({ label, result: mergeResults(results[key]!) })),
      buildMs: measureBuilds(services, policy, setup.config),
      storedConfigKeys,
    };
  } finally {
    await setup.close();
  }
}

export function formatStudentBench(result: StudentBenchResult): string {
  const ratio = (r: LoadResult) => `${(r.requestsPerSecond / result.bare.requestsPerSecond).toFixed(3)} of bare`;
  return [
    formatLoadResult('bare Fastify route (200)', result.bare),
    ...result.targets.map(({ label, result: r }) => `${formatLoadResult(label, r)}  ${ratio(r)}`),
    `per-download build and encryption in process: ${result.buildMs.withSession.toFixed(3)} ms with a session URL, ` +
      `${result.buildMs.deterministic.toFixed(3)} ms deterministic (RSA-2048 pkhs, keys and policy cached per fingerprint)`,
    `Config Keys the proof compared against (stored for the proven quiz): ${result.storedConfigKeys}`,
  ].join('\n');
}

async function startService(): Promise<Setup> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'exb-bench-student-'));
  const logger = createLogger('silent');
  const database = await benchDatabase(dataDir);
  const servicePort = await freePort();
  const serviceOrigin = `http://127.0.0.1:${servicePort}`;
  let lms: MockLms | undefined;
  let lmsServer: RunningLmsServer | undefined;
  let db: Database | undefined;
  let app: FastifyInstance | undefined;
  try {
    lms = createMockLms({
      baseUrl: 'http://127.0.0.1:1',
      tool: {
        baseUrl: serviceOrigin,
        clientId: '10000000000001',
        deploymentId: '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb',
        oauthClientId: '170000000000042',
        oauthClientSecret: 'bench-oauth-client-secret',
      },
    });
    lmsServer = await lms.startHttpServer({ port: 0 });
    assertLoopback(new URL(lms.baseUrl));
    const config = loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      BASE_URL: serviceOrigin,
      PORT: String(servicePort),
      HOST: '127.0.0.1',
      LMS_URL: lms.baseUrl,
      LMS_OAUTH_CLIENT_ID: '170000000000042',
      LMS_OAUTH_CLIENT_SECRET: 'bench-oauth-client-secret',
      DATA_DIR: dataDir,
      ...(database.url === undefined ? {} : { DATABASE_URL: database.url }),
    });
    db = await openDatabase({ databaseUrl: database.url, dataDir, logger, poolSize: 20 });
    await db.migrate();
    const budgets = {
      grantPerPrincipal: HUGE_BUDGET,
      grantPerIp: HUGE_BUDGET,
      downloadPerIp: HUGE_BUDGET,
      proofPerIp: HUGE_BUDGET,
      redeemPerIp: HUGE_BUDGET,
      readinessPerPrincipal: HUGE_BUDGET,
    };
    app = await buildApp({ config, logger, db, exbStudent: { budgets } });
    app.get('/bench/bare', async () => ({ success: true, exbRequired: true }));
    await app.listen({ port: servicePort, host: '127.0.0.1' });

    const settings = createSettingsRepository(db.orm, config.secrets.appSecret);
    for (const contentId of [QUIZ, DOWNLOAD_QUIZ]) {
      await settings.saveAssessmentSettings(COURSE, {
        ...defaultAssessmentSettings(COURSE, contentId),
        exbRequired: true,
        enabled: true,
        accessCode: 'bench-code-1',
        exitPasswordOverride: 'bench-exit',
      });
    }
    const oneTimeStore = new OneTimeStore(db.orm, deriveKey(config.secrets.appSecret, 'one-time-store'));
    const oauth = createOAuthServices(config, db.orm, oneTimeStore, logger);
    const issued = lms.oauth.issueToken({ user: Number(STUDENT.lmsUserId), scopes: APPLICATION_SCOPES, expiresIn: null });
    await oauth.oauth.tokens.saveAuthorization({
      lmsUserId: STUDENT.lmsUserId,
      scopes: APPLICATION_SCOPES,
      accessToken: issued.accessToken,
      refreshToken: issued.refreshToken,
      expiresInSeconds: null,
      lmsUserName: issued.response.user.name,
      lmsGlobalUserId: issued.response.user.global_id,
      lmsRegion: issued.response.canvas_region,
      accountId: null,
    });

    const pool = await db.orm.em.getConnection().getNativeClient();
    const services = createStudentServices({
      config,
      pool,
      logger,
      certificates: CertificateStore.load(config.exb, logger),
      lms: oauth.lms,
      tokens: oauth.oauth.tokens,
    });
    const policy = await services.loadPolicy(COURSE, QUIZ);
    const downloadPolicy = await services.loadPolicy(COURSE, DOWNLOAD_QUIZ);
    if (policy === null || !policy.active || downloadPolicy === null || !downloadPolicy.active) {
      throw new Error('the benchmark assessments are not enforced');
    }

    const session = {
      sid: randomToken(),
      principal: {
        kind: 'student' as const,
        ...STUDENT,
        issuer: config.lti.issuer,
        deploymentId: '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb',
        courseId: COURSE,
      },
      launchTarget: `/exb/launch/${DOWNLOAD_QUIZ}`,
      exbLaunches: {},
      createdAt: Date.now(),
    };
    // The session plugin's own sealing, so the cookie is exactly what a launch would have set.
    const sessions = app as unknown as { createSecureSession(data: unknown): unknown; encodeSecureSession(session: unknown): string };
    const sealed = sessions.encodeSecureSession(sessions.createSecureSession({ data: session }));
    const secrets = path.join(dataDir, 'secrets');
    const identity = {
      certificatePem: readFileSync(path.join(secrets, DEVELOPMENT_CERTIFICATE_FILE), 'utf8'),
      privateKeyPem: readFileSync(path.join(secrets, DEVELOPMENT_CERTIFICATE_KEY_FILE), 'utf8'),
    };
    const running = { app, lmsServer, db };
    const actionTokens = ActionTokens.fromAppSecret(config.secrets.appSecret);
    return {
      app,
      origin: serviceOrigin,
      services,
      policy,
      downloadPolicy,
      studentCookie: `${SESSION_COOKIE_NAME}=${encodeURIComponent(sealed)}`,
      actionToken: () => actionTokens.issue(session, 'config-grant'),
      identity,
      config,
      async close() {
        await running.app.close();
        await running.lmsServer.close();
        await running.db.close();
        await database.drop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await app?.close();
    await lmsServer?.close();
    await db?.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** A fresh database on DATABASE_URL's server, dropped afterwards; without DATABASE_URL the embedded server. */
async function benchDatabase(dataDir: string): Promise<{ url: string | undefined; drop(): Promise<void> }> {
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

async function mintGrants(services: StudentServices, policy: StudentPolicy, count: number, sessionUserId: string | null): Promise<string[]> {
  const principal = { kind: sessionUserId === null ? 'instructor' : 'student', issuer: 'bench', lmsUserId: STUDENT.lmsUserId };
  return mint(services, policy, count, 'config-grant', { principal, sessionUserId });
}

async function mintProofs(services: StudentServices, policy: StudentPolicy, count: number): Promise<string[]> {
  return mint(services, policy, count, 'access-proof', undefined);
}

async function mint(
  services: StudentServices,
  policy: StudentPolicy,
  count: number,
  purpose: 'config-grant' | 'access-proof',
  payload: unknown,
): Promise<string[]> {
  const tokens: string[] = [];
  for (let offset = 0; offset < count; offset += 1000) {
    const batch = Array.from({ length: Math.min(1000, count - offset) }, () => ({
      purpose,
      courseId: COURSE,
      contentId: policy.contentId,
      fingerprint: policy.fingerprint,
      // Long enough for the whole run, which the service's clock measures in real time.
      ttlSeconds: 3600,
      ...(payload === undefined ? {} : { payload }),
    }));
    for (const issued of await services.store.issue(batch)) tokens.push(issued.token);
  }
  return tokens;
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

/** One start as the student's browsers make it; the latency is the sum of the five requests. */
async function studentStart(agent: http.Agent, setup: Setup, takeUrl: string): Promise<{ ok: boolean; ms: number; bytes: number }> {
  const { origin } = setup;
  const grant = await request(
    agent,
    origin,
    'POST',
    `/api/exb/config-grant/${COURSE}/${DOWNLOAD_QUIZ}`,
    JSON.stringify({ actionToken: setup.actionToken() }),
    { cookie: setup.studentCookie, 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
  );
  if (grant.status !== 200) return { ok: false, ms: grant.ms, bytes: 0 };
  const launch = new URL((JSON.parse(grant.body.toString('utf8')) as { exbLaunchUrl: string }).exbLaunchUrl.replace(/^exb:/, 'http:'));
  const pathAndQuery = `${launch.pathname}${launch.search}`;
  const head = await request(agent, origin, 'HEAD', pathAndQuery);
  const download = await request(agent, origin, 'GET', pathAndQuery);
  if (head.status !== 200 || download.status !== 200) return { ok: false, ms: grant.ms + head.ms + download.ms, bytes: 0 };
  const { configKey } = openConfiguration(download.body, setup.identity);
  const proof = await request(
    agent,
    origin,
    'POST',
    `/api/exb/access-proof/${COURSE}/${DOWNLOAD_QUIZ}`,
    JSON.stringify({ configKeyHash: configKeyHashForUrl(takeUrl, configKey), url: takeUrl }),
    { 'content-type': 'application/json' },
  );
  if (proof.status !== 200) return { ok: false, ms: grant.ms + head.ms + download.ms + proof.ms, bytes: 0 };
  const token = (JSON.parse(proof.body.toString('utf8')) as { proofToken: string }).proofToken;
  const redemption = await request(agent, origin, 'POST', `/api/exb/access-code/${COURSE}/${DOWNLOAD_QUIZ}`, undefined, {
    'x-exb-proof-token': token,
  });
  return {
    ok: redemption.status === 200,
    ms: grant.ms + head.ms + download.ms + proof.ms + redemption.ms,
    bytes: download.body.length,
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

function measureBuilds(services: StudentServices, policy: StudentPolicy, config: AppConfig): { withSession: number; deterministic: number } {
  const sessionUrl = new URL(`/courses/${COURSE}/quizzes/201?session_token=${'x'.repeat(60)}`, config.lmsUrl).href;
  const time = (run: () => void, count: number) => {
    for (let i = 0; i < 20; i += 1) run();
    const started = performance.now();
    for (let i = 0; i < count; i += 1) run();
    return (performance.now() - started) / count;
  };
  return {
    withSession: time(() => services.configurations.build(policy, sessionUrl), 300),
    deterministic: time(() => services.configurations.build(policy, null), 300),
  };
}
