import type { Logger } from 'pino';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import type { VerificationStatus } from '@exb/shared/verification-status.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { audited, failedWithCode, type AuditDetails, type AuditedActor, type AuditedBy } from '../../audit/audited.js';
import type { LmsApi } from '../../lms/api.js';
import { LmsNotFoundError } from '../../lms/errors.js';
import type { AssessmentCache } from '../assessments/assessment-cache.js';
import type { AssessmentRef } from '../assessments/scope.js';
import { DomainError } from '../../domain-error.js';
import type { ManagementLocks } from '../locks.js';
import {
  defaultAssessmentSettings,
  redactAssessmentSettings,
  type AssessmentSettings,
  type CourseDefaults,
  type RedactedAssessmentSettings,
} from '../settings/model.js';
import type { SettingsRepository } from '../settings/settings-repository.js';
import { LmsCodeReader, type AccessCodeVerification } from './access-code-verification.js';
import { generateAccessCode } from './code-generator.js';
import { isOutcomeUnknown, writeLmsAccessCode } from './lms-access-code.js';
import { isConfigValid } from './status-view.js';

/** The policy fields an adoption takes over from another assessment. */
export type AdoptedPolicy = Pick<
  AssessmentSettings,
  'usesCourseDefaults' | 'urlRules' | 'externalToolIds' | 'quizOnlyTools' | 'startPasswordOverride' | 'exitPasswordOverride'
>;

/** The redacted setting plus whether a configuration can be built for it (an effective exit password exists). */
export interface SettingView extends RedactedAssessmentSettings {
  readonly configValid: boolean;
}

/** A repaired setting and what the check right after the repair found. */
export interface RepairedView extends SettingView {
  readonly verificationStatus: VerificationStatus;
}

export interface EnforcementDependencies {
  readonly settings: SettingsRepository;
  readonly assessments: AssessmentCache;
  readonly locks: ManagementLocks;
  readonly logger: Logger;
  readonly audit: AuditLog;
  /** `EXB_MANAGED_QUIT_PASSWORD`: counts as an effective exit password. */
  readonly managedExitPassword: string | null | undefined;
  readonly verification: AccessCodeVerification;
  /** Replaces the access-code generator (tests). */
  readonly generateCode?: () => string;
}

/**
 * Turning enforcement on and off and rotating the access code. Each operation is a small workflow under the
 * assessment's operation lock: the LMS is changed first and the local state is written only after the LMS accepted
 * the change, so a failed LMS call leaves the local state as it was. Two cases can leave the LMS ahead of the local
 * state, and both put the LMS back to the code the service last stored (best effort, logged when it fails), so the
 * LMS does not keep a code the service does not know: an LMS call whose outcome is unknown (timeout, dropped
 * connection, server error, unusable answer), and a local write that fails after the LMS changed.
 *
 * Acts with whatever LMS grant `lms` carries; callers decide whose (instructor or administrator). Every attempt is
 * recorded in the audit trail under `by`, refusals and failures too; the access code itself never is.
 */
export class EnforcementService {
  private readonly generateCode: () => string;

  constructor(private readonly deps: EnforcementDependencies) {
    this.generateCode = deps.generateCode ?? generateAccessCode;
  }

  /** Sets an access code in the LMS, then records enforcement as on. Requires an effective exit password. */
  enable(by: AuditedBy, ref: AssessmentRef, lms: LmsApi): Promise<SettingView> {
    return audited(this.deps.audit, by, target('enforcement.enable', ref), () => this.enableLocked(ref, lms));
  }

  /**
   * Enables with `policy` taken over (adopting a copied quiz with its original's settings, `adopt-original.ts`): the
   * policy is checked and written together with enforcement, after the LMS accepted the code, so a refusal or an LMS
   * failure leaves the assessment as it was.
   */
  enableWithPolicy(by: AuditedBy, ref: AssessmentRef, lms: LmsApi, policy: AdoptedPolicy, details: AuditDetails): Promise<SettingView> {
    return audited(this.deps.audit, by, { ...target('enforcement.adopt-original', ref), details }, () => this.enableLocked(ref, lms, policy));
  }

