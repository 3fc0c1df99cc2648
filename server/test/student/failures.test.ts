import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConfiguration } from '../../../e2e/src/exb-simulator/index.js';
import { failNextWrites } from '../support/db-faults.js';
import { ACCESS_CODE, createStudentHarness, downloadPathOf, instructor, QUIZ, student, type StudentHarness } from './harness.js';

/**
 * What a student's retry gets after a failure that was not their fault: the LMS failing to sign the exam browser in,
 * the database failing to record a download or a redemption. Failures are real: the development LMS's fault injection,
 * and triggers that make PostgreSQL itself refuse the write.
 */

const SESSION_TOKEN_ROUTE = 'GET /api/v1/login/session_token';

let h: StudentHarness;
beforeAll(async () => {
  h = await createStudentHarness();
  await h.enforce(QUIZ);
  await h.authorizeStudent(3);
});
afterAll(() => h.close());

async function mintPath(principal = student()): Promise<string> {
  const response = await h.grant(principal, QUIZ);
  expect(response.statusCode, response.body).toBe(200);
  return downloadPathOf((response.json() as { exbLaunchUrl: string }).exbLaunchUrl);
}

const download = (path: string) => h.app.inject({ method: 'GET', url: path });

/** The service on a real socket, for requests that must run in parallel over HTTP; opened once per file. */
let listening: Promise<string> | undefined;
const serviceAddress = () => (listening ??= h.app.listen({ port: 0, host: '127.0.0.1' }));

async function startUrlOf(path: string): Promise<string> {
  const response = await download(path);
  expect(response.statusCode, response.body).toBe(200);
  return openConfiguration(response.rawPayload, h.identity).startUrl;
}

describe('a session start that fails keeps its URL', () => {
  it.each([
    ['a server error', { status: 500 }],
    ['a dropped connection', { kind: 'network-error' as const }],
  ])('when the LMS session-token call fails with %s, the exam browser\'s reload starts', async (_name, fault) => {
    const startUrl = await startUrlOf(await mintPath());
    h.lms.faults.next(SESSION_TOKEN_ROUTE, { ...fault, times: 2 });
    const failed = await h.openStart(startUrl);
    expect(failed.statusCode).toBe(502);
    expect(failed.body).toContain('The LMS did not sign you in');
    h.lms.faults.clear();

    const retried = await h.openStart(startUrl);
    expect(retried.statusCode, retried.body).toBe(302);
    expect(retried.headers.location).toContain('session_token=');
    // Used now: the start signs in once.
    expect((await h.openStart(startUrl)).statusCode).toBe(410);
  });

  it('when the student must reconnect their LMS account, the start works once they have', async () => {
    const startUrl = await startUrlOf(await mintPath());
    await h.t.db.orm.em.getConnection().execute(`update lms_oauth_token set reauthorization_required_at = now() where lms_user_id = '3'`);
    const refused = await h.openStart(startUrl);
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('connect your LMS account again');
    await h.authorizeStudent(3);
    expect((await h.openStart(startUrl)).statusCode).toBe(302);
  });
});

describe('a configuration download that fails keeps its link', () => {
  it('when the database fails to record the download, the link is not spent and the retry proves', async () => {
    const path = await mintPath();
    const fault = await failNextWrites(h.t.databaseUrl, {
      table: 'exb_student_token',
      operation: 'UPDATE',
      when: 'new.config_key_sealed is not null and old.config_key_sealed is null',
    });
    try {
      const failed = await download(path);
      expect(failed.statusCode).toBe(500);
      expect(await fault.refused()).toBe(1);
      expect((await h.app.inject({ method: 'HEAD', url: path })).statusCode).toBe(200);

      const retried = await download(path);
      expect(retried.statusCode, retried.body).toBe(200);
      // The Config Key of the file served was stored with the grant: the file proves.
      const opened = openConfiguration(retried.rawPayload, h.identity);
      const proof = await h.prove(QUIZ, opened.configKey);
      expect(proof.statusCode, proof.body).toBe(200);
      expect((await download(path)).statusCode).toBe(403);
    } finally {
      await fault.remove();
    }
  });

  it('of parallel downloads of one grant over real HTTP exactly one gets the file', async () => {
    const address = await serviceAddress();
    for (const principal of [student(), instructor()]) {
      const path = await mintPath(principal);
      const responses = await Promise.all(Array.from({ length: 8 }, () => fetch(`${address}${path}`)));
      const statuses = responses.map((response) => response.status).sort();
      expect(statuses).toEqual([200, 403, 403, 403, 403, 403, 403, 403]);
      const file = responses.find((response) => response.status === 200)!;
      expect(openConfiguration(Buffer.from(await file.arrayBuffer()), h.identity).configKey).toMatch(/^[0-9a-f]{64}$/);
    }
  });
});

