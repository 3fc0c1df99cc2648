import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { createContext } from '../../src/app.js';
import type { AppContext } from '../../src/context.js';
import { createLogger } from '../../src/logger.js';
import { ACTION_TOKEN_HEADER } from '../../src/security/action-token.js';
import { stallWrites } from '../support/db-faults.js';
import { BASE_URL, FAST_OAUTH, OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET, storeGrant } from '../support/oauth-testbed.js';
import { createAdminBed, LMS_URL, type AdminBed } from './harness.js';
import { auditEntries, enforceCourse, lmsCodes, localState, RESET, settledBySweep } from './reset-harness.js';

/**
 * A course reset in a real process of the service, killed with SIGKILL in the middle: once right after the LMS applied
 * its second code removal (before the process heard the answer), once while its transaction runs. The child reaches the
 * development LMS through a relay in this process, which is where the kill is timed; then the recovery another instance
 * runs (here: this process) settles the reset from the journal the dead process left. The service is the built one
 * (`server/dist`, `npm run build`).
 */
const CHILD_SCRIPT = fileURLToPath(new URL('../support/service-child.mjs', import.meta.url));
const BUILT_SERVICE = fileURLToPath(new URL('../../dist/domain/course-reset/reset-journal.js', import.meta.url));

let t: AdminBed;
let recoverer: AppContext;
let relay: Server;
let relayUrl: string;
let child: ChildProcess | null = null;
/** Decides, per LMS request of the child, whether the child dies once the LMS has answered it. */
let killAfter: (request: IncomingMessage) => boolean = () => false;

beforeAll(async () => {
  if (!existsSync(BUILT_SERVICE)) throw new Error('the built service is missing: run `npm run build` first');
  t = await createAdminBed();
  recoverer = await createContext({ config: t.bed.t.config, logger: createLogger('silent'), db: t.bed.t.db, oauth: FAST_OAUTH });
  relay = createServer((request, response) => void forward(request, response));
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => relay.close(resolve));
  await t.close();
});
beforeEach(async () => {
  await t.reset();
  await t.grant();
  await storeGrant(t.bed, 2, APPLICATION_SCOPES);
  await t.connect('101');
  await enforceCourse(t);
  killAfter = () => false;
});
afterEach(async () => {
  if (child !== null && child.exitCode === null && child.signalCode === null) await killChild();
  child = null;
});

/** The child's LMS: each request forwarded to the development LMS (intercepted in this process), the origin rewritten. */
async function forward(request: IncomingMessage, response: import('node:http').ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || ['host', 'connection', 'content-length', 'accept-encoding'].includes(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const method = request.method ?? 'GET';
  const answer = await fetch(`${LMS_URL}${request.url}`, {
    method,
    headers,
    ...(method === 'GET' || method === 'HEAD' ? {} : { body: Buffer.concat(chunks) }),
    redirect: 'manual',
  });
  const body = (await answer.text()).replaceAll(LMS_URL, relayUrl);
  if (killAfter(request)) {
    // The LMS applied the request; the process dies before it hears the answer.
    await killChild();
    response.destroy();
    return;
  }
  const out: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name)) out[name] = value.replaceAll(LMS_URL, relayUrl);
  });
  response.writeHead(answer.status, out).end(body);
}