  private async enableLocked(ref: AssessmentRef, lms: LmsApi, policy?: AdoptedPolicy): Promise<SettingView> {
    return this.deps.locks.withAssessmentLock(ref.courseId, ref.contentId, async () => {
      const loaded = await this.load(ref);
      const { courseDefaults } = loaded;
      const current = policy === undefined ? loaded.current : { ...loaded.current, ...policy };
      if (!isConfigValid(current, courseDefaults, this.deps.managedExitPassword)) {
        throw new DomainError(ErrorCodes.EXB_QUIT_PASSWORD_REQUIRED,
          'Set an exit password for this assessment or in the course defaults before requiring the exam browser.',
        );
      }
      // Enabling again keeps the code in use, so configurations students already hold stay valid; writing it to the LMS
      // again repairs a code someone changed there by hand.
      const code = isOn(current) && current.accessCode !== null ? current.accessCode : this.generateCode();
      await this.applyInLms(lms, ref, current, code);
      const saved = await this.persistAfterLms(lms, ref, current, {
        ...current,
        exbRequired: true,
        enabled: true,
        accessCode: code,
        verificationStatus: 'verified',
      });
      await this.recordWritten(saved, lms);
      return this.view(saved, courseDefaults);
    });
  }

  /**
   * Removes the access code in the LMS, then records enforcement as off. An assessment the service never enforced is
   * left alone in the LMS, so an access code the instructor set there themselves survives.
   */
  disable(by: AuditedBy, ref: AssessmentRef, lms: LmsApi): Promise<RedactedAssessmentSettings> {
    return audited(this.deps.audit, by, target('enforcement.disable', ref), () => this.disableLocked(ref, lms));
  }

  private async disableLocked(ref: AssessmentRef, lms: LmsApi): Promise<RedactedAssessmentSettings> {
    return this.deps.locks.withAssessmentLock(ref.courseId, ref.contentId, async () => {
      const { current } = await this.load(ref);
      if (!current.exbRequired && !current.enabled && current.accessCode === null) return redactAssessmentSettings(current);
      try {
        await this.applyInLms(lms, ref, current, null);
      } catch (error) {
        // Deleted in the LMS: no code is left there to remove, and the local state must still be cleared.
        if (!(error instanceof LmsNotFoundError)) throw error;
      }
      const saved = await this.persistAfterLms(lms, ref, current, {
        ...current,
        exbRequired: false,
        enabled: false,
        accessCode: null,
        verificationStatus: 'verified',
      });
      return redactAssessmentSettings(saved);
    });
  }

  async setRequired(by: AuditedBy, ref: AssessmentRef, required: boolean, lms: LmsApi): Promise<RedactedAssessmentSettings | SettingView> {
    return required ? this.enable(by, ref, lms) : this.disable(by, ref, lms);
  }

  /**
   * Replaces the access code: the LMS gets the new code first, so the old one stops opening the assessment at once;
   * then the new code is stored. Grants and proofs bound to the old code fail from then on, because the quit URL and
   * so the settings fingerprint derive from the stored code.
   */
  regenerateCode(by: AuditedBy, ref: AssessmentRef, lms: LmsApi): Promise<SettingView> {
    return audited(this.deps.audit, by, target('enforcement.regenerate-code', ref), () => this.regenerateLocked(ref, lms));
  }

  private async regenerateLocked(ref: AssessmentRef, lms: LmsApi): Promise<SettingView> {
    return this.deps.locks.withAssessmentLock(ref.courseId, ref.contentId, async () => {
      const { current, courseDefaults } = await this.load(ref);
      if (!isOn(current) || current.accessCode === null) {
        throw new DomainError(ErrorCodes.EXB_NOT_ENABLED, 'The exam browser is not required for this assessment, so it has no access code to replace.');
      }
      let code = this.generateCode();
      while (code === current.accessCode) code = this.generateCode();
      await this.applyInLms(lms, ref, current, code);
      const saved = await this.persistAfterLms(lms, ref, current, { ...current, accessCode: code, verificationStatus: 'verified' });
      await this.recordWritten(saved, lms);
      return this.view(saved, courseDefaults);
    });
  }

  /**
   * "Re-apply protection": writes the stored code to the LMS again (a course copy, a manual edit or an LMS-side reset
   * removed or replaced it), by the same LMS-first rules as enabling, then reads it back from the LMS and records the
   * verification. The code students' configurations carry stays the same.
   */
  reapply(by: AuditedBy, ref: AssessmentRef, lms: LmsApi): Promise<RepairedView> {
    return this.repair('enforcement.reapply-protection', by, ref, (byLmsUserId) => this.reapplyLocked(ref, lms, byLmsUserId));
  }

