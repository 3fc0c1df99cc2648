import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { ServiceActing } from '../../audit/audited.js';
import { leaseNames, withLease } from '../../db/leases.js';
import { StoppableRuns } from '../../db/stoppable-runs.js';
import type { LmsApi } from '../../lms/api.js';
import type { LmsClientSettings } from '../../lms/client.js';
import type { GrantHolder } from '../../lms/connector.js';
import type { AdmissionBudget } from '../../security/admission-budget.js';
import type { AssessmentRef } from '../assessments/scope.js';
import { isEnforced, LmsCodeReader, VERIFICATION_REASONS, type AccessCodeVerification } from '../enforcement/access-code-verification.js';
import { BatchStopped, BudgetSpent, LMS_CALL_BUDGET_KEY } from '../enforcement/background-verifier.js';
import type { EnforcementService } from '../enforcement/enforcement-service.js';
import type { SettingsRepository } from '../settings/settings-repository.js';
import type { SweepDue, SweepOutcome, SweepRecords } from './sweep-records.js';

/** How the trail names the sweep's repairs: the service, for this reason. */
export const SWEEP_ACTOR: ServiceActing = { service: { reason: 'pre-exam sweep' } };

export interface PreExamSweepDependencies {
  readonly orm: MikroORM;
  readonly records: SweepRecords;
  readonly settings: SettingsRepository;
  readonly verification: AccessCodeVerification;
  readonly enforcement: EnforcementService;
  /** Whose stored grant acts for a course: the background verifier's rule (`LmsTokenRepository.courseManagerHolder`). */
  readonly holderFor: (courseId: string, preferredLmsUserId: string | null) => Promise<GrantHolder | null>;
  readonly lmsFor: (holder: GrantHolder, options: Required<Pick<LmsClientSettings, 'beforeAttempt'>>) => LmsApi;
  /** The background verifier's LMS call budget, shared: both together stay within `ACCESS_CODE_VERIFY_CALLS_PER_MINUTE`. */
  readonly callBudget: AdmissionBudget;
  readonly logger: Logger;
  readonly now: () => Date;
  /** Sweeps one run claims, at most. */
  readonly batchSize: number;
  readonly leaseSeconds?: number;
}

export interface SweepReport {
  /** `false` when another instance held the sweep's lease. */
  readonly ran: boolean;
  readonly outcomes: Record<SweepOutcome, number>;
  /** Sweeps given back for a later run (budget spent, stopping). */
  readonly deferred: number;
}

const SWEEP_LEASE_SECONDS = 30;
/** A repair's LMS calls: the write of the code, and the read that confirms it. */
const REPAIR_CALLS = 2;
const emptyOutcomes = (): Record<SweepOutcome, number> => ({ 'in-place': 0, repaired: 0, alerted: 0, 'repair-failed': 0, unchecked: 0 });

/**
 * The pre-exam sweep: an hour before an enforced assessment's LMS unlock or due time, and again ten minutes before
 * it, reads its access code in the LMS. A code the LMS lost (`missing`) or another code set there (`stale`) is a drift:
 * in a course that opted in (`course_sweep_option`) the service puts its own code back through the teacher's repair
 * (`EnforcementService.reapplyBeforeStart`, LMS first, audited with the service as the actor); elsewhere it only
 * alerts. A quiz deleted in the LMS is alerted, never repaired. Every finding is stored for the teacher's view and the
 * administrator's dashboard.
 *
 * Acts with the background verifier's grant rule and call budget, under a lease of its own, and claims each sweep in
 * the database before the LMS is asked, so two instances never sweep (or repair) the same start twice.
 */
export class PreExamSweep {
  private readonly runs = new StoppableRuns<SweepReport>();

  constructor(private readonly deps: PreExamSweepDependencies) {}

  run(): Promise<SweepReport> {
    return this.runs.run({ ran: false, outcomes: emptyOutcomes(), deferred: 0 }, () => this.leased());
  }

  stop(): Promise<void> {
    return this.runs.stop();
  }

  private async leased(): Promise<SweepReport> {
    const lease = { name: leaseNames.preExamSweep, ttlSeconds: this.deps.leaseSeconds ?? SWEEP_LEASE_SECONDS, renewalsPerLifetime: 3, logger: this.deps.logger };
    const outcome = await withLease(this.deps.orm, lease, async (held) => {
      const claimed = await this.deps.records.claim(await this.deps.records.due(this.deps.now(), this.deps.batchSize));
      return this.sweepAll(claimed, () => this.runs.stopped || held.isLost);
    });
    return outcome.held ? outcome.value : { ran: false, outcomes: emptyOutcomes(), deferred: 0 };
  }

