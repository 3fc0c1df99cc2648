import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardStatements } from '../../src/db/statement-guard.js';
import { isDatabaseUnavailable, markDatabaseError } from '../../src/db/unavailable.js';
import { domainErrorFrom } from '../../src/domain/known-errors.js';
import { freePort } from '../../src/free-port.js';
import { createTestDatabase } from '../support/database.js';
import { runSql } from '../support/db-faults.js';

/** Real errors of the driver, the pool and the server, each classified. */

let database: { url: string; drop(): Promise<void> };
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

async function failureOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('isDatabaseUnavailable', () => {
  it('recognises a refused connection of the database pool, and only of it', async () => {
    const port = await freePort();
    const pool = new pg.Pool({ host: '127.0.0.1', port, user: 'postgres', database: 'x' });
    guardStatements(pool, undefined);
    try {
      const error = await failureOf(() => pool.query('select 1'));
      expect((error as { code?: string }).code).toBe('ECONNREFUSED');
      expect(isDatabaseUnavailable(error)).toBe(true);
    } finally {
      await pool.end();
    }
    // The same code from another socket (a plain client here; a request stream, below) is not the database's.
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'x' });
    expect(isDatabaseUnavailable(await failureOf(() => client.connect()))).toBe(false);
  });

  it('leaves a client that aborted its upload alone: ECONNRESET of the request stream', () => {
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    expect(isDatabaseUnavailable(aborted)).toBe(false);
    expect(isDatabaseUnavailable(markDatabaseError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })))).toBe(true);
  });

  it('recognises a pool that cannot get a connection in time', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    const pool = new pg.Pool({ host: '127.0.0.1', port: (silent.address() as net.AddressInfo).port, connectionTimeoutMillis: 200 });
    try {
      const error = await failureOf(() => pool.query('select 1'));
      expect(isDatabaseUnavailable(error)).toBe(true);
    } finally {
      await pool.end();
      silent.close();
    }
  });

  it('recognises a backend the server terminated (57P01) and the connection it left unusable', async () => {
    const client = new pg.Client({ connectionString: database.url });
    client.on('error', () => undefined);
    await client.connect();
    const pid = ((await client.query('select pg_backend_pid() as pid')).rows[0] as { pid: number }).pid;
    const sleeping = failureOf(() => client.query('select pg_sleep(10)'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await runSql(database.url, [`select pg_terminate_backend(${pid})`]);
    const error = await sleeping;
    expect((error as { code?: string }).code).toBe('57P01');
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(isDatabaseUnavailable(await failureOf(() => client.query('select 1')))).toBe(true);
  });

  it('leaves failed statements, other failures and non-errors alone', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const syntax = await failureOf(() => client.query('selec 1'));
      expect((syntax as { code?: string }).code).toBe('42601');
      const raised = await failureOf(() => client.query(`do $$ begin raise exception 'no'; end $$`));
      for (const error of [syntax, raised]) expect(isDatabaseUnavailable(error)).toBe(false);
    } finally {
      await client.end();
    }
    // An outgoing request that cannot connect wraps the socket error as its cause: not the database.
    const port = await freePort();
    const fetchFailure = await failureOf(() => fetch(`http://127.0.0.1:${port}/`));
    expect(isDatabaseUnavailable(fetchFailure)).toBe(false);
    for (const value of [undefined, null, 'ECONNREFUSED', new Error('boom')]) expect(isDatabaseUnavailable(value)).toBe(false);
  });

  it('is the refusal the management surfaces answer with: 503 SERVICE_UNAVAILABLE', () => {
    const refusal = domainErrorFrom(markDatabaseError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })));
    expect(refusal).toMatchObject({ status: 503, errorCode: 'SERVICE_UNAVAILABLE' });
  });
});
