import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { OutageLog } from '../../src/db/outage-log.js';
import { isDatabaseUnavailable } from '../../src/db/unavailable.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { runSql } from '../support/db-faults.js';
import { startTcpRelay, type TcpRelay } from '../support/tcp-proxy.js';

/**
 * The service while its database is unreachable for real: its connections go through a relay the test cuts, and a
 * backend the test terminates mid-statement.
 */

const TOKEN = 'A'.repeat(43);
const HANDOFF = { method: 'GET' as const, url: `/exb/launch-handoff?key=${TOKEN}` };
const REDEEM = { method: 'POST' as const, url: '/api/exb/access-code/101/classicquiz_201', headers: { 'x-exb-proof-token': TOKEN } };

let relay: TcpRelay;
let t: TestApp;
const lines: string[] = [];

beforeAll(async () => {
  const server = new URL(inject('databaseUrl'));
  relay = await startTcpRelay({ host: server.hostname, port: Number(server.port || 5432) });
  t = await createTestApp({ connectThrough: (url) => relay.through(url), logLines: lines, connectTimeoutMs: 2_000 });
});
afterAll(async () => {
  await relay.start();
  await t.close();
  await relay.stop();
});

const logged = () => lines.map((line) => JSON.parse(line) as { level: number; msg: string; code?: string; err?: unknown });

function expectServiceUnavailable(response: LightMyRequestResponse): void {
  expect(response.statusCode, response.body).toBe(503);
  expect(response.headers['retry-after']).toBe('5');
  expect(response.headers['cache-control']).toContain('no-store');
}

describe('a database outage', () => {
  it('answers 503 with Retry-After while the database is unreachable, logs one warning, and recovers', async () => {
    expect((await t.app.inject(REDEEM)).statusCode).toBe(404);
    await relay.stop();
    lines.length = 0;
    try {
      for (let i = 0; i < 3; i += 1) {
        const api = await t.app.inject(REDEEM);
        expectServiceUnavailable(api);
        expect(api.json()).toEqual({ success: false, error_code: 'SERVICE_UNAVAILABLE', message: expect.stringContaining('Try again') });
      }
      const download = await t.app.inject({ method: 'GET', url: `/exb/config/101/classicquiz_201.exb?grant=${TOKEN}` });
      expectServiceUnavailable(download);
      expect(download.json()).toMatchObject({ error_code: 'SERVICE_UNAVAILABLE' });

      const page = await t.app.inject({ method: 'GET', url: `/exb/launch-handoff?key=${TOKEN}`, headers: { accept: 'text/html,*/*;q=0.8' } });
      expectServiceUnavailable(page);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['content-security-policy']).toContain(`frame-ancestors 'self' ${t.config.lmsUrl}`);
      expect(page.body).toContain('The service is briefly unavailable');

      for (let i = 0; i < 3; i += 1) {
        expect((await t.app.inject({ method: 'GET', url: '/ready' })).json()).toEqual({ status: 'DATABASE_UNAVAILABLE' });
      }
      // The ORM's statements fail the same way: its exceptions keep the mark of the pool they came from.
      const ormFailure: unknown = await t.db.orm.em.fork().execute('select 1').catch((error: unknown) => error);
      expect(ormFailure).toMatchObject({ code: 'ECONNREFUSED' });
      expect(isDatabaseUnavailable(ormFailure)).toBe(true);

      const entries = logged();
      const warnings = entries.filter((entry) => entry.msg.startsWith('database unreachable'));
      expect(warnings).toHaveLength(1);
      // The first request finds a pooled connection cut, later ones a refused connect: one line covers them.
      expect(warnings[0]).toMatchObject({ level: 40, refused: 1, msg: expect.stringMatching(/Connection terminated|ECONNREFUSED/) });
      expect(entries.filter((entry) => entry.level >= 50)).toEqual([]);
      expect(lines.join('\n')).not.toContain('"stack"');
    } finally {
      await relay.start();
    }
    expect((await t.app.inject(REDEEM)).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/ready' })).json()).toEqual({ status: 'READY' });
  });

  it('answers 503 when the server terminates the connection in the middle of a statement', async () => {
    // Statements consuming student tokens stall long enough for the test to terminate their backend. The launch handoff
    // consumes its key with an update whatever the key is (a proof token is verified before any statement).
    await runSql(t.databaseUrl, [
      `create function test_stall() returns trigger language plpgsql as $$ begin perform pg_sleep(10); return null; end $$`,
      `create trigger test_stall before update on exb_student_token for each statement execute function test_stall()`,
    ]);
    try {
      lines.length = 0;
      const pending = t.app.inject(HANDOFF);
      const database = new URL(t.databaseUrl).pathname.slice(1);
      let terminated = 0;
      for (let attempt = 0; attempt < 100 && terminated === 0; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const rows = (await runSql(t.databaseUrl, [
          `select count(*)::int as n from (select pg_terminate_backend(pid) from pg_stat_activity
            where datname = '${database}' and wait_event = 'PgSleep') as killed`,
        ])) as { n: number }[];
        terminated = rows[0]!.n;
      }
      expect(terminated).toBe(1);
      const terminatedAt = Date.now();
      const response = await pending;
      // Not sent again: the statement was running when its backend was terminated.
      expect(Date.now() - terminatedAt).toBeLessThan(1_500);
      expectServiceUnavailable(response);
      expect(response.json()).toMatchObject({ error_code: 'SERVICE_UNAVAILABLE' });
      expect(logged().filter((entry) => entry.level >= 50)).toEqual([]);
    } finally {
      await runSql(t.databaseUrl, ['drop trigger if exists test_stall on exb_student_token', 'drop function if exists test_stall()']);
    }
    expect((await t.app.inject(HANDOFF)).statusCode).not.toBe(503);
  });
});