async function startChild(): Promise<string> {
  const env = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: t.bed.t.dataDir,
    DATABASE_URL: t.bed.t.databaseUrl,
    BASE_URL,
    LMS_URL: relayUrl,
    LMS_OAUTH_CLIENT_ID: OAUTH_CLIENT_ID,
    LMS_OAUTH_CLIENT_SECRET: OAUTH_CLIENT_SECRET,
  };
  const started = fork(CHILD_SCRIPT, [], { env: { ...process.env, SERVICE_CHILD_ENV: JSON.stringify(env) }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child = started;
  const port = await new Promise<number>((resolve, reject) => {
    started.once('exit', (code) => reject(new Error(`the service exited with ${code} before it was ready`)));
    started.once('message', (message: { port?: number }) => resolve(message.port!));
  });
  return `http://127.0.0.1:${port}`;
}

async function killChild(): Promise<void> {
  const dying = child!;
  if (dying.exitCode !== null || dying.signalCode !== null) return;
  const exited = new Promise((resolve) => dying.once('exit', resolve));
  dying.kill('SIGKILL');
  await exited;
}

/** The administrator's reset, sent to the child over HTTP; the answer never comes when the child dies. */
function resetOnChild(origin: string): Promise<Response | null> {
  return fetch(`${origin}${RESET}`, {
    method: 'POST',
    headers: {
      cookie: t.session.cookie,
      [ACTION_TOKEN_HEADER]: t.session.actionToken,
      'sec-fetch-site': 'same-origin',
      'content-type': 'application/json',
    },
    body: JSON.stringify({ confirmation: '101' }),
  }).catch(() => null);
}

/** A crash leaves the lease to run out (at most its 60 s); the test does not wait for it. */
async function leaseRunsOut(): Promise<void> {
  await t.sql(`update lease set expires_at = now() - interval '1 second' where name = 'course-reset:101'`);
}

describe('a reset whose process is killed', () => {
  it('right after the LMS applied its second removal: the recovery puts both codes back, nothing deleted', async () => {
    const before = { lms: lmsCodes(t.bed.lms), local: await localState(t) };
    const origin = await startChild();
    let removals = 0;
    killAfter = (request) => request.method === 'PUT' && /\/api\/v1\/courses\/101\/quizzes\/\d+$/.test(request.url ?? '') && ++removals === 2;
    expect(await resetOnChild(origin)).toBeNull();
    // The answer fails as the socket closes; the parent hears of the exit a moment later.
    await expect.poll(() => child!.signalCode).toBe('SIGKILL');
    // What the kill left: two codes gone from the LMS, the records all there, the journal and a `started` entry.
    expect(lmsCodes(t.bed.lms).quizzes.filter((quiz) => quiz.id === 201 || quiz.id === 202).map((quiz) => quiz.accessCode)).toEqual([null, null]);
    expect(await t.sql(`select phase, removed from course_reset_journal`)).toEqual([{ phase: 'lms', removed: ['classicquiz_201', 'classicquiz_202'] }]);

    await leaseRunsOut();
    await settledBySweep(t, recoverer, 'compensated');
    expect({ lms: lmsCodes(t.bed.lms), local: await localState(t) }).toEqual(before);
    expect((await auditEntries(t)).map((entry) => [entry.outcome, entry.details.codesRestored])).toEqual([
      ['started', undefined],
      ['compensated', 2],
    ]);
  });

  it('while its transaction runs: the server rolls it back, and the recovery finishes the reset', async () => {
    const before = lmsCodes(t.bed.lms);
    const origin = await startChild();
    // The transaction's delete of the cached quizzes sleeps in the server; the process is killed meanwhile.
    const stall = await stallWrites(t.bed.t.databaseUrl, { table: 'assessment', at: 'statement', operation: 'DELETE', seconds: 3 });
    try {
      const answer = resetOnChild(origin);
      await stall.sleeper(20_000);
      await killChild();
      expect(await answer).toBeNull();
    } finally {
      await stall.remove();
    }
    // The server notices the dead client once the statement ends, and rolls the transaction back.
    await expect.poll(async () => (await t.sql(`select pid from pg_stat_activity where datname = current_database() and state like '%transaction%'`)).length, { timeout: 10_000 }).toBe(0);
    expect(await t.sql(`select phase from course_reset_journal`)).toEqual([{ phase: 'local' }]);
    expect(JSON.parse((await localState(t)).settings)).toHaveLength(3);

    await leaseRunsOut();
    await settledBySweep(t, recoverer, 'recovered');
    const local = await localState(t);
    expect(local.settings).toBe('[]');
    expect(lmsCodes(t.bed.lms).quizzes).toEqual(before.quizzes.map((quiz) => (quiz.id === 201 || quiz.id === 202 ? { ...quiz, accessCode: null } : quiz)));
    expect((await auditEntries(t)).map((entry) => entry.outcome)).toEqual(['started', 'recovered']);
  });
});
