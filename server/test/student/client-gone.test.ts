import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { abandonGetAfter, httpGet, sleep } from '../support/http-client.js';
import { startTcpRelay, type TcpRelay } from '../support/tcp-proxy.js';
import { createStudentHarness, downloadPathOf, QUIZ, student, type StudentHarness } from './harness.js';

/**
 * A download link is spent only for a client that is still there: the database stalls (through a relay that stops
 * forwarding) while the download reads its grant, the student's browser gives up, and the database answers again
 * before the statement limit.
 */

let relay: TcpRelay;
let h: StudentHarness;

beforeAll(async () => {
  const server = new URL(inject('databaseUrl'));
  relay = await startTcpRelay({ host: server.hostname, port: Number(server.port || 5432) });
  h = await createStudentHarness({
    withoutLmsApi: true,
    connectThrough: (url) => relay.through(url),
    listen: true,
    env: { DATABASE_TIMEOUT_MS: '5000' },
  });
});
afterAll(async () => {
  relay.heal();
  await h.close();
  await relay.stop();
});

describe('a client that gives up while the database is slow', () => {
  it('leaves its download link unspent, so the same link works once afterwards', async () => {
    await h.enforce(QUIZ);
    const grant = await h.grant(student(), QUIZ);
    expect(grant.statusCode, grant.body).toBe(200);
    const url = `${h.t.url}${downloadPathOf((grant.json() as { exbLaunchUrl: string }).exbLaunchUrl)}`;

    relay.stall();
    try {
      await abandonGetAfter(url, 300);
      await sleep(700);
    } finally {
      relay.heal();
    }
    // The download's read answers now; its spend must not follow for the closed connection.
    await sleep(500);
    const first = await httpGet(url);
    expect(first.status, first.body).toBe(200);
    const second = await httpGet(url);
    expect(second.status).toBe(403);
  });
});
