import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { auditActor, type AuditLog } from '../../audit/audit-log.js';
import { inTransaction, sqlOnClient } from '../../db/pg-transaction.js';
import type { LmsApi } from '../../lms/api.js';
import { LmsError, LmsNotFoundError } from '../../lms/errors.js';
import type { CourseConnections } from '../connected-courses/course-connections.js';
import type { AssessmentCache } from '../assessments/assessment-cache.js';
import { courseNotConnected } from '../connected-courses/errors.js';
import { VERIFICATION_REASONS } from '../enforcement/access-code-verification.js';
import { isOutcomeUnknown, writeLmsAccessCode } from '../enforcement/lms-access-code.js';
import { markCodesUnknown } from '../settings/verification-records.js';
import { DomainError } from '../../domain-error.js';
import type { KnownErrorOptions } from '../known-errors.js';
import { courseResetInProgressError } from '../locks.js';
import type { Principal } from '../../identity/principal.js';
import type { SettingsRepository } from '../settings/settings-repository.js';
import { runSaga, type FailureKind, type SagaResult, type SagaStep } from '../workflow/saga.js';
import { decideFromReceipt, type DecisionOptions } from './commit-decision.js';
import { readLocalRecords } from './local-records.js';
import { commitLocalReset, LocalResetError } from './local-reset.js';
import type { CapturedAssessment, ResetPlan, ResetPreview, ResetReceipt, ResetSuccess } from './model.js';
import { preflight } from './preflight.js';
import { NO_PRESET_ASSIGNMENTS, type PresetAssignmentCleanup } from './preset-assignments.js';
import { ResetAudit } from './reset-audit.js';
import { deleteJournal, type ResetJournal } from './reset-journal.js';
import type { ResetRecovery } from './reset-recovery.js';
import { heldCourseLocks, ResetLeaseLostError, RESET_LEASE_TTL_SECONDS, withResetLease, type ResetLease } from './reset-lease.js';
import * as refusals from './reset-refusals.js';
import { isConfirmed, named, previewOf, removals } from './reset-rules.js';

/**
 * The administrator's course reset (Document 2, "Course reset"), as a workflow to be read from top to bottom:
 *
 * 1. Confirmation: `confirmation` equals the course id, before any LMS call (`requireConfirmation`).
 * 2. Lock: the course-reset lease, which instructor mutations check; renewed before every step. A reset already running
 *    answers `COURSE_RESET_IN_PROGRESS`; an assessment operation (or course write) in flight, `..._ASSESSMENT_BUSY`.
 * 3. Preflight, read-only: discovery and the exact current access code of every enforced assessment. Then, in one
 *    transaction, the journal (`reset-journal.ts`: the plan and the captured codes, sealed), the `started` audit entry,
 *    and the planned assessments' verification marked unknown. A journal a dead reset left behind is settled first
 *    (`reset-recovery.ts`).
 * 4. LMS phase: one step per code, journaled before the LMS is asked, removing it with the administrator's grant; its
 *    compensation puts the captured code back.
 * 5. Local phase: one transaction deletes the course's records, stores the receipt and advances the reset generation.
 *    An ambiguous commit is settled from the receipt (kept, or compensated like a failure).
 * 6. Compensation: any failure in 4 or 5 undoes the completed LMS steps in reverse order; a failed restore names the
 *    assessments to check (`..._ROLLBACK_VERIFY_REQUIRED`). A lost lease or an unreadable receipt stops without
 *    touching anything more (`..._VERIFY_REQUIRED`).
 * Every attempt lands in the audit trail with its outcome.
 */

type AdminPrincipal = Extract<Principal, { kind: 'admin' }>;

