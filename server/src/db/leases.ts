import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { sqlOnClient, type SqlOnClient } from './pg-transaction.js';

/**
 * Named leases in the `lease` table: a lock with an owner and an expiry, shared by every instance. Acquiring is one
 * statement that either inserts the row or takes over an expired one, so exactly one contender holds a live lease, and
 * a holder that crashed blocks others for at most the lease's lifetime.
 */

/** Every kind of lease the service takes. A lease's name is its kind, then the ids of what it guards. */
export const LEASE_KINDS = [
  'access-code-verifier',
  'pre-exam-sweep',
  'assessment',
  'course-write',
  'course-reset',
  'tool-preset',
  'admin-backfill',
  'lms-token-refresh',
] as const;
export type LeaseKind = (typeof LEASE_KINDS)[number];
export type LeaseName = LeaseKind | `${LeaseKind}:${string}`;

/** The one place a lease's name is spelled. */
export const leaseNames = {
  /** One background verification batch at a time across instances. */
  verifier: 'access-code-verifier',
  /** One pre-exam sweep at a time across instances. */
  preExamSweep: 'pre-exam-sweep',
  /** One mutation of an assessment at a time (enforcement, policy, code). */
  assessment: (courseId: string, contentId: string) => `assessment:${courseId}:${contentId}`,
  /** One course-level write at a time (defaults, discovery, tool copies into the course). */
  courseWrite: (courseId: string) => `course-write:${courseId}`,
  /** The administrator's course reset while it runs; every mutation of the course checks it. */
  courseReset: (courseId: string) => `course-reset:${courseId}`,
  /** One reconciliation pass of a tool preset at a time. */
  toolPreset: (presetId: string) => `tool-preset:${presetId}`,
  /** One legacy backfill of a root account at a time. */
  adminBackfill: (accountId: string) => `admin-backfill:${accountId}`,
  /** One refresh of a user's LMS token at a time. */
  tokenRefresh: (lmsUserId: string) => `lms-token-refresh:${lmsUserId}`,
} as const satisfies Record<string, LeaseName | ((...ids: string[]) => LeaseName)>;

export async function tryAcquireLease(orm: MikroORM, name: LeaseName, owner: string, ttlSeconds: number): Promise<boolean> {
  const rows = await orm.em.getConnection().execute<{ owner: string }[]>(
    `insert into lease (name, owner, expires_at) values (?, ?, now() + (? * interval '1 second'))
     on conflict (name) do update set owner = excluded.owner, expires_at = excluded.expires_at
       where lease.expires_at <= now()
     returning owner`,
    [name, owner, ttlSeconds],
  );
  return rows[0]?.owner === owner;
}

/** Releases the lease if this owner still holds it; a lease taken over after expiry is left to its new owner. */
export async function releaseLease(orm: MikroORM, name: LeaseName, owner: string): Promise<void> {
  await orm.em.getConnection().execute('delete from lease where name = ? and owner = ?', [name, owner], 'run');
}

/**
 * Extends a lease this owner still holds unexpired; `false` once it expired or passed to another owner. Inside a
 * transaction the row lock it takes keeps the lease from being taken over until that transaction ends.
 */
export async function renewLease(sql: SqlOnClient, name: LeaseName, owner: string, ttlSeconds: number): Promise<boolean> {
  const rows = await sql.execute<{ owner: string }[]>(
    `update lease set expires_at = now() + (? * interval '1 second')
     where name = ? and owner = ? and expires_at > now() returning owner`,
    [ttlSeconds, name, owner],
  );
  return rows.length > 0;
}

/** The live leases named `name`, or whose names start with `prefix`. */
export async function liveLeaseNames(orm: MikroORM, name: LeaseName, prefix: string): Promise<string[]> {
  const rows = await orm.em.getConnection().execute<{ name: string }[]>(
    'select name from lease where expires_at > now() and (name = ? or starts_with(name, ?))',
    [name, prefix],
  );
  return rows.map((row) => row.name);
}

export interface LeaseRequest {
  readonly name: LeaseName;
  readonly ttlSeconds: number;
  /**
   * Work that may outlast the lifetime renews the lease on a timer this many times per lifetime, so one missed
   * renewal (a slow database) does not lose it. Left out: the lifetime is chosen to outlast the work, and no timer runs.
   */
  readonly renewalsPerLifetime?: number;
  readonly logger: Logger;
}

/** A lease held while `withLease`'s work runs. */
export class HeldLease {
  readonly owner = randomUUID();
  private lost = false;

  constructor(
    private readonly orm: MikroORM,
    readonly name: LeaseName,
    readonly ttlSeconds: number,
    private readonly logger: Logger,
  ) {}

  /**
   * Extends the lease; `false` once it is lost. `sql` runs the renewal inside a transaction (whose row lock then keeps
   * the lease until it ends); without it, the renewal is a statement of its own on the pool. A renewal the database
   * could not answer throws and leaves the lease as it was (it may still be held): only an answer that no such live
   * lease exists makes it lost.
   */
  async renew(sql?: SqlOnClient): Promise<boolean> {
    if (this.lost) return false;
    const on = sql ?? sqlOnClient(await this.orm.em.getConnection().getNativeClient());
    if (!(await renewLease(on, this.name, this.owner, this.ttlSeconds))) this.markLost();
    return !this.lost;
  }

  /** Once lost, the lease stays lost: another holder may have acted meanwhile, so the work must not go on as if exclusive. */
  markLost(): void {
    if (!this.lost) this.logger.warn({ lease: this.name }, 'lease lost');
    this.lost = true;
  }

  get isLost(): boolean {
    return this.lost;
  }
}

export type LeaseOutcome<T> = { readonly held: true; readonly value: T } | { readonly held: false };

/**
 * Runs `work` holding the named lease, or answers `{ held: false }` at once when another owner holds it live (a lease is
 * never waited for here; a caller that must wait polls). The lease is released when `work` ends, returning or throwing;
 * a release the database refuses is logged and left to expire on its own, so it never replaces the work's outcome.
 */
export async function withLease<T>(orm: MikroORM, request: LeaseRequest, work: (lease: HeldLease) => Promise<T>): Promise<LeaseOutcome<T>> {
  const { name, ttlSeconds, renewalsPerLifetime, logger } = request;
  const lease = new HeldLease(orm, name, ttlSeconds, logger);
  if (!(await tryAcquireLease(orm, name, lease.owner, ttlSeconds))) return { held: false };
  let timer: NodeJS.Timeout | undefined;
  if (renewalsPerLifetime !== undefined) {
    timer = setInterval(() => {
      lease.renew().catch((error: unknown) => logger.warn({ err: error, lease: name }, 'could not renew a lease; tried again'));
    }, (ttlSeconds * 1000) / renewalsPerLifetime);
    timer.unref();
  }
  try {
    return { held: true, value: await work(lease) };
  } finally {
    clearInterval(timer);
    await releaseLease(orm, name, lease.owner).catch((error: unknown) =>
      logger.warn({ err: error, lease: name }, 'could not release a lease; it expires on its own'),
    );
  }
}
