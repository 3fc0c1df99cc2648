import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { configKeyHashForUrl } from '@exb/server/exb/config-key.js';
import { SESSION_COOKIE_NAME } from '@exb/server/security/session-cookie.js';
import { DETECTOR_SCRIPT_PATH, THEME_LOADER_PATH } from '@exb/server/http/detector.js';
import { openConfiguration } from '../exb-simulator/open.js';
import { mergeResults, type LoadResult } from './load.js';
import { COURSE, DOWNLOAD_QUIZ, PROXY_HEADERS, STUDENT } from './student-fixture.js';
import type { Environment } from './student-environment.js';
import type { SyncStartResult } from './student.js';

/** One student's whole start, and the synchronized start of a class, as the bench runs them. */
export function downloadPath(contentId: string, grant: string): string {
  return `/exb/config/${COURSE}/${contentId}.exb?grant=${grant}`;
}

interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  ms: number;
}

export function request(
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

export async function timed(
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

export type StepTimes = Record<string, number>;

/** The steps of a start after the quiz page's scripts, in order. */
export const START_STEPS = ['login', 'launch', 'grant', 'head', 'download', 'proof', 'code'] as const;
export type StartStep = (typeof START_STEPS)[number];

/** The cookies one browser keeps for the service: what `Set-Cookie` sets, minus what it expires. */
export class CookieJar {
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
export async function studentStart(
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
  const launch = new URL((JSON.parse(grant.body.toString('utf8')) as { exbLaunchUrl: string }).exbLaunchUrl.replace(/^sebs?:/, 'http:'));
  const pathAndQuery = `${launch.pathname}${launch.search}`;
  const headed = env.heads.head(pathAndQuery, PROXY_HEADERS).then((answer) => ({ ...answer, headers: {}, body: Buffer.alloc(0) }));
  const head = await step('head', headed);
  if (head.status !== 200) return fail('head', head);
  if (until === 'head') return done();
  const download = await step('download', request(agent, origin, 'GET', pathAndQuery, undefined, PROXY_HEADERS));
  if (download.status !== 200) return fail('download', download);
  if (until === 'download') return done();
  const { configKey } = openConfiguration(download.body, env.decryption);
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

/**
 * The statements one start sends to PostgreSQL, step by step: starts cut after each step, one at a time, each step's
 * share the difference to the cut before. The fewest of three starts counts, so a housekeeping statement that happens
 * to run meanwhile is not charged to the start.
 */
export async function countStartStatements(env: Environment, agent: http.Agent, takeUrl: string): Promise<{ step: string; statements: number }[]> {
  const counted: { step: string; statements: number }[] = [];
  let before = 0;
  for (const step of START_STEPS) {
    let fewest = Infinity;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const from = await env.service.statements();
      const outcome = await studentStart(agent, env, takeUrl, step === 'code' ? {} : { until: step });
      if (!outcome.ok) throw new Error(`a start cut after ${step} failed: ${outcome.failure}`);
      fewest = Math.min(fewest, (await env.service.statements()) - from);
    }
    counted.push({ step, statements: fewest - before });
    before = fewest;
  }
  return counted;
}

/** Every student of a class starts within the same minute, `atOnce` at a time; no start may fail. */
export async function synchronizedStart(
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
export async function runIterations<T>(
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

export async function inParallel<T>(items: readonly T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}