describe('a database that does not accept connections (SQLSTATE 55000)', () => {
  it('answers 503 with Retry-After, logs the outage as such, and recovers', async () => {
    const name = new URL(t.databaseUrl).pathname.slice(1);
    const admin = inject('databaseUrl');
    await runSql(admin, [
      `alter database "${name}" with allow_connections false`,
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}'`,
    ]);
    lines.length = 0;
    try {
      for (let i = 0; i < 3; i += 1) {
        const response = await t.app.inject(REDEEM);
        expectServiceUnavailable(response);
        expect(response.json()).toMatchObject({ error_code: 'SERVICE_UNAVAILABLE' });
      }
      const entries = logged();
      // Counted as the outage (whose one line a minute the first test of the file already wrote), not as an error.
      expect(entries.filter((entry) => entry.level >= 50)).toEqual([]);
    } finally {
      await runSql(admin, [`alter database "${name}" with allow_connections true`]);
    }
    expect((await t.app.inject(REDEEM)).statusCode).toBe(404);
  });
});

describe('the outage log', () => {
  it('writes one line when an outage starts, then at most one a minute with the count of refusals since', () => {
    const written: { fields: Record<string, unknown>; message: string }[] = [];
    let now = 0;
    const log = new OutageLog({ warn: ((fields: Record<string, unknown>, message: string) => written.push({ fields, message })) as never }, () => now);
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    for (let i = 0; i < 5; i += 1) log.refused(refused);
    expect(written).toHaveLength(1);
    expect(written[0]).toEqual({
      fields: { code: 'ECONNREFUSED', refused: 1 },
      message: 'database unreachable (connect ECONNREFUSED 127.0.0.1:5432); answering 503 until it is back',
    });
    now = 59_999;
    log.refused(refused);
    expect(written).toHaveLength(1);
    now = 60_000;
    log.refused(refused);
    expect(written).toHaveLength(2);
    expect(written[1]!.fields).toEqual({ code: 'ECONNREFUSED', refused: 6 });
  });
});
