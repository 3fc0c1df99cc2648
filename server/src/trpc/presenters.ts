import type { VerificationStatus } from '@exb/shared/verification-status.js';
import type { SettingView } from '../domain/enforcement/enforcement-service.js';
import { hasUnmanagedAccessCode } from '../domain/enforcement/unmanaged-code.js';
import type { AssessmentSettings, CachedAssessment, RedactedAssessmentSettings } from '../domain/settings/model.js';

/** How the procedures' answers present the domain's records: the contract's bodies, built in one place each. */

/** Document 2 "Cached assessment". */
export interface CachedAssessmentView {
  id: string;
  title: string;
  courseId: string;
  contentType: CachedAssessment['contentType'];
  published: boolean;
  /**
   * Addition: the LMS has an access code on it that this service does not enforce (a course copy carried it along), so
   * students would wait at a prompt nobody answers. Only whether; never the code.
   */
  unmanagedAccessCode: boolean;
}

export function cachedView(assessment: CachedAssessment, setting: AssessmentSettings | null | undefined): CachedAssessmentView {
  return {
    id: assessment.contentId,
    title: assessment.title,
    courseId: assessment.courseId,
    contentType: assessment.contentType,
    published: assessment.published,
    unmanagedAccessCode: hasUnmanagedAccessCode(assessment, setting),
  };
}

/** The setting an instructor's enabling answers with. */
export function enabledSetting(view: SettingView) {
  return { exbRequired: view.exbRequired, enabled: view.enabled, hasAccessCode: view.hasAccessCode, configValid: view.configValid };
}

/** The setting an instructor's disabling answers with. */
export function disabledSetting(view: RedactedAssessmentSettings) {
  return { exbRequired: view.exbRequired, enabled: view.enabled, hasAccessCode: view.hasAccessCode };
}

/** What a re-apply answers, by what the check right after it found. */
export function repairMessage(status: VerificationStatus): string {
  return status === 'verified'
    ? 'Protection is back in place: the LMS holds the access code again.'
    : 'The access code was sent to the LMS, but the check afterwards did not confirm it. Refresh from the LMS to check again.';
}