export interface CourseResetDependencies {
  readonly orm: MikroORM;
  readonly connections: CourseConnections;
  readonly assessments: AssessmentCache;
  readonly settings: SettingsRepository;
  readonly audit: AuditLog;
  readonly logger: Logger;
  readonly presetAssignments?: PresetAssignmentCleanup;
  readonly leaseTtlSeconds?: number;
  readonly commitDecision?: DecisionOptions;
  readonly journal: ResetJournal;
  /** Settles a journal a reset whose process died left behind. */
  readonly recovery: ResetRecovery;
  /**
   * Runs at each point a process could die between two durable acts: `before:{step}` (the lease renewed),
   * `lms:{contentId}` (the removal journaled, the LMS not yet asked) and `restore:{contentId}` (a compensation about to
   * write). Tests stop a reset there for good, as a crash would.
   */
  readonly checkpoint?: (point: string) => Promise<void>;
}

export interface ResetRequest {
  readonly principal: AdminPrincipal;
  readonly courseId: string;
  readonly lms: LmsApi;
  readonly requestId: string | null;
  /** How LMS refusals are worded (where the administrator authorizes again). */
  readonly refusalOptions: KnownErrorOptions;
}

/** Attempts of each compensating write before its assessment is reported for checking. */
export const COMPENSATION_ATTEMPTS = 2;
const LOCAL_STEP = 'local-phase';

/** The connection was lost at `COMMIT` and the receipt could not be read: nobody can tell whether the reset happened. */
class CommitUnknownError extends Error {}

export class CourseResetWorkflow {
  constructor(private readonly deps: CourseResetDependencies) {}

  /** Step 1, apart so the procedure can run it before anything that may reach the LMS. */
  async requireConfirmation(request: Omit<ResetRequest, 'lms' | 'refusalOptions'>, confirmation: unknown): Promise<void> {
    if (isConfirmed(confirmation, request.courseId)) return;
    await this.auditOf(request).record('refused', { errorCode: ErrorCodes.ADMIN_COURSE_RESET_CONFIRMATION_REQUIRED });
    throw refusals.confirmationRequired();
  }

  /** What a reset would change, for the dialog: the preflight alone, without the lock. */
  async preview(accountId: string, courseId: string, lms: LmsApi): Promise<ResetPreview> {
    if ((await this.deps.connections.find(accountId, courseId)) === null) throw courseNotConnected();
    return previewOf(await preflight(courseId, accountId, await readLocalRecords(this.deps, courseId), lms));
  }

  async reset(request: ResetRequest): Promise<ResetSuccess> {
    const audit = this.auditOf(request);
    return this.lockedCourse(request, audit, async (lease) => {
      await this.settleInterrupted(request, lease, audit);
      const plan = await this.busyCheckAndPreflight(request, lease, audit);
      return this.changeCourse(request, plan, lease, audit);
    });
  }

  /** Steps 2 (second half) and 3: nothing has changed yet, so any failure is a refusal with nothing deleted. */
  private async busyCheckAndPreflight(request: ResetRequest, lease: ResetLease, audit: ResetAudit): Promise<ResetPlan> {
    try {
      await this.refuseIfBusy(request.courseId);
      const local = await readLocalRecords(this.deps, request.courseId);
      const plan = await preflight(request.courseId, request.principal.accountId, local, request.lms);
      await this.begin(request, plan, lease, audit);
      return plan;
    } catch (error) {
      await audit.record(error instanceof DomainError || error instanceof LmsError ? 'refused' : 'failed', { errorCode: codeOf(error, request) });
      throw refusals.refusedBecause(error, request.refusalOptions);
    }
  }

  /**
   * The last act before the first change: the journal, the `started` entry, and the planned assessments' verification
   * marked unknown (their codes are about to go, and until the reset ends nobody knows which are still there).
   */
  private async begin(request: ResetRequest, plan: ResetPlan, lease: ResetLease, audit: ResetAudit): Promise<void> {
    const toRemove = removals(plan);
    const pool = await this.deps.orm.em.getConnection().getNativeClient();
    await inTransaction(pool, async (client) => {
      const tx = sqlOnClient(client);
      await this.deps.journal.begin(tx, {
        courseId: request.courseId,
        accountId: request.principal.accountId,
        owner: lease.owner,
        byLmsUserId: request.principal.lmsUserId,
        actorName: request.principal.name ?? null,
        requestId: request.requestId,
        plan: toRemove.map((assessment) => ({ ...assessment, code: assessment.code! })),
      });
      await markCodesUnknown(tx, request.courseId, toRemove.map((assessment) => assessment.id), VERIFICATION_REASONS.resetRunning);
      await audit.record('started', { codesRemoved: toRemove.length, assessmentsCleared: plan.assessments.length }, tx);
    });
  }