  /**
   * The same re-apply, made by the service before an exam starts (`domain/pre-exam-sweep/`), with the stored grant
   * `lms` carries, entered in the trail under its own action with the service as the actor.
   */
  reapplyBeforeStart(by: AuditedActor, ref: AssessmentRef, lms: LmsApi, found: VerificationStatus): Promise<RepairedView> {
    const byLmsUserId = lms.actingLmsUserId ?? ('principal' in by ? by.principal.lmsUserId : null);
    const details = (repaired: RepairedView) => ({ found, verificationStatus: repaired.verificationStatus });
    return audited(this.deps.audit, by, { ...target('enforcement.pre-exam-repair', ref), details: { found } }, () => this.reapplyLocked(ref, lms, byLmsUserId), details, failedWithCode);
  }

  private async reapplyLocked(ref: AssessmentRef, lms: LmsApi, byLmsUserId: string | null): Promise<RepairedView> {
    return this.deps.locks.withAssessmentLock(ref.courseId, ref.contentId, async () => {
      const { current, courseDefaults } = await this.load(ref);
      const code = requireEnforcedCode(current);
      await this.applyInLms(lms, ref, current, code);
      const saved = await this.persistAfterLms(lms, ref, current, { ...current, verificationStatus: 'verified' });
      const outcome = await this.deps.verification.verify(saved, new LmsCodeReader(lms, ref.courseId), byLmsUserId);
      return { ...this.view(saved, courseDefaults), verificationStatus: outcome.status };
    });
  }

  /**
   * "Accept the LMS's code" for a stale assessment: someone set another code in the LMS on purpose, so the service
   * stores that one and releases it to proven exam browsers from now on. Nothing is written to the LMS; the local change
   * follows a successful read of it. Configurations issued before no longer match (the quit URL derives from the code).
   */
  acceptLmsCode(by: AuditedBy, ref: AssessmentRef, lms: LmsApi): Promise<RepairedView> {
    return this.repair('enforcement.accept-lms-code', by, ref, (byLmsUserId) => this.acceptLmsCodeLocked(ref, lms, byLmsUserId));
  }

  /**
   * A protection repair, acting for `by` and entered in the trail under `action` with what the check after it found
   * (never the code); an attempt that throws is entered as `failed`.
   */
  private repair(action: string, by: AuditedBy, ref: AssessmentRef, work: (byLmsUserId: string) => Promise<RepairedView>): Promise<RepairedView> {
    const details = (repaired: RepairedView) => ({ verificationStatus: repaired.verificationStatus });
    return audited(this.deps.audit, by, target(action, ref), () => work(by.principal.lmsUserId), details, failedWithCode);
  }

  private async acceptLmsCodeLocked(ref: AssessmentRef, lms: LmsApi, byLmsUserId: string): Promise<RepairedView> {
    return this.deps.locks.withAssessmentLock(ref.courseId, ref.contentId, async () => {
      const { current, courseDefaults } = await this.load(ref);
      requireEnforcedCode(current);
      const observed = await new LmsCodeReader(lms, ref.courseId).read(ref);
      if (observed.kind === 'gone') throw new DomainError(ErrorCodes.ASSESSMENT_NOT_IN_LMS, 'The quiz is no longer in the LMS, so it has no code to accept.');
      if (observed.kind === 'hidden') throw new DomainError(ErrorCodes.LMS_ACCESS_CODE_HIDDEN, 'The LMS does not show this quiz’s access code to your account.');
      if (observed.code === null) {
        throw new DomainError(ErrorCodes.LMS_ACCESS_CODE_MISSING, 'The LMS has no access code on this quiz. Re-apply protection instead.');
      }
      const saved =
        observed.code === current.accessCode
          ? current
          : await this.deps.settings.saveAssessmentSettings(ref.courseId, { ...current, accessCode: observed.code, verificationStatus: 'verified' });
      await this.deps.settings.recordVerification(ref.courseId, ref.contentId, saved.version, { status: 'verified', reason: null, byLmsUserId });
      return { ...this.view(saved, courseDefaults), verificationStatus: 'verified' as const };
    });
  }

