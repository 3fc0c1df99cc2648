import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { releaseLease, tryAcquireLease } from '../../db/leases.js';
import type { LmsApi } from '../../lms/api.js';
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
  readonly lmsFor: (holder: GrantHolder) => LmsApi;
  /** LMS calls per minute over every instance (`ACCESS_CODE_VERIFY_CALLS_PER_MINUTE`); one point per call. */
  readonly callBudget: AdmissionBudget;
  readonly logger: Logger;
  readonly config: VerifierSettings;
}

export interface BatchReport {
  /** `false` when another instance held the batch lease. */
  readonly ran: boolean;
  readonly checked: number;
  readonly unchecked: number;
  /** Left for a later batch because this minute's call budget was spent. */
  readonly deferred: number;
}

/** The batch lease: one instance at a time; outlasts a batch's LMS calls (15 s deadline each, bounded by the budget). */
export const VERIFIER_LEASE = 'access-code-verifier';
const LEASE_TTL_SECONDS = 300;
const BUDGET_KEY = 'lms-calls';

class BudgetSpent extends Error {}

/**
 * Re-checks enforced assessments of published quizzes before students meet them, oldest check first, in bounded
 * batches. Acts with the stored grant of someone who manages the course, so it never waits for a person. Polite to the
 * LMS: a lease row lets one instance run a batch at a time, and every LMS call takes a point of a per-minute budget
 * shared by all instances; a spent budget ends the batch and leaves the rest for the next. An expired grant ends the
 * work on that course cleanly: its assessments are marked `unverified` with the reason, and the next batch tries
 * another manager's grant once the first one is flagged for re-authorization.
 */
export class BackgroundVerifier {
  constructor(private readonly deps: BackgroundVerifierDependencies) {}

  async runBatch(): Promise<BatchReport> {
    const owner = randomUUID();
    if (!(await tryAcquireLease(this.deps.orm, VERIFIER_LEASE, owner, LEASE_TTL_SECONDS))) return { ran: false, checked: 0, unchecked: 0, deferred: 0 };
    try {
      const { batchSize, recheckMinutes } = this.deps.config;
      const due = await this.deps.settings.dueForVerification(batchSize, new Date(Date.now() - recheckMinutes * 60_000));
      return { ran: true, ...(await this.checkAll(due)) };
    } finally {
      await releaseLease(this.deps.orm, VERIFIER_LEASE, owner).catch((error: unknown) =>
        this.deps.logger.warn({ err: error }, 'could not release the verifier lease; it expires on its own'),
      );
    }
  }

  private async checkAll(due: readonly VerificationDue[]) {
    const tally = { checked: 0, unchecked: 0, deferred: 0 };
    const byCourse = new Map<string, VerificationDue[]>();
    for (const item of due) byCourse.set(item.courseId, [...(byCourse.get(item.courseId) ?? []), item]);
    for (const [courseId, items] of byCourse) {
      const outcome = await this.checkCourse(courseId, items, tally);
      if (outcome === 'budget-spent') {
        tally.deferred = due.length - tally.checked - tally.unchecked;
        break;
      }
    }
    return tally;
  }

  private async checkCourse(courseId: string, items: readonly VerificationDue[], tally: { checked: number; unchecked: number }) {
    const holder = await this.deps.holderFor(courseId, items[0]!.verifiedByLmsUserId);
    if (holder === null) {
      for (const item of items) if (await this.markUnchecked(item, VERIFICATION_REASONS.noGrant)) tally.unchecked += 1;
      return 'done';
    }
    const beforeCall = async () => {
      if (!(await this.deps.callBudget.consume(BUDGET_KEY)).allowed) throw new BudgetSpent();
    };
    const reader = new LmsCodeReader(this.deps.lmsFor(holder), courseId, { beforeCall });
    for (const [index, item] of items.entries()) {
      const setting = await this.deps.settings.loadAssessmentSettings(item.courseId, item.contentId);
      if (setting === null || !isEnforced(setting)) continue;
      try {
        await this.deps.verification.verify(setting, reader, holder.lmsUserId);
        tally.checked += 1;
      } catch (error) {
        if (error instanceof BudgetSpent) return 'budget-spent';
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
