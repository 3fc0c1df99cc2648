import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { AssignmentStatus } from '@exb/shared/admin-tool-presets.js';
import { leaseNames, withLease } from '../../db/leases.js';
import type { LmsApi } from '../../lms/api.js';
import { mapLimited } from '../connected-courses/map-limited.js';
import type { AdminReconciler } from '../connected-courses/summary-hooks.js';
import type { AssignmentStore, ClaimScope } from './assignment-store.js';
import type { CourseSync } from './course-sync.js';

/** Document 2 `rollout`: what one pass did, and how many of the preset's assignments still wait. */
export interface PassResult {
  readonly processed: number;
  readonly applied: number;
  readonly failed: number;
}

/**
 * The preset operation lock: one reconciliation of a preset at a time across every instance. It must outlast a pass:
 * 12 courses, `SYNC_CONCURRENCY` at a time, each one LMS call (15 s deadline) and a short transaction.
 */
export const PRESET_LOCK_TTL_SECONDS = 120;
/** Courses of one pass synchronized at once: bounded, so a pass neither floods the LMS nor the database pool. */
const SYNC_CONCURRENCY = 4;

export const presetLockName = leaseNames.toolPreset;

export interface ReconcilerDependencies {
  readonly orm: MikroORM;
  readonly assignments: AssignmentStore;
  readonly sync: CourseSync;
  readonly logger: Logger;
}

/**
 * Reconciliation passes. A pass claims at most `batchSize` assignment rows (a lease on each row, so parallel passes
 * never take the same course), synchronizes their courses and gives the rows back. One pass is bounded by the batch
 * size, so no request runs long; the dashboard drives as many passes as a rollout needs.
 */
export class PresetReconciler implements AdminReconciler {
  constructor(private readonly deps: ReconcilerDependencies) {}

  /**
   * One pass over one preset's rows under the preset operation lock. `null` when another pass of this preset holds it:
   * nothing was done, and the caller may simply ask again.
   */
  async presetPass(accountId: string, presetId: string, statuses: readonly AssignmentStatus[], lms: LmsApi, batchSize: number): Promise<PassResult | null> {
    const lease = { name: presetLockName(presetId), ttlSeconds: PRESET_LOCK_TTL_SECONDS, logger: this.deps.logger };
    const outcome = await withLease(this.deps.orm, lease, () => this.pass({ accountId, presetId, statuses }, lms, batchSize));
    return outcome.held ? outcome.value : null;
  }

  /** The summary's background work: at most one batch of the account's pending rows, of any preset. */
  async reconcile(accountId: string, lms: LmsApi, batchSize: number): Promise<void> {
    const result = await this.pass({ accountId, statuses: ['pending'] }, lms, batchSize);
    if (result.processed > 0) this.deps.logger.info({ accountId, ...result }, 'preset assignments reconciled in the background');
  }

  private async pass(scope: ClaimScope, lms: LmsApi, batchSize: number): Promise<PassResult> {
    const owner = randomUUID();
    const claimed = await this.deps.assignments.claim(owner, scope, batchSize);
    try {
      // A course is synchronized once per pass, whatever number of its rows were claimed: one sync applies them all.
      const courses = [...new Set(claimed.map((row) => row.courseId))];
      const outcomes = await mapLimited(courses, SYNC_CONCURRENCY, (courseId) => this.deps.sync.synchronize(scope.accountId, courseId, lms));
      const byCourse = new Map(courses.map((courseId, index) => [courseId, outcomes[index]!]));
      const applied = claimed.filter((row) => byCourse.get(row.courseId)?.ok === true).length;
      return { processed: claimed.length, applied, failed: claimed.length - applied };
    } finally {
      await this.deps.assignments.release(owner);
    }
  }
}
