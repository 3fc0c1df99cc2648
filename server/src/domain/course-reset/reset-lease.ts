import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { liveLeaseNames, releaseLease, renewLease, tryAcquireLease } from '../../db/leases.js';
import { sqlOnClient } from '../../db/pg-transaction.js';
import { lockNames } from '../locks.js';

/**
 * The course-reset lock: a row of the `lease` table (`course-reset:{courseId}`) with an owner and an expiry, which is
 * also the marker every instructor and administrator mutation of the course checks (`COURSE_RESET_IN_PROGRESS`).
 *
 * The reset renews it while it runs: before each step, and on a timer while a single step (a long LMS listing) takes
 * its time. A renewal only extends a lease this owner still holds unexpired: once it expired, another request may
 * already have passed the marker check, so the reset must not act as if it had been exclusive all along. From then on
 * the lease counts as lost and the reset stops (`ADMIN_COURSE_RESET_VERIFY_REQUIRED`).
 */

/** Long enough to outlast a renewal missed to a slow database; short enough that a crashed reset frees the course soon. */
export const RESET_LEASE_TTL_SECONDS = 60;

export class ResetLeaseLostError extends Error {
  constructor() {
    super('the course-reset lease expired or was taken over');
    this.name = 'ResetLeaseLostError';
  }
}

export class ResetLease {
  readonly name: string;
  readonly owner = randomUUID();
  private lost = false;
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly orm: MikroORM,
    private readonly logger: Logger,
    courseId: string,
    readonly ttlSeconds: number,
  ) {
    this.name = lockNames.courseReset(courseId);
  }

  /** The lease, or `null` when another reset of the course holds it. */
  static async acquire(orm: MikroORM, logger: Logger, courseId: string, ttlSeconds = RESET_LEASE_TTL_SECONDS): Promise<ResetLease | null> {
    const lease = new ResetLease(orm, logger, courseId, ttlSeconds);
    if (!(await tryAcquireLease(orm, lease.name, lease.owner, ttlSeconds))) return null;
    lease.timer = setInterval(() => void lease.renew().catch(() => undefined), (ttlSeconds * 1000) / 4);
    lease.timer.unref();
    return lease;
  }

  /** Name, owner and lifetime, as `renewLease` takes them (the reset's transaction renews it too). */
  get leaseParams(): [string, string, number] {
    return [this.name, this.owner, this.ttlSeconds];
  }

  /**
   * Extends the lease; `false` once it is lost. A renewal the database could not answer leaves the lease as it was
   * (it may still be held): only an answer that no such live lease exists makes it lost.
   */
  async renew(): Promise<boolean> {
    if (this.lost) return false;
    const pool = await this.orm.em.getConnection().getNativeClient();
    if (!(await renewLease(sqlOnClient(pool), ...this.leaseParams))) this.markLost();
    return !this.lost;
  }

  /** Renews the lease or throws {@link ResetLeaseLostError}; run before every step of the reset. */
  async assertHeld(): Promise<void> {
    if (!(await this.renew())) throw new ResetLeaseLostError();
  }

  markLost(): void {
    if (!this.lost) this.logger.warn({ lease: this.name }, 'course-reset lease lost');
    this.lost = true;
  }

  get isLost(): boolean {
    return this.lost;
  }

  /** Stops renewing and deletes the row if it is still this owner's (a lease taken over is left to its new owner). */
  async release(): Promise<void> {
    clearInterval(this.timer);
    await releaseLease(this.orm, this.name, this.owner).catch((error: unknown) =>
      this.logger.warn({ err: error, lease: this.name }, 'could not release the course-reset lease; it expires on its own'),
    );
  }
}

/** Which of the course's other locks are held now: an assessment operation, or a course-level write. */
export async function heldCourseLocks(orm: MikroORM, courseId: string): Promise<{ assessment: boolean; courseWrite: boolean }> {
  const names = await liveLeaseNames(orm, lockNames.courseWrite(courseId), lockNames.assessment(courseId, ''));
  return { assessment: names.some((name) => name.startsWith('assessment:')), courseWrite: names.includes(lockNames.courseWrite(courseId)) };
}
