import type { MikroORM } from '@mikro-orm/postgresql';
import { currentBackend, type BackendRef } from '../../db/backends.js';
import { sqlOnClient, type SqlOnClient } from '../../db/pg-transaction.js';
import { isDatabaseUnavailable } from '../../db/unavailable.js';
import { storeResetReceipt } from '../connected-courses/course-connections.js';
import { deleteCourseAssessments } from '../assessments/assessment-cache.js';
import { deleteCourseTokens } from '../exam-browser/token-store.js';
import { deleteCourseLmsReads } from '../exam-day/lms-read-store.js';
import { deleteCourseSweeps } from '../pre-exam-sweep/sweep-records.js';
import { clearCoursePolicy, deleteCourseSettings } from '../settings/reset-statements.js';
import type { ResetReceipt } from './model.js';
import type { PresetAssignmentCleanup } from './preset-assignments.js';
import { deleteJournal } from './reset-journal.js';
import { ResetLeaseLostError, type ResetLease } from './reset-lease.js';

/**
 * Phase 3 of a course reset: one database transaction that deletes the course's records and stores the receipt.
 *
 * What it deletes: the assessment settings (enforcement, policy, stored codes), the discovery cache, the course policy
 * (defaults and tool catalog, cleared on a row that is kept so the reset generation only ever grows; copies check the
 * generation), the transient student state (open config grants, handoffs, proofs, exit grants), the pre-exam sweep's
 * findings and the course's opt-in to automatic repairs (so no alert outlives the enforcement it was about), the exam
 * day's copies of LMS reads (attempt-read claims, roster) and, through `PresetAssignmentCleanup`, the course's preset
 * assignments. The students' exam-day steps stay until retention: they record what students did. LMS OAuth grants of
 * the course's users are not touched.
 * The connection record gets the receipt, the reset's journal is deleted, and the audit trail gets the success entry, in
 * the same transaction.
 *
 * It runs on one pooled `pg` client with explicit `BEGIN` and `COMMIT`, so it knows when `COMMIT` was sent.
 *
 * The transaction first renews the reset's lease: the row lock this takes is held until the end, so the lease cannot
 * expire into someone else's hands between that check and the commit.
 *
 * Failure is reported as one of two kinds, because they call for different answers:
 * - `definite`: the transaction did not commit (a statement failed, or the server refused the commit): compensate;
 * - `ambiguous`: the connection was lost after `COMMIT` was sent: the receipt decides (`commit-decision.ts`).
 */

export class LocalResetError extends Error {
  constructor(
    readonly kind: 'definite' | 'ambiguous',
    readonly backend: BackendRef | null,
    cause: unknown,
  ) {
    super(`course reset transaction failed (${kind})`, { cause });
    this.name = 'LocalResetError';
  }
}

export interface LocalResetInput {
  readonly courseId: string;
  readonly accountId: string;
  readonly receiptId: string;
  readonly byLmsUserId: string;
  /** Content ids whose codes the LMS phase removed. */
  readonly removedCodeIds: readonly string[];
  readonly lease: ResetLease;
  readonly presetAssignments: PresetAssignmentCleanup;
  /** Appends the success entry to the audit trail with the transaction's executor. */
  readonly recordSuccess: (tx: SqlOnClient, receipt: ResetReceipt) => Promise<void>;
}

export async function commitLocalReset(orm: MikroORM, input: LocalResetInput): Promise<ResetReceipt> {
  const pool = await orm.em.getConnection().getNativeClient();
  const client = await pool.connect();
  const tx = sqlOnClient(client);
  let backend: BackendRef | null = null;
  let commitSent = false;
  // A connection that failed is discarded, never handed to the next request (the ORM's own transactions would keep it
  // checked out for good when both COMMIT and ROLLBACK fail on a dead connection).
  let broken: Error | undefined;
  try {
    backend = await currentBackend(tx);
    await client.query('begin');
    const receipt = await resetStatements(tx, input);
    // From here on the transaction's fate is the server's: a lost connection leaves the outcome unknown.
    commitSent = true;
    await client.query('commit');
    return receipt;
  } catch (error) {
    if (!commitSent) {
      await client.query('rollback').catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
    } else if (isDatabaseUnavailable(error)) {
      broken = error as Error;
    }
    if (error instanceof ResetLeaseLostError) throw error;
    // A commit the server answered with an error (a deferred check) rolled back; only a lost connection is ambiguous.
    throw new LocalResetError(commitSent && isDatabaseUnavailable(error) ? 'ambiguous' : 'definite', backend, error);
  } finally {
    client.release(broken);
  }
}

/** Everything the transaction does, in order, each statement in the home of its table; see the module comment. */
async function resetStatements(tx: SqlOnClient, input: LocalResetInput): Promise<ResetReceipt> {
  const { courseId } = input;
  if (!(await input.lease.renew(tx))) throw new ResetLeaseLostError();
  const settings = await deleteCourseSettings(tx, courseId);
  const cached = await deleteCourseAssessments(tx, courseId);
  await deleteCourseTokens(tx, courseId);
  await deleteCourseSweeps(tx, courseId);
  await deleteCourseLmsReads(tx, courseId);
  await input.presetAssignments.deleteForCourse(tx, courseId);
  const resetGeneration = await clearCoursePolicy(tx, courseId);

  const receipt: ResetReceipt = {
    receiptId: input.receiptId,
    courseId,
    resetAt: new Date().toISOString(),
    byLmsUserId: input.byLmsUserId,
    assessmentsCleared: new Set([...settings, ...cached]).size,
    accessCodesRemoved: input.removedCodeIds.length,
    removedCodeIds: [...input.removedCodeIds],
    resetGeneration,
  };
  const stored = await storeResetReceipt(tx, input.accountId, courseId, { receiptId: receipt.receiptId, resetAt: receipt.resetAt, receipt });
  if (!stored) throw new Error('the course connection record is gone');
  // The journal goes with the records: one left behind means this transaction never committed.
  await deleteJournal(tx, courseId);
  await input.recordSuccess(tx, receipt);
  return receipt;
}
