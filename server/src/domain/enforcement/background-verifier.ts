import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { leaseNames, withLease } from '../../db/leases.js';
import { StoppableRuns } from '../../db/stoppable-runs.js';
import type { LmsApi } from '../../lms/api.js';
import type { LmsClientSettings } from '../../lms/client.js';
import type { GrantHolder } from '../../lms/connector.js';
import { LmsAuthorizationRequiredError } from '../../lms/errors.js';
import type { AdmissionBudget } from '../../security/admission-budget.js';
import type { SettingsRepository } from '../settings/settings-repository.js';
import type { VerificationDue } from '../settings/verification-records.js';
import { LmsCodeReader, VERIFICATION_REASONS, isEnforced, type AccessCodeVerification } from './access-code-verification.js';

export interface VerifierSettings {
  /** Assessments one batch looks at, at most. */
  readonly batchSize: number;
  /** Minutes after a check before an assessment is due again. */
  readonly recheckMinutes: number;
}

export interface BackgroundVerifierDependencies {
  readonly orm: MikroORM;
  readonly settings: SettingsRepository;
  readonly verification: AccessCodeVerification;
  /** Whose stored grant can check a course (`LmsTokenRepository.courseManagerHolder`). */
  readonly holderFor: (courseId: string, preferredLmsUserId: string | null) => Promise<GrantHolder | null>;
  readonly lmsFor: (holder: GrantHolder, options: Required<Pick<LmsClientSettings, 'beforeAttempt'>>) => LmsApi;
  /**
   * LMS calls per minute over every instance (`ACCESS_CODE_VERIFY_CALLS_PER_MINUTE`); one point per HTTP attempt,
   * so a retry or a page costs as much as a call.
   */
  readonly callBudget: AdmissionBudget;
  readonly logger: Logger;
  readonly config: VerifierSettings;
  /** How long the batch lease lasts unrenewed (default `VERIFIER_LEASE_SECONDS`). */
  readonly leaseSeconds?: number;
}

export interface BatchReport {
  /** `false` when another instance held the batch lease. */
  readonly ran: boolean;
  readonly checked: number;
  readonly unchecked: number;
  /** Left for a later batch because this minute's call budget was spent. */
  readonly deferred: number;
}

/**
 * The batch lease: one instance at a time. It lasts about two of a batch's longest LMS calls (15 s deadline each) and
 * is renewed every third of that while the batch runs, so a holder that dies blocks the others for at most this long,
 * and one that stops releases it at once.
 */
export const VERIFIER_LEASE = leaseNames.verifier;
export const VERIFIER_LEASE_SECONDS = 30;
/** The key of the LMS call budget every background reader of the LMS shares (this verifier, the pre-exam sweep). */
export const LMS_CALL_BUDGET_KEY = 'lms-calls';

/** This minute's share of the call budget is spent: the work ends and the rest waits for a later run. */
export class BudgetSpent extends Error {}
/** The batch stopped between two assessments: the service is closing, or the lease was lost. */
export class BatchStopped extends Error {}

/**
 * Re-checks enforced assessments of published quizzes before students meet them, oldest check first, in bounded
 * batches. Acts with the stored grant of someone who manages the course, so it never waits for a person. Polite to the
 * LMS: a lease row lets one instance run a batch at a time, and every LMS call takes a point of a per-minute budget
 * shared by all instances; a spent budget ends the batch and leaves the rest for the next. An expired grant ends the
 * work on that course cleanly: its assessments are marked `unverified` with the reason, and the next batch tries
 * another manager's grant once the first one is flagged for re-authorization.
 */
export class BackgroundVerifier {
  /** After `stop` the running batch ends after the assessment it is checking, and no new one starts. */
  private readonly runs = new StoppableRuns<BatchReport>();

  constructor(private readonly deps: BackgroundVerifierDependencies) {}

  runBatch(): Promise<BatchReport> {
    return this.runs.run({ ran: false, checked: 0, unchecked: 0, deferred: 0 }, () => this.leasedBatch());
  }

