import type { MikroORM } from '@mikro-orm/postgresql';
import { resetReceiptSchema, type ResetReceipt } from './model.js';
import { endBackend, type BackendRef } from '../../db/backends.js';
import type { CourseConnections } from '../connected-courses/course-connections.js';

/**
 * Settles a reset whose connection was lost after `COMMIT` was sent: did the transaction commit?
 *
 * Reading the receipt at once could see "not committed" while the server is still finishing that very commit. So the
 * server process that ran the transaction is ended first (it belongs to the service's own role) and awaited until it
 * is gone: from then on its transaction is either committed or rolled back for good. Then the connection record tells:
 * - `committed`: it holds this reset's receipt, so everything the transaction did is there: keep it;
 * - `not-committed`: it does not, so nothing of the transaction is there: compensate the LMS phase;
 * - `unreadable`: the database cannot be asked (or the receipt is not what this reset wrote): nobody can tell without
 *   looking (`ADMIN_COURSE_RESET_VERIFY_REQUIRED`).
 */

export type CommitDecision =
  | { readonly kind: 'committed'; readonly receipt: ResetReceipt }
  | { readonly kind: 'not-committed' }
  | { readonly kind: 'unreadable'; readonly error: unknown };

export interface DecisionOptions {
  /** How long the decision may take in all, waiting for the database to answer. */
  readonly deadlineMs?: number;
  readonly pollMs?: number;
}

export const COMMIT_DECISION_DEADLINE_MS = 5_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function decideFromReceipt(
  db: { readonly orm: MikroORM; readonly connections: CourseConnections },
  subject: { readonly backend: BackendRef | null; readonly courseId: string; readonly receiptId: string },
  options: DecisionOptions = {},
): Promise<CommitDecision> {
  const deadline = Date.now() + (options.deadlineMs ?? COMMIT_DECISION_DEADLINE_MS);
  const pollMs = options.pollMs ?? 50;
  let lastError: unknown = new Error('the transaction’s server process did not end in time');
  while (Date.now() < deadline) {
    try {
      if (subject.backend !== null && !(await endBackend(db.orm, subject.backend))) {
        await sleep(pollMs);
        continue;
      }
      return await readReceipt(db.connections, subject.courseId, subject.receiptId);
    } catch (error) {
      // The pool may hand out a connection the same outage cut; the next attempt gets a fresh one.
      lastError = error;
      await sleep(pollMs);
    }
  }
  return { kind: 'unreadable', error: lastError };
}

async function readReceipt(connections: CourseConnections, courseId: string, receiptId: string): Promise<CommitDecision> {
  const stored = await connections.resetReceipt(courseId);
  if (stored === null || stored.receiptId !== receiptId) return { kind: 'not-committed' };
  const parsed = resetReceiptSchema.safeParse(stored.receipt);
  if (!parsed.success || parsed.data.receiptId !== receiptId) return { kind: 'unreadable', error: new Error('the stored receipt does not match its schema') };
  return { kind: 'committed', receipt: parsed.data };
}