  private async sweepAll(claimed: readonly SweepDue[], shouldStop: () => boolean): Promise<SweepReport> {
    const outcomes = emptyOutcomes();
    // One check per assessment, whichever of its starts and stages are due together.
    const byAssessment = new Map<string, SweepDue[]>();
    for (const item of claimed) byAssessment.set(`${item.courseId}|${item.contentId}`, [...(byAssessment.get(`${item.courseId}|${item.contentId}`) ?? []), item]);
    const readers = new Map<string, Acting | null>();
    const groups = [...byAssessment.values()];
    for (const [index, items] of groups.entries()) {
      const first = items[0]!;
      try {
        if (shouldStop()) throw new BatchStopped();
        if (!readers.has(first.courseId)) readers.set(first.courseId, await this.readerFor(first, shouldStop));
        const outcome = await this.sweepOne(first, readers.get(first.courseId) ?? null);
        await this.deps.records.complete(items, outcome.found, outcome.outcome);
        outcomes[outcome.outcome] += 1;
      } catch (error) {
        if (error instanceof BudgetSpent || error instanceof BatchStopped) {
          const rest = groups.slice(index).flat();
          await this.deps.records.release(rest);
          return { ran: true, outcomes, deferred: rest.length };
        }
        this.deps.logger.warn({ err: error, courseId: first.courseId, contentId: first.contentId }, 'pre-exam sweep could not check an assessment');
        await this.deps.records.complete(items, null, 'unchecked');
        outcomes.unchecked += 1;
      }
    }
    return { ran: true, outcomes, deferred: 0 };
  }

  private async readerFor(item: SweepDue, shouldStop: () => boolean) {
    const holder = await this.deps.holderFor(item.courseId, item.verifiedByLmsUserId);
    if (holder === null) return null;
    const beforeAttempt = async () => {
      if (shouldStop()) throw new BatchStopped();
      if (!(await this.deps.callBudget.consume(LMS_CALL_BUDGET_KEY)).allowed) throw new BudgetSpent();
    };
    const lms = this.deps.lmsFor(holder, { beforeAttempt });
    // A repair takes its calls from the budget before it starts (`REPAIR_CALLS`), so a spent budget never cuts one
    // between its LMS write and its read-back; its own calls then only stop for a closing service or a lost lease.
    const repairLms = this.deps.lmsFor(holder, {
      beforeAttempt: async () => {
        if (shouldStop()) throw new BatchStopped();
      },
    });
    return { lms, repairLms, holder, reader: new LmsCodeReader(lms, item.courseId) };
  }

  private async sweepOne(
    item: SweepDue,
    acting: Acting | null,
  ): Promise<{ found: SweepFound; outcome: SweepOutcome }> {
    const setting = await this.deps.settings.loadAssessmentSettings(item.courseId, item.contentId);
    if (setting === null || !isEnforced(setting)) return { found: null, outcome: 'unchecked' };
    if (acting === null) {
      await this.deps.verification.markUnchecked(setting, VERIFICATION_REASONS.noGrant);
      this.deps.logger.warn({ courseId: item.courseId, contentId: item.contentId }, 'pre-exam sweep found no stored grant to check with');
      return { found: null, outcome: 'unchecked' };
    }
    const checked = await this.deps.verification.verify(setting, acting.reader, acting.holder.lmsUserId);
    if (checked.status === 'verified') return { found: 'verified', outcome: 'in-place' };
    if (checked.status === 'unverified') return { found: 'unverified', outcome: 'unchecked' };
    const repairable = checked.reason !== VERIFICATION_REASONS.gone;
    if (!repairable || !(await this.deps.records.autoRepair(item.courseId))) {
      this.deps.logger.warn({ courseId: item.courseId, contentId: item.contentId, found: checked.status }, 'pre-exam sweep found drift; alerted');
      return { found: checked.status, outcome: 'alerted' };
    }
    const ref: AssessmentRef = { courseId: item.courseId, contentId: item.contentId, contentType: item.contentType, lmsAssessmentId: item.lmsAssessmentId, cached: null };
    for (let call = 0; call < REPAIR_CALLS; call += 1) {
      if (!(await this.deps.callBudget.consume(LMS_CALL_BUDGET_KEY)).allowed) throw new BudgetSpent();
    }
    try {
      const repaired = await this.deps.enforcement.reapplyBeforeStart(SWEEP_ACTOR, ref, acting.repairLms, checked.status);
      this.deps.logger.info({ courseId: item.courseId, contentId: item.contentId, found: checked.status }, 'pre-exam sweep repaired drift');
      return { found: checked.status, outcome: repaired.verificationStatus === 'verified' ? 'repaired' : 'repair-failed' };
    } catch (error) {
      if (error instanceof BudgetSpent || error instanceof BatchStopped) throw error;
      this.deps.logger.warn({ err: error, courseId: item.courseId, contentId: item.contentId }, 'pre-exam sweep could not repair drift');
      return { found: checked.status, outcome: 'repair-failed' };
    }
  }
}

type SweepFound = 'verified' | 'missing' | 'stale' | 'unverified' | null;

/** The LMS of a course's stored grant: `lms` and its reader count each call against the budget; `repairLms` does not. */
interface Acting {
  readonly lms: LmsApi;
  readonly repairLms: LmsApi;
  readonly reader: LmsCodeReader;
  readonly holder: GrantHolder;
}