describe('the LMS session-token call', () => {
  it('is asked by no download and by one of many parallel opens of one start: one session URL per grant', async () => {
    const address = await serviceAddress();
    const path = await mintPath();
    const before = h.lms.calls.count(SESSION_TOKEN_ROUTE);
    const downloads = await Promise.all(Array.from({ length: 8 }, () => fetch(`${address}${path}`)));
    expect(downloads.map((response) => response.status).sort()).toEqual([200, 403, 403, 403, 403, 403, 403, 403]);
    // The file names a session start; the session URL is minted only when the exam browser opens it.
    expect(h.lms.calls.count(SESSION_TOKEN_ROUTE)).toBe(before);
    const file = downloads.find((response) => response.status === 200)!;
    const { startUrl } = openConfiguration(Buffer.from(await file.arrayBuffer()), h.identity);

    const opens = await Promise.all(Array.from({ length: 8 }, () => h.openStart(startUrl)));
    expect(opens.map((response) => response.statusCode).sort()).toEqual([302, 410, 410, 410, 410, 410, 410, 410]);
    expect(h.lms.calls.count(SESSION_TOKEN_ROUTE) - before).toBe(1);
  });

  it.each([500, 502, 503])('is retried once after a single %i, and the start succeeds', async (status) => {
    const startUrl = await startUrlOf(await mintPath());
    const before = h.lms.calls.count(SESSION_TOKEN_ROUTE);
    h.lms.faults.next(SESSION_TOKEN_ROUTE, { status });
    expect((await h.openStart(startUrl)).statusCode).toBe(302);
    expect(h.lms.calls.count(SESSION_TOKEN_ROUTE) - before).toBe(2);
  });

  it('is retried once after a connection reset, and the start succeeds', async () => {
    const startUrl = await startUrlOf(await mintPath());
    const before = h.lms.calls.count(SESSION_TOKEN_ROUTE);
    h.lms.faults.next(SESSION_TOKEN_ROUTE, { kind: 'network-error' });
    expect((await h.openStart(startUrl)).statusCode).toBe(302);
    expect(h.lms.calls.count(SESSION_TOKEN_ROUTE) - before).toBe(2);
  });

  it('is retried only once', async () => {
    const startUrl = await startUrlOf(await mintPath());
    const before = h.lms.calls.count(SESSION_TOKEN_ROUTE);
    h.lms.faults.next(SESSION_TOKEN_ROUTE, { status: 502, times: 3 });
    expect((await h.openStart(startUrl)).statusCode).toBe(502);
    expect(h.lms.calls.count(SESSION_TOKEN_ROUTE) - before).toBe(2);
    h.lms.faults.clear();
  });
});

describe('an access-code redemption that fails keeps its proof', () => {
  async function provenToken(): Promise<string> {
    const { opened } = await h.start(student(), QUIZ);
    const proof = await h.prove(QUIZ, opened.configKey);
    expect(proof.statusCode, proof.body).toBe(200);
    return (proof.json() as { proofToken: string }).proofToken;
  }

  const exitGrantFault = (times = 1) =>
    failNextWrites(h.t.databaseUrl, { table: 'exb_student_token', operation: 'INSERT', when: "new.purpose = 'exit-grant'", times });

  it('when the exit grant cannot be written, the same proof redeems on retry, once', async () => {
    const token = await provenToken();
    const fault = await exitGrantFault();
    try {
      const failed = await h.redeem(QUIZ, token);
      expect(failed.statusCode).toBe(500);
      expect(failed.body).not.toContain(ACCESS_CODE);
      expect(await fault.refused()).toBe(1);

      const retried = await h.redeem(QUIZ, token);
      expect(retried.statusCode, retried.body).toBe(200);
      expect(retried.json()).toMatchObject({ success: true, accessCode: ACCESS_CODE, exitGrant: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
      expect((await h.redeem(QUIZ, token)).statusCode).toBe(403);
    } finally {
      await fault.remove();
    }
  });

  it('of 50 parallel redemptions while the first write fails, exactly one releases the code', async () => {
    const token = await provenToken();
    const fault = await exitGrantFault();
    try {
      const responses = await Promise.all(Array.from({ length: 50 }, () => h.redeem(QUIZ, token)));
      const count = (status: number) => responses.filter((response) => response.statusCode === status).length;
      expect(await fault.refused()).toBe(1);
      expect({ ok: count(200), failed: count(500), refused: count(403) }).toEqual({ ok: 1, failed: 1, refused: 48 });
    } finally {
      await fault.remove();
    }
  });
});
