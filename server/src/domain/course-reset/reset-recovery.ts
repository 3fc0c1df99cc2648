import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { AuditEntryInput, AuditLog, AuditOutcome } from '../../audit/audit-log.js';
import { inTransaction, sqlOnClient } from '../../db/pg-transaction.js';
import type { LmsApi } from '../../lms/api.js';
import { LmsAuthorizationRequiredError, LmsNotFoundError } from '../../lms/errors.js';
import { VERIFICATION_REASONS } from '../enforcement/access-code-verification.js';
import { writeLmsAccessCode } from '../enforcement/lms-access-code.js';
import { markCodesUnknown } from '../settings/verification-records.js';
import { commitLocalReset } from './local-reset.js';
import { NO_PRESET_ASSIGNMENTS, type PresetAssignmentCleanup } from './preset-assignments.js';
import { deleteJournal, type JournalEntry, type ResetJournal } from './reset-journal.js';
import { RESET_LEASE_TTL_SECONDS, withResetLease, type ResetLease } from './reset-lease.js';

/**
 * Settles a course reset whose process died (`reset-journal.ts`), once its lease has expired, so the LMS's codes and
 * the service's records agree again and the audit trail says what happened:
 *
 * - journal in `local`: every code was removed and the transaction never committed (it deletes the journal): the
 *   transaction is run now and the reset is `recovered`, as the administrator asked for;
 * - journal in `lms` or `compensating`: the reset stopped among its LMS steps, or while undoing them: every code whose
 *   removal began is put back (writing a code that is still there changes nothing) and the reset is `compensated`.
 *
 * It runs under the course-reset lease of its own, so only one instance settles a journal, and instructors' writes stay
 * refused until it is settled. A journal that cannot be settled yet (no LMS authorization to restore with, an LMS or
 * database failure) stays for the next attempt: the next instance's start, the periodic sweep, or the next reset
 * request of the course.
 */

export type RecoveryOutcome = 'none' | 'recovered' | 'compensated' | 'verify-required' | 'pending';

/** Who settles it, as the trail names them: an administrator's reset request, or the service on its own. */
export interface RecoveryActor {
  readonly actor: AuditEntryInput['actor'];
  readonly requestId: string | null;
}

export const SYSTEM_ACTOR: RecoveryActor = { actor: { lmsUserId: null, name: null, role: 'system' }, requestId: null };

export interface ResetRecoveryDependencies {
  readonly orm: MikroORM;
  readonly journal: ResetJournal;
  readonly audit: AuditLog;
  readonly logger: Logger;
  readonly presetAssignments?: PresetAssignmentCleanup;
  readonly leaseTtlSeconds?: number;
}

/** Attempts of each restoring write before the journal is left for a later attempt. */
const RESTORE_ATTEMPTS = 2;

export class ResetRecovery {
  constructor(private readonly deps: ResetRecoveryDependencies) {}

  /**
   * Settles every abandoned journal that no live lease guards, with the LMS `lmsFor` gives for the course (the stored
   * grant of the administrator who started it, or of another manager). Every instance runs it at start and then
   * periodically; the lease makes the instances take turns.
   */
  async sweep(lmsFor: (courseId: string, preferredLmsUserId: string) => Promise<LmsApi | null>): Promise<Record<string, RecoveryOutcome>> {
    const outcomes: Record<string, RecoveryOutcome> = {};
    for (const courseId of await this.deps.journal.abandoned()) {
      const ttlSeconds = this.deps.leaseTtlSeconds ?? RESET_LEASE_TTL_SECONDS;
      const outcome = await withResetLease(this.deps.orm, this.deps.logger, courseId, ttlSeconds, async (lease) => {
        try {
          return await this.settle(courseId, lease, (preferred) => lmsFor(courseId, preferred), SYSTEM_ACTOR);
        } catch (error) {
          this.deps.logger.error({ err: error, courseId }, 'an interrupted course reset could not be settled; it is tried again');
          return 'pending' as const;
        }
      });
      if (outcome.held) outcomes[courseId] = outcome.value;
    }
    return outcomes;
  }

  /** Settles the course's journal, if any, under `lease` (which the caller holds and releases). */
  async settle(
    courseId: string,
    lease: ResetLease,
    lmsFor: (preferredLmsUserId: string) => Promise<LmsApi | null>,
    by: RecoveryActor,
  ): Promise<RecoveryOutcome> {
    const journal = await this.deps.journal.takeOver(courseId, lease.owner);
    if (journal === null) return 'none';
    this.deps.logger.warn({ courseId, phase: journal.phase, removed: journal.removed.length }, 'settling an interrupted course reset');
    if (journal.phase === 'local') return this.finish(journal, lease, by);
    return this.compensate(journal, await lmsFor(journal.byLmsUserId), by);
  }

