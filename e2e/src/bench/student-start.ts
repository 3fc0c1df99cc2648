import type http from 'node:http';
import { configKeyHashForUrl } from '@exb/server/exb/config-key.js';
import { SERVICE_ROUTES, servicePath } from '@exb/shared/service-paths.js';
import { SESSION_COOKIE_NAME } from '@exb/server/security/session-cookie.js';
import { openConfiguration } from '../exb-simulator/open.js';
import { COURSE, DOWNLOAD_QUIZ, PROXY_HEADERS, STUDENT } from './student-fixture.js';
import type { Environment } from './student-environment.js';
import { CookieJar, request, type HttpAnswer } from './student-http.js';

/** One student's whole start, from the LTI launch to the released code, as the bench runs it. */

export type StepTimes = Record<string, number>;

/** The steps of a start after the quiz page's scripts, in order. */
export const START_STEPS = ['login', 'launch', 'grant', 'head', 'download', 'proof', 'code'] as const;
export type StartStep = (typeof START_STEPS)[number];

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
  /** `person`: the development LMS's user who starts (the course's first student unless given). */
  options: { steps?: StepTimes; pageLoad?: boolean; until?: StartStep; person?: number } = {},
): Promise<{ ok: boolean; ms: number; bytes: number; failure?: string }> {
  const { steps, pageLoad = false, until, person = Number(STUDENT.lmsUserId) } = options;
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
      ['theme-loader', SERVICE_ROUTES.themeLoader.path],
      ['requirement', servicePath(SERVICE_ROUTES.requirement, [COURSE, DOWNLOAD_QUIZ])],
      ['detector', SERVICE_ROUTES.detectorScript.path],
    ] as const) {
      const answer = await step(name, request(agent, origin, 'GET', pathname, undefined, name === 'requirement' ? lms : PROXY_HEADERS));
      if (answer.status !== 200) return fail(name, answer);
    }
  }
  // The LTI launch of the assessment's link: the LMS's login initiation, its authorization (the development LMS signs
  // the id_token here, in this process) and the form it posts back; the launch answers the required-browser page.
  const browser = { ...PROXY_HEADERS, 'x-forwarded-for': studentAddress() };
  const jar = new CookieJar();
  const built = env.lms.platform.buildLaunch({ person, placement: 'assessment', contentId: DOWNLOAD_QUIZ });
  const login = await step(
    'login',
    request(agent, origin, 'POST', SERVICE_ROUTES.ltiLogin.path, new URLSearchParams(built.loginParams).toString(), {
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
    person,
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
      servicePath(SERVICE_ROUTES.accessProof, [COURSE, DOWNLOAD_QUIZ]),
      JSON.stringify({ configKeyHash: configKeyHashForUrl(takeUrl, configKey), url: takeUrl }),
      { ...lms, 'content-type': 'application/json' },
    ),
  );
  if (proof.status !== 200) return fail('proof', proof);
  if (until === 'proof') return done();
  const token = (JSON.parse(proof.body.toString('utf8')) as { proofToken: string }).proofToken;
  const redemption = await step(
    'code',
    request(agent, origin, 'POST', servicePath(SERVICE_ROUTES.accessCode, [COURSE, DOWNLOAD_QUIZ]), undefined, { ...lms, 'x-exb-proof-token': token }),
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