  /**
   * A journal found under a lease just taken belongs to a reset whose process died: it is finished or undone first, with
   * this administrator's grant. One that cannot be settled yet stops this reset before it changes anything.
   */
  private async settleInterrupted(request: ResetRequest, lease: ResetLease, audit: ResetAudit): Promise<void> {
    let outcome;
    try {
      outcome = await this.deps.recovery.settle(request.courseId, lease, async () => request.lms, {
        actor: auditActor(request.principal),
        requestId: request.requestId,
      });
    } catch (error) {
      await audit.record('failed', { errorCode: codeOf(error, request), failedStep: 'recovery' });
      throw refusals.refusedBecause(error, request.refusalOptions);
    }
    if (outcome !== 'pending') return;
    await audit.record('refused', { errorCode: ErrorCodes.ADMIN_COURSE_RESET_VERIFY_REQUIRED, failedStep: 'recovery' });
    throw refusals.verifyRequired('interrupted', []);
  }

  /** Phases 4 to 6 under the lease: the saga of code removals and the local transaction. */
  private async changeCourse(request: ResetRequest, plan: ResetPlan, lease: ResetLease, audit: ResetAudit): Promise<ResetSuccess> {
    const removed: CapturedAssessment[] = [];
    let receipt: ResetReceipt | undefined;
    const steps: SagaStep[] = [
      ...removals(plan).map((assessment) => this.removalStep(request, assessment, removed, lease)),
      {
        name: LOCAL_STEP,
        run: async () => {
          // From here a journal left behind means every code is gone and the transaction did not commit: finish it.
          await this.deps.journal.enter(request.courseId, lease.owner, 'local');
          receipt = await this.commitOrDecide(request, lease, removed, audit);
        },
      },
    ];
    const before = async (step: SagaStep) => {
      await lease.assertHeld();
      await this.deps.checkpoint?.(`before:${step.name}`);
    };
    const result = await runSaga(steps, { before, classify });
    if (!result.ok) return this.stopped(result, { request, plan, removed, audit, lease });
    if (receipt === undefined) throw new Error('the local phase completed without a receipt');
    return {
      success: true,
      courseId: plan.courseId,
      assessmentsCleared: receipt.assessmentsCleared,
      accessCodesRemoved: receipt.accessCodesRemoved,
      receipt: { id: receipt.receiptId, resetAt: receipt.resetAt },
    };
  }

  /**
   * Phase 6's answer: halted (lost lease, unreadable receipt: the codes removed so far are to be checked), compensated
   * with a restore that failed (those are to be checked), or rolled back with nothing lost.
   */
  private async stopped(
    result: Extract<SagaResult, { ok: false }>,
    context: { request: ResetRequest; plan: ResetPlan; removed: readonly CapturedAssessment[]; audit: ResetAudit; lease: ResetLease },
  ): Promise<never> {
    const { request, plan, removed, audit, lease } = context;
    const cause = result.error instanceof LocalResetError ? result.error.cause : result.error;
    const failedStep = result.failedStep;
    if (result.kind === 'halt') {
      // The journal stays: once the lease is free, the recovery settles from it what this process could not.
      const toCheck = removed.map(named);
      await audit.record('verify-required', { failedStep, toCheck: toCheck.map((a) => a.id), codesRemoved: removed.length });
      throw refusals.verifyRequired(cause instanceof ResetLeaseLostError ? 'lease-lost' : 'commit-unknown', toCheck);
    }
    const unrestored = result.compensations
      .filter((report) => !report.ok)
      .map((report) => plan.enforced.find((assessment) => assessment.id === report.step)!);
    await this.closeJournal(request.courseId, lease, removals(plan), unrestored);
    if (unrestored.length > 0) {
      const toCheck = unrestored.map((assessment) => assessment.id);
      this.deps.logger.error({ courseId: plan.courseId, toCheck }, 'course reset could not restore access codes');
      await audit.record('verify-required', { failedStep, errorCode: codeOf(cause, request), toCheck });
      throw refusals.rollbackVerifyRequired(unrestored.map(named));
    }
    this.deps.logger.warn({ courseId: plan.courseId, failedStep, err: cause }, 'course reset rolled back');
    await audit.record('rolled-back', { failedStep, errorCode: codeOf(cause, request) });
    throw refusals.rolledBackBecause(cause, request.refusalOptions);
  }