  /** The LMS phase was complete: the local transaction, which also deletes the journal and writes `recovered`. */
  private async finish(journal: JournalEntry, lease: ResetLease, by: RecoveryActor): Promise<RecoveryOutcome> {
    await commitLocalReset(this.deps.orm, {
      courseId: journal.courseId,
      accountId: journal.accountId,
      receiptId: randomUUID(),
      byLmsUserId: journal.byLmsUserId,
      removedCodeIds: journal.removed,
      lease,
      presetAssignments: this.deps.presetAssignments ?? NO_PRESET_ASSIGNMENTS,
      recordSuccess: (tx, receipt) =>
        this.deps.audit.record(
          this.entry(journal, by, 'recovered', {
            phase: journal.phase,
            assessmentsCleared: receipt.assessmentsCleared,
            codesRemoved: receipt.accessCodesRemoved,
            receiptId: receipt.receiptId,
            startedBy: journal.byLmsUserId,
          }),
          tx,
        ),
    });
    return 'recovered';
  }

  /** Puts back every code whose removal began, last first; the journal goes once all are back. */
  private async compensate(journal: JournalEntry, lms: LmsApi | null, by: RecoveryActor): Promise<RecoveryOutcome> {
    const { courseId } = journal;
    if (journal.codes === null) {
      // The codes cannot be opened (the application secret changed): nobody can put them back but a person.
      await this.closeUnrestorable(journal, by, journal.removed);
      return 'verify-required';
    }
    if (lms === null) {
      this.deps.logger.warn({ courseId }, 'no LMS authorization can restore the codes of an interrupted course reset yet');
      return 'pending';
    }
    const restored: string[] = [];
    const failed: string[] = [];
    for (const contentId of [...journal.removed].reverse()) {
      const assessment = journal.plan.find((candidate) => candidate.id === contentId);
      const code = journal.codes.get(contentId);
      if (assessment === undefined || code === undefined) {
        failed.push(contentId);
        continue;
      }
      const target = { courseId, contentType: assessment.contentType, lmsAssessmentId: assessment.lmsAssessmentId };
      try {
        await restore(() => writeLmsAccessCode(lms, target, code));
        restored.push(contentId);
      } catch (error) {
        // Deleted in the LMS meanwhile: its code went with it, and nothing is left to restore.
        if (error instanceof LmsNotFoundError) continue;
        // Another grant (or the administrator's next request) may succeed: leave the journal as it is.
        if (error instanceof LmsAuthorizationRequiredError) return 'pending';
        this.deps.logger.warn({ err: error, courseId, contentId }, 'an access code of an interrupted course reset could not be restored');
        failed.push(contentId);
      }
    }
    if (failed.length > 0) return 'pending';
    const pool = await this.deps.orm.em.getConnection().getNativeClient();
    await inTransaction(pool, async (client) => {
      const tx = sqlOnClient(client);
      await markCodesUnknown(tx, courseId, journal.plan.map((assessment) => assessment.id), VERIFICATION_REASONS.resetUndone);
      await deleteJournal(tx, courseId, journal.owner);
      await this.deps.audit.record(
        this.entry(journal, by, 'compensated', { phase: journal.phase, codesRestored: restored.length, startedBy: journal.byLmsUserId }),
        tx,
      );
    });
    return 'compensated';
  }

  private async closeUnrestorable(journal: JournalEntry, by: RecoveryActor, toCheck: readonly string[]): Promise<void> {
    const pool = await this.deps.orm.em.getConnection().getNativeClient();
    await inTransaction(pool, async (client) => {
      const tx = sqlOnClient(client);
      await deleteJournal(tx, journal.courseId, journal.owner);
      await this.deps.audit.record(
        this.entry(journal, by, 'verify-required', { phase: journal.phase, toCheck: toCheck.slice(0, 100), startedBy: journal.byLmsUserId }),
        tx,
      );
    });
    this.deps.logger.error({ courseId: journal.courseId, toCheck }, 'an interrupted course reset could not restore access codes');
  }

  private entry(
    journal: JournalEntry,
    by: RecoveryActor,
    outcome: AuditOutcome,
    details: Record<string, string | number | string[]>,
  ): AuditEntryInput {
    return {
      action: 'course.reset',
      outcome,
      actor: by.actor,
      rootAccountId: journal.accountId,
      courseId: journal.courseId,
      requestId: by.requestId ?? journal.requestId,
      details: { ...details, startedAt: journal.startedAt.toISOString() },
    };
  }
}

async function restore(work: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= RESTORE_ATTEMPTS || error instanceof LmsNotFoundError || error instanceof LmsAuthorizationRequiredError) throw error;
    }
  }
}
