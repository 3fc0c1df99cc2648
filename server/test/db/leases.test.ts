import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LEASE_KINDS, leaseNames, withLease, type LeaseName } from '../../src/db/leases.js';
import { openDatabase } from '../../src/db/orm.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase } from '../support/database.js';

type Database = Awaited<ReturnType<typeof openDatabase>>;

const logger = createLogger('silent');
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let dataDir: string;
let db: Database;

const sql = <T>(text: string, params: unknown[] = []) => db.orm.em.getConnection().execute<T[]>(text, params);
const rows = (name: LeaseName) => sql<{ owner: string }>('select owner from lease where name = ?', [name]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = mkdtempSync(path.join(tmpdir(), 'exb-leases-'));
  db = await openDatabase({ databaseUrl: database.url, dataDir, logger, poolSize: 8, connectTimeoutMs: 3_000 });
  await db.migrate();
});

afterAll(async () => {
  await db?.close();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

beforeEach(async () => {
  await sql('delete from lease');
});

describe('withLease', () => {
  it('runs exactly one of many contenders that ask at the same moment, and the others at once not at all', async () => {
    const name = leaseNames.courseWrite('concurrent');
    let running = 0;
    let ran = 0;
    let releaseWork!: () => void;
    const workMayEnd = new Promise<void>((resolve) => (releaseWork = resolve));
    let answered = 0;
    const contenders = Array.from({ length: 8 }, () =>
      withLease(db.orm, { name, ttlSeconds: 60, logger }, async () => {
        running += 1;
        ran += 1;
        expect(running).toBe(1);
        await workMayEnd;
        running -= 1;
        return 'done';
      }).finally(() => (answered += 1)),
    );
    // Every contender but the holder answers while the holder is still working: a lease is never waited for.
    await expect.poll(() => answered, { timeout: 5_000, interval: 10 }).toBe(7);
    expect(ran).toBe(1);
    releaseWork();
    const outcomes = await Promise.all(contenders);
    expect(outcomes.filter((outcome) => outcome.held)).toEqual([{ held: true, value: 'done' }]);
    expect(outcomes.filter((outcome) => !outcome.held)).toHaveLength(7);
    expect(await rows(name)).toEqual([]);
  });

  it('refuses while another owner holds the lease live, and the holder keeps its row', async () => {
    const name = leaseNames.toolPreset('held-elsewhere');
    await sql(`insert into lease (name, owner, expires_at) values (?, 'elsewhere', now() + interval '1 minute')`, [name]);
    let ran = false;
    const outcome = await withLease(db.orm, { name, ttlSeconds: 60, logger }, async () => {
      ran = true;
    });
    expect(outcome).toEqual({ held: false });
    expect(ran).toBe(false);
    expect(await rows(name)).toEqual([{ owner: 'elsewhere' }]);
  });

  it('releases the lease when the work throws, and passes the error on unchanged', async () => {
    const name = leaseNames.adminBackfill('throws');
    const failure = new Error('the work failed');
    let ownerDuringWork: string | undefined;
    await expect(
      withLease(db.orm, { name, ttlSeconds: 60, logger }, async (lease) => {
        ownerDuringWork = (await rows(name))[0]?.owner;
        expect(ownerDuringWork).toBe(lease.owner);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(ownerDuringWork).toBeDefined();
    expect(await rows(name)).toEqual([]);
    expect(await withLease(db.orm, { name, ttlSeconds: 60, logger }, async () => 'next')).toEqual({ held: true, value: 'next' });
  });

  it('lets another take a lease whose holder let it expire, and the late holder neither renews nor releases it', async () => {
    const name = leaseNames.tokenRefresh('expires');
    let taker: string | undefined;
    const first = await withLease(db.orm, { name, ttlSeconds: 1, logger }, async (lease) => {
      await expect.poll(async () => (await sql('select 1 from lease where name = ? and expires_at > now()', [name])).length, { timeout: 5_000, interval: 50 }).toBe(0);
      const second = await withLease(db.orm, { name, ttlSeconds: 60, logger }, async (next) => {
        taker = next.owner;
        // The first holder's renewal finds the lease gone: it is lost for good.
        expect(await lease.renew()).toBe(false);
        expect(lease.isLost).toBe(true);
        return 'taken over';
      });
      expect(second).toEqual({ held: true, value: 'taken over' });
      return lease.isLost;
    });
    expect(first).toEqual({ held: true, value: true });
    expect(taker).toBeDefined();
    // The second holder released its own row; nothing of the first is left either.
    expect(await rows(name)).toEqual([]);
  });

  it('does not delete the row of an owner that took over after expiry when the first holder ends', async () => {
    const name = leaseNames.courseReset('left-to-new-owner');
    await withLease(db.orm, { name, ttlSeconds: 1, logger }, async () => {
      await sql(`update lease set owner = 'new-owner', expires_at = now() + interval '1 minute' where name = ?`, [name]);
    });
    expect(await rows(name)).toEqual([{ owner: 'new-owner' }]);
  });

  it('renews on a timer while the work outlasts one lifetime, so no contender takes it meanwhile', async () => {
    const name = leaseNames.verifier;
    const outcome = await withLease(db.orm, { name, ttlSeconds: 1, renewalsPerLifetime: 4, logger }, async (lease) => {
      const contenders: boolean[] = [];
      for (let round = 0; round < 4; round += 1) {
        await sleep(500);
        const contender = await withLease(db.orm, { name, ttlSeconds: 60, logger }, async () => 'stolen');
        contenders.push(contender.held);
      }
      return { contenders, lost: lease.isLost };
    });
    expect(outcome).toEqual({ held: true, value: { contenders: [false, false, false, false], lost: false } });
    expect(await rows(name)).toEqual([]);
  });

  it('renews a held lease by the full lifetime from now, and only for its owner', async () => {
    const name = leaseNames.assessment('renew', '7');
    await withLease(db.orm, { name, ttlSeconds: 30, logger }, async (lease) => {
      await sql(`update lease set expires_at = now() + interval '2 seconds' where name = ?`, [name]);
      expect(await lease.renew()).toBe(true);
      const [left] = await sql<{ left: string }>('select extract(epoch from expires_at - now()) as left from lease where name = ?', [name]);
      expect(Number(left?.left)).toBeGreaterThan(25);
    });
  });
});

describe('lease names', () => {
  it('start with one of the listed kinds', () => {
    const names: LeaseName[] = [
      leaseNames.verifier,
      leaseNames.preExamSweep,
      leaseNames.assessment('1', '2'),
      leaseNames.courseWrite('1'),
      leaseNames.courseReset('1'),
      leaseNames.toolPreset('1'),
      leaseNames.adminBackfill('1'),
      leaseNames.tokenRefresh('1'),
    ];
    for (const name of names) expect(LEASE_KINDS).toContain(name.split(':')[0]);
    expect(new Set(names.map((name) => name.split(':')[0])).size).toBe(LEASE_KINDS.length);
  });
});
