import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ExamTokenStore } from '../../src/domain/exam-browser/token-store.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { runSql } from '../support/db-faults.js';
import { abandonGetAfter, httpGet, sleep } from '../support/http-client.js';
import { startTcpRelay, type TcpRelay } from '../support/tcp-proxy.js';

/**
 * A database that stops answering: the service's connections go through a relay that stops forwarding (a network
 * partition, shortened from the 12 seconds clients would see to 3), with the database timeout at 1 second.
 */

const TIMEOUT_MS = 1_000;
const PARTITION_MS = 3_000;
/** The server's limit, the client's grace after it, and scheduling slack on a busy machine. */
const LONGEST_ANSWER_MS = TIMEOUT_MS + 1_000 + 1_000;
const EXB_LAUNCH_URL = 'sebs://exam.example.test/config.seb';

let relay: TcpRelay;
let t: TestApp;
let store: ExamTokenStore;

beforeAll(async () => {
  const server = new URL(inject('databaseUrl'));
  relay = await startTcpRelay({ host: server.hostname, port: Number(server.port || 5432) });
  t = await createTestApp({ connectThrough: (url) => relay.through(url), listen: true, env: { DATABASE_TIMEOUT_MS: String(TIMEOUT_MS) } });
  store = new ExamTokenStore(t.db.pool, t.config.secrets.appSecret, Date.now);
});
afterAll(async () => {
  relay.heal();
  await t.close();
  await relay.stop();
});

async function handoffKey(): Promise<string> {
  const [issued] = await store.issue([
    {
      purpose: 'launch-handoff',
      courseId: '101',
      contentId: 'classicquiz_201',
      fingerprint: 'f'.repeat(64),
      ttlSeconds: 600,
      payload: { exbLaunchUrl: EXB_LAUNCH_URL, purpose: 'assessment' },
    },
  ]);
  return issued!.token;
}

const get = (path: string) => httpGet(`${t.url}${path}`);
const abandonAfter = (path: string, ms: number) => abandonGetAfter(`${t.url}${path}`, ms);

describe('a database that stops answering', () => {
  it('answers every request and /ready within the timeout, with 503 and Retry-After', async () => {
    const key = await handoffKey();
    relay.stall();
    try {
      const [ready, handoff] = await Promise.all([get('/ready'), get(`/exb/launch-handoff?key=${key}`)]);
      expect(ready.status).toBe(503);
      expect(JSON.parse(ready.body)).toEqual({ status: 'DATABASE_UNAVAILABLE' });
      expect(ready.headers['retry-after']).toBe('5');
      expect(ready.ms).toBeLessThan(TIMEOUT_MS + 1_000);
      expect(handoff.status).toBe(503);
      expect(handoff.headers['retry-after']).toBe('5');
      expect(handoff.ms).toBeLessThan(LONGEST_ANSWER_MS);
      // A connection the pool has to open in the partition waits no longer.
      const again = await get(`/exb/launch-handoff?key=${key}`);
      expect(again.status).toBe(503);
      expect(again.ms).toBeLessThan(LONGEST_ANSWER_MS);
    } finally {
      relay.heal();
    }
    expect((await get('/ready')).status).toBe(200);
    expect((await get(`/exb/launch-handoff?key=${key}`)).body).toContain(EXB_LAUNCH_URL);
  });

  it('ends a statement that runs past the limit on the server (57014) and answers 503', async () => {
    const key = await handoffKey();
    await runSql(t.databaseUrl, [
      `create function test_slow() returns trigger language plpgsql as $$ begin perform pg_sleep(3); return null; end $$`,
      `create trigger test_slow before update on exb_student_token for each statement execute function test_slow()`,
    ]);
    try {
      const slow = await get(`/exb/launch-handoff?key=${key}`);
      expect(slow.status).toBe(503);
      expect(slow.headers['retry-after']).toBe('5');
      expect(slow.ms).toBeLessThan(TIMEOUT_MS + 800);
    } finally {
      await runSql(t.databaseUrl, ['drop trigger if exists test_slow on exb_student_token', 'drop function if exists test_slow()']);
    }
    // Cancelled, so nothing was spent.
    expect((await get(`/exb/launch-handoff?key=${key}`)).body).toContain(EXB_LAUNCH_URL);
  });

  it('spends no one-time key for a client that gave up while the database was stalled', async () => {
    const key = await handoffKey();
    relay.stall();
    try {
      await abandonAfter(`/exb/launch-handoff?key=${key}`, 300);
      await sleep(PARTITION_MS - 300);
    } finally {
      relay.heal();
    }
    await sleep(200);
    const first = await get(`/exb/launch-handoff?key=${key}`);
    expect(first.status).toBe(200);
    expect(first.body).toContain(EXB_LAUNCH_URL);
    const second = await get(`/exb/launch-handoff?key=${key}`);
    expect(second.body).not.toContain(EXB_LAUNCH_URL);
  });

  it('does not spend a key once the client is gone, whatever the database does', async () => {
    const key = await handoffKey();
    const gone = new AbortController();
    gone.abort(new Error('client gone'));
    await expect(store.consumeAnywhere('launch-handoff', key, gone.signal)).rejects.toThrow('client gone');
    expect((await get(`/exb/launch-handoff?key=${key}`)).body).toContain(EXB_LAUNCH_URL);
  });
});
