import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { runSql } from '../support/db-faults.js';
import { sleep } from '../support/http-client.js';

/**
 * Connections that die between statements: an administrator (or a pooler, a failover) terminates the service's
 * backends every 100 ms while requests run. A statement sent on a connection the server had already ended never ran,
 * and is sent again once, on another connection.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const KEY = 'A'.repeat(43);

describe('database connections terminated every 100 ms', () => {
  it('fail no request whose statement never reached the server', async () => {
    const name = new URL(t.databaseUrl).pathname.slice(1);
    const admin = inject('databaseUrl');
    let running = true;
    let terminations = 0;
    let busy = 0;
    const terminator = (async () => {
      while (running) {
        const rows = (await runSql(admin, [
          `select count(pg_terminate_backend(pid))::int as n, (count(*) filter (where state = 'active'))::int as busy
            from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`,
        ])) as { n: number; busy: number }[];
        terminations += rows[0]!.n;
        busy += rows[0]!.busy;
        await sleep(100);
      }
    })();
    const statuses: number[] = [];
    const client = async () => {
      while (running) {
        // One statement each: the handoff spends its key (unknown here: 404).
        const response = await t.app.inject({ method: 'GET', url: `/exb/launch-handoff?key=${KEY}` });
        statuses.push(response.statusCode);
        await sleep(2);
      }
    };
    const clients = Array.from({ length: 4 }, client);
    await sleep(4_000);
    running = false;
    await Promise.all([terminator, ...clients]);
    expect(terminations).toBeGreaterThan(20);
    expect(statuses.length).toBeGreaterThan(200);
    // Every other request was answered as if nothing had happened; the few whose statement was running fail cleanly.
    const failed = statuses.filter((status) => status !== 404);
    expect(failed.filter((status) => status !== 503)).toEqual([]);
    expect(failed.length).toBeLessThanOrEqual(busy);
    expect(terminations - busy).toBeGreaterThan(20);
  });
});