  /**
   * After the saga undid what it could: the journal goes (the answer names what is left to check), and the planned
   * codes' verification says they were put back and are checked again, or, for the ones that could not be, that a
   * person must look. A failure here is logged: the answer stands, and a journal left over is settled by the recovery
   * (putting back codes that are already back changes nothing).
   */
  private async closeJournal(
    courseId: string,
    lease: ResetLease,
    planned: readonly CapturedAssessment[],
    unrestored: readonly CapturedAssessment[],
  ): Promise<void> {
    const restored = planned.filter((assessment) => !unrestored.includes(assessment));
    try {
      const pool = await this.deps.orm.em.getConnection().getNativeClient();
      await inTransaction(pool, async (client) => {
        const tx = sqlOnClient(client);
        await markCodesUnknown(tx, courseId, restored.map((assessment) => assessment.id), VERIFICATION_REASONS.resetUndone);
        await markCodesUnknown(tx, courseId, unrestored.map((assessment) => assessment.id), VERIFICATION_REASONS.resetNotRestored);
        await deleteJournal(tx, courseId, lease.owner);
      });
    } catch (error) {
      this.deps.logger.warn({ err: error, courseId }, 'the journal of a rolled-back course reset could not be closed; the recovery settles it');
    }
  }

  /** Phase 4, one assessment: remove its code; the compensation writes the captured code back, exactly. */
  private removalStep(request: ResetRequest, assessment: CapturedAssessment, removed: CapturedAssessment[], lease: ResetLease): SagaStep {
    const target = { courseId: request.courseId, contentType: assessment.contentType, lmsAssessmentId: assessment.lmsAssessmentId };
    let gone = false;
    return {
      name: assessment.id,
      run: async () => {
        // Journaled before the LMS is asked: a process that dies during the call leaves this code to be put back.
        await this.deps.journal.removing(request.courseId, lease.owner, assessment.id);
        await this.deps.checkpoint?.(`lms:${assessment.id}`);
        try {
          await writeLmsAccessCode(request.lms, target, null);
          removed.push(assessment);
        } catch (error) {
          // Deleted in the LMS since the preflight: its code went with it, and there is nothing to restore.
          if (!(error instanceof LmsNotFoundError)) throw error;
          gone = true;
        }
      },
      compensate: async () => {
        if (gone) return;
        // A process that dies while undoing must be undone further by the recovery, never finished.
        await this.deps.journal.enter(request.courseId, lease.owner, 'compensating').catch((error: unknown) =>
          this.deps.logger.warn({ err: error, courseId: request.courseId }, 'the course reset journal could not record its compensation'),
        );
        await this.deps.checkpoint?.(`restore:${assessment.id}`);
        await attempts(COMPENSATION_ATTEMPTS, () => writeLmsAccessCode(request.lms, target, assessment.code));
        const index = removed.indexOf(assessment);
        if (index >= 0) removed.splice(index, 1);
      },
    };
  }