  /** For shutdown: lets the running batch finish the assessment at hand, then it releases the lease. */
  stop(): Promise<void> {
    return this.runs.stop();
  }

  private async leasedBatch(): Promise<BatchReport> {
    const lease = { name: VERIFIER_LEASE, ttlSeconds: this.deps.leaseSeconds ?? VERIFIER_LEASE_SECONDS, renewalsPerLifetime: 3, logger: this.deps.logger };
    const outcome = await withLease(this.deps.orm, lease, async (held) => {
      const { batchSize, recheckMinutes } = this.deps.config;
      const due = await this.deps.settings.dueForVerification(batchSize, new Date(Date.now() - recheckMinutes * 60_000));
      return { ran: true, ...(await this.checkAll(due, () => this.runs.stopped || held.isLost)) };
    });
    return outcome.held ? outcome.value : { ran: false, checked: 0, unchecked: 0, deferred: 0 };
  }

  private async checkAll(due: readonly VerificationDue[], shouldStop: () => boolean) {
    const tally = { checked: 0, unchecked: 0, deferred: 0 };
    const byCourse = new Map<string, VerificationDue[]>();
    for (const item of due) byCourse.set(item.courseId, [...(byCourse.get(item.courseId) ?? []), item]);
    for (const [courseId, items] of byCourse) {
      const outcome = await this.checkCourse(courseId, items, tally, shouldStop);
      if (outcome !== 'done') {
        tally.deferred = due.length - tally.checked - tally.unchecked;
        break;
      }
    }
    return tally;
  }

  private async checkCourse(
    courseId: string,
    items: readonly VerificationDue[],
    tally: { checked: number; unchecked: number },
    shouldStop: () => boolean,
  ): Promise<'done' | 'budget-spent' | 'stopped'> {
    const holder = await this.deps.holderFor(courseId, items[0]!.verifiedByLmsUserId);
    if (holder === null) {
      for (const item of items) if (await this.markUnchecked(item, VERIFICATION_REASONS.noGrant)) tally.unchecked += 1;
      return 'done';
    }
    const beforeAttempt = async () => {
      if (shouldStop()) throw new BatchStopped();
      if (!(await this.deps.callBudget.consume(LMS_CALL_BUDGET_KEY)).allowed) throw new BudgetSpent();
    };
    const reader = new LmsCodeReader(this.deps.lmsFor(holder, { beforeAttempt }), courseId);
    for (const [index, item] of items.entries()) {
      if (shouldStop()) return 'stopped';
      const setting = await this.deps.settings.loadAssessmentSettings(item.courseId, item.contentId);
      if (setting === null || !isEnforced(setting)) continue;
      try {
        await this.deps.verification.verify(setting, reader, holder.lmsUserId);
        tally.checked += 1;
      } catch (error) {
        if (error instanceof BudgetSpent) return 'budget-spent';
        if (error instanceof BatchStopped) return 'stopped';
        if (error instanceof LmsAuthorizationRequiredError) {
          this.deps.logger.info({ courseId, lmsUserId: holder.lmsUserId }, 'verifier stopped on an expired grant');
          for (const rest of items.slice(index)) if (await this.markUnchecked(rest, VERIFICATION_REASONS.grantExpired)) tally.unchecked += 1;
          return 'done';
        }
        this.deps.logger.warn({ err: error, courseId, contentId: item.contentId }, 'verifier could not read the access code');
        // Marked as checked-but-undecided so a persistently failing quiz goes to the back of the queue.
        await this.deps.verification.markUnchecked(setting, VERIFICATION_REASONS.failed);
        tally.unchecked += 1;
      }
    }
    return 'done';
  }

  private async markUnchecked(item: VerificationDue, reason: string): Promise<boolean> {
    const setting = await this.deps.settings.loadAssessmentSettings(item.courseId, item.contentId);
    if (setting === null || !isEnforced(setting)) return false;
    await this.deps.verification.markUnchecked(setting, reason);
    return true;
  }
}
