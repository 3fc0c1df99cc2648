import type { Logger } from 'pino';
import type { LmsApi } from '../../lms/api.js';
import { LmsInvalidResponseError, LmsNotFoundError, LmsTimeoutError, LmsUnavailableError } from '../../lms/errors.js';
import type { AssessmentRef } from '../assessments/scope.js';
import { DomainError } from '../errors.js';
import type { ManagementLocks } from '../locks.js';
import {
  defaultAssessmentSettings,
  redactAssessmentSettings,
  type AssessmentSettings,
  type CourseDefaults,
  type RedactedAssessmentSettings,
} from '../settings/model.js';
import type { SettingsRepository } from '../settings/settings-repository.js';
import { generateAccessCode } from './access-code.js';
import { writeLmsAccessCode } from './lms-access-code.js';
import { isConfigValid } from './status-view.js';

/** The redacted setting plus whether a configuration can be built for it (an effective exit password exists). */
export interface SettingView extends RedactedAssessmentSettings {
  readonly configValid: boolean;
}

export interface EnforcementDependencies {
  readonly settings: SettingsRepository;
  readonly locks: ManagementLocks;
  readonly logger: Logger;
  /** `EXB_MANAGED_QUIT_PASSWORD`: counts as an effective exit password. */
  readonly managedExitPassword: string | null | undefined;
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
 * Acts with whatever LMS grant `lms` carries; callers decide whose (instructor or administrator).
 */
export class EnforcementService {
  private readonly generateCode: () => string;

  constructor(private readonly deps: EnforcementDependencies) {
    this.generateCode = deps.generateCode ?? generateAccessCode;
  }

  /** Sets an access code in the LMS, then records enforcement as on. Requires an effective exit password. */
  async enable(ref: AssessmentRef, lms: LmsApi): Promise<SettingView> {
    return this.deps.locks.withAssessmentLock(ref.courseId, ref.contentId, async () => {
      const { current, courseDefaults } = await this.load(ref);
      if (!isConfigValid(current, courseDefaults, this.deps.managedExitPassword)) {
        throw new DomainError(
          409,
          'EXB_QUIT_PASSWORD_REQUIRED',
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
      return this.view(saved, courseDefaults);
    });
  }

  /**
   * Removes the access code in the LMS, then records enforcement as off. An assessment the service never enforced is
   * left alone in the LMS, so an access code the instructor set there themselves survives.
   */
  async disable(ref: AssessmentRef, lms: LmsApi): Promise<RedactedAssessmentSettings> {
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

  async setRequired(ref: AssessmentRef, required: boolean, lms: LmsApi): Promise<RedactedAssessmentSettings | SettingView> {
    return required ? this.enable(ref, lms) : this.disable(ref, lms);
  }

  /**
   * Replaces the access code: the LMS gets the new code first, so the old one stops opening the assessment at once;
   * then the new code is stored. Grants and proofs bound to the old code fail from then on, because the quit URL and
   * so the settings fingerprint derive from the stored code.
   */
  async regenerateCode(ref: AssessmentRef, lms: LmsApi): Promise<SettingView> {
    return this.deps.locks.withAssessmentLock(ref.courseId, ref.contentId, async () => {
      const { current, courseDefaults } = await this.load(ref);
      if (!isOn(current) || current.accessCode === null) {
        throw new DomainError(409, 'EXB_NOT_ENABLED', 'The exam browser is not required for this assessment, so it has no access code to replace.');
      }
      let code = this.generateCode();
      while (code === current.accessCode) code = this.generateCode();
      await this.applyInLms(lms, ref, current, code);
      const saved = await this.persistAfterLms(lms, ref, current, { ...current, accessCode: code, verificationStatus: 'verified' });
      return this.view(saved, courseDefaults);
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

/** Failures after which the LMS may or may not have applied the change; refusals (4xx) applied nothing. */
function isOutcomeUnknown(error: unknown): boolean {
  return (
    error instanceof LmsTimeoutError ||
    error instanceof LmsUnavailableError ||
    error instanceof LmsInvalidResponseError ||
    (error instanceof DomainError && error.errorCode === 'LMS_ACCESS_CODE_NOT_APPLIED')
  );
}

function isOn(settings: AssessmentSettings): boolean {
  return settings.exbRequired && settings.enabled;
}