  /** Phase 5, with an ambiguous commit settled from the receipt: kept (success), not committed (compensate), or unknown. */
  private async commitOrDecide(request: ResetRequest, lease: ResetLease, removed: readonly CapturedAssessment[], audit: ResetAudit): Promise<ResetReceipt> {
    const receiptId = randomUUID();
    try {
      return await commitLocalReset(this.deps.orm, {
        courseId: request.courseId,
        accountId: request.principal.accountId,
        receiptId,
        byLmsUserId: request.principal.lmsUserId,
        removedCodeIds: removed.map((assessment) => assessment.id),
        lease,
        presetAssignments: this.deps.presetAssignments ?? NO_PRESET_ASSIGNMENTS,
        recordSuccess: (tx, receipt) =>
          audit.record(
            'success',
            { assessmentsCleared: receipt.assessmentsCleared, codesRemoved: receipt.accessCodesRemoved, receiptId: receipt.receiptId },
            tx,
          ),
      });
    } catch (error) {
      if (!(error instanceof LocalResetError) || error.kind !== 'ambiguous') throw error;
      const subject = { backend: error.backend, courseId: request.courseId, receiptId };
      const decision = await decideFromReceipt(this.deps, subject, this.deps.commitDecision);
      this.deps.logger.warn({ courseId: request.courseId, decision: decision.kind }, 'course reset commit was ambiguous; decided from the receipt');
      if (decision.kind === 'committed') return decision.receipt;
      if (decision.kind === 'not-committed') throw new LocalResetError('definite', error.backend, error.cause);
      throw new CommitUnknownError('the reset receipt could not be read', { cause: decision.error });
    }
  }

  /** Step 2: `work` under the lease, or `COURSE_RESET_IN_PROGRESS`; only a connected course of the account is reset. */
  private async lockedCourse<T>(request: ResetRequest, audit: ResetAudit, work: (lease: ResetLease) => Promise<T>): Promise<T> {
    const refuse = async (error: DomainError): Promise<never> => {
      await audit.record('refused', { errorCode: error.errorCode });
      throw error;
    };
    if ((await this.deps.connections.find(request.principal.accountId, request.courseId)) === null) return refuse(courseNotConnected());
    const ttlSeconds = this.deps.leaseTtlSeconds ?? RESET_LEASE_TTL_SECONDS;
    const outcome = await withResetLease(this.deps.orm, this.deps.logger, request.courseId, ttlSeconds, work);
    return outcome.held ? outcome.value : refuse(courseResetInProgressError());
  }

  /**
   * Step 2, second half. The lease (the marker) is set before the other locks are looked at, and every mutation takes
   * its lock before it checks the marker: so either this sees the mutation's lock and stops, or the mutation sees the
   * marker and stops, never neither.
   */
  private async refuseIfBusy(courseId: string): Promise<void> {
    const held = await heldCourseLocks(this.deps.orm, courseId);
    if (held.assessment) throw refusals.assessmentBusy();
    if (held.courseWrite) throw refusals.courseWriteBusy();
  }

  private auditOf(request: Pick<ResetRequest, 'principal' | 'courseId' | 'requestId'>): ResetAudit {
    return new ResetAudit(this.deps.audit, this.deps.logger, request);
  }
}

/** How a failed step is read (see `runSaga`). */
function classify(step: SagaStep, error: unknown): FailureKind {
  if (error instanceof ResetLeaseLostError || error instanceof CommitUnknownError) return 'halt';
  // The local phase's definite failures rolled back on their own.
  if (step.name === LOCAL_STEP) return 'not-applied';
  // An LMS refusal applied nothing; anything else (an unknown outcome, or a failure of ours) may have, and is undone.
  return error instanceof LmsError && !isOutcomeUnknown(error) ? 'not-applied' : 'maybe-applied';
}

async function attempts(count: number, work: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= count) throw error;
    }
  }
}

function codeOf(error: unknown, request: Pick<ResetRequest, 'refusalOptions'>): string {
  const refused = refusals.refusedBecause(error, request.refusalOptions);
  return refused instanceof DomainError ? refused.errorCode : ErrorCodes.INTERNAL_ERROR;
}