  /**
   * "Clear the code" of an assessment whose LMS access code the service does not manage (`unmanaged-code.ts`: a course
   * copy carried it along): removes it in the LMS first, so students are no longer stuck at a prompt nobody answers, and
   * only then records that the LMS has no code. An enforced assessment is refused: its code is the service's own, and
   * switching enforcement off is what removes it. Nothing is put back when the outcome is unknown, since the service
   * never knew the code.
   */
  clearUnmanagedCode(by: AuditedBy, ref: AssessmentRef, lms: LmsApi): Promise<{ readonly contentId: string }> {
    return audited(this.deps.audit, by, target('enforcement.clear-lms-code', ref), () => this.clearUnmanagedLocked(ref, lms));
  }

  private async clearUnmanagedLocked(ref: AssessmentRef, lms: LmsApi): Promise<{ readonly contentId: string }> {
    return this.deps.locks.withAssessmentLock(ref.courseId, ref.contentId, async () => {
      const { current } = await this.load(ref);
      if (isOn(current)) {
        throw new DomainError(ErrorCodes.LMS_ACCESS_CODE_MANAGED, 'The exam browser is required for this assessment; its access code is the service’s own.');
      }
      await writeLmsAccessCode(lms, ref, null);
      await this.deps.assessments.recordLmsAccessCodes(ref.courseId, new Map([[ref.contentId, false]]));
      return { contentId: ref.contentId };
    });
  }

  /** The setting as instructors see it; an assessment without a stored setting shows the defaults. */
  async settingView(ref: Pick<AssessmentRef, 'courseId' | 'contentId'>): Promise<SettingView> {
    const { current, courseDefaults } = await this.load(ref);
    return this.view(current, courseDefaults);
  }

  view(settings: AssessmentSettings, courseDefaults: CourseDefaults | null): SettingView {
    return {
      ...redactAssessmentSettings(settings),
      configValid: isConfigValid(settings, courseDefaults, this.deps.managedExitPassword),
    };
  }

  /**
   * The LMS just accepted and showed the code, so the check time and whose grant wrote it are recorded: the background
   * verifier checks the oldest first and acts with that grant.
   */
  private async recordWritten(saved: AssessmentSettings, lms: LmsApi): Promise<void> {
    await this.deps.settings.recordVerification(saved.courseId, saved.contentId, saved.version, {
      status: 'verified',
      reason: null,
      byLmsUserId: lms.actingLmsUserId,
    });
  }

  private async load(ref: Pick<AssessmentRef, 'courseId' | 'contentId'>) {
    const { assessment, courseDefaults } = await this.deps.settings.loadPolicyInputs(ref.courseId, ref.contentId);
    return { current: assessment ?? defaultAssessmentSettings(ref.courseId, ref.contentId), courseDefaults };
  }

  private async applyInLms(lms: LmsApi, ref: AssessmentRef, before: AssessmentSettings, code: string | null): Promise<void> {
    try {
      await writeLmsAccessCode(lms, ref, code);
    } catch (error) {
      if (isOutcomeUnknown(error)) await this.restoreLms(lms, ref, before, 'LMS call outcome unknown');
      throw error;
    }
  }

  private async restoreLms(lms: LmsApi, ref: AssessmentRef, before: AssessmentSettings, reason: string): Promise<void> {
    const where = { courseId: ref.courseId, contentId: ref.contentId, reason };
    try {
      await writeLmsAccessCode(lms, ref, before.accessCode);
      this.deps.logger.warn(where, 'LMS access code put back to the stored state');
    } catch (compensation) {
      this.deps.logger.error({ ...where, err: compensation }, 'LMS access code could not be put back; verify the assessment in the LMS');
    }
  }

  private async persistAfterLms(
    lms: LmsApi,
    ref: AssessmentRef,
    before: AssessmentSettings,
    next: Omit<AssessmentSettings, 'updatedAt'>,
  ): Promise<AssessmentSettings> {
    try {
      return await this.deps.settings.saveAssessmentSettings(ref.courseId, next);
    } catch (error) {
      await this.restoreLms(lms, ref, before, 'local save failed');
      throw error;
    }
  }
}

/** Repairs act on enforced assessments only; the stored code is what they put back. */
function requireEnforcedCode(settings: AssessmentSettings): string {
  if (!isOn(settings) || settings.accessCode === null) {
    throw new DomainError(ErrorCodes.EXB_NOT_ENABLED, 'The exam browser is not required for this assessment, so there is no protection to repair.');
  }
  return settings.accessCode;
}

function target(action: string, ref: AssessmentRef) {
  return { action, courseId: ref.courseId, contentId: ref.contentId };
}

function isOn(settings: AssessmentSettings): boolean {
  return settings.exbRequired && settings.enabled;
}
