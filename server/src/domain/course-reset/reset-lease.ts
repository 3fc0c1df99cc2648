import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { liveLeaseNames, withLease, type HeldLease, type LeaseOutcome } from '../../db/leases.js';
import type { SqlOnClient } from '../../db/pg-transaction.js';
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

/** The reset's hold on its course, for the steps that renew it and the journal rows that name its owner. */
export class ResetLease {
  constructor(private readonly held: HeldLease) {}

  get owner(): string {
    return this.held.owner;
  }

  /** Extends the lease (inside `tx`, the reset's transaction, when given); `false` once it is lost. */
  renew(tx?: SqlOnClient): Promise<boolean> {
    return this.held.renew(tx);
  }

  /** Renews the lease or throws {@link ResetLeaseLostError}; run before every step of the reset. */
  async assertHeld(): Promise<void> {
    if (!(await this.renew())) throw new ResetLeaseLostError();
  }
}

/**
 * Runs `work` holding the course's reset lease, renewed on a timer four times per lifetime while a single step takes
 * its time; `{ held: false }` when another reset of the course holds it.
 */
export function withResetLease<T>(
  orm: MikroORM,
  logger: Logger,
  courseId: string,
  ttlSeconds: number,
  work: (lease: ResetLease) => Promise<T>,
): Promise<LeaseOutcome<T>> {
  const request = { name: lockNames.courseReset(courseId), ttlSeconds, renewalsPerLifetime: 4, logger };
  return withLease(orm, request, (held) => work(new ResetLease(held)));
}

/** Which of the course's other locks are held now: an assessment operation, or a course-level write. */
export async function heldCourseLocks(orm: MikroORM, courseId: string): Promise<{ assessment: boolean; courseWrite: boolean }> {
  const names = await liveLeaseNames(orm, lockNames.courseWrite(courseId), lockNames.assessment(courseId, ''));
  return { assessment: names.some((name) => name.startsWith('assessment:')), courseWrite: names.includes(lockNames.courseWrite(courseId)) };
}
