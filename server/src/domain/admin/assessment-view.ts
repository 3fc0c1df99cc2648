import { parseContentId } from '@exb/shared/content-id.js';
import type { ExternalToolConfig } from '@exb/shared/exb-policy.js';
import type { VerificationStatus } from '@exb/shared/verification-status.js';
import { hasUnmanagedAccessCode } from '../enforcement/unmanaged-code.js';
import { resolveExitPassword, resolveStartPassword } from '../settings/effective-settings.js';
import {
  defaultAssessmentSettings,
  type AssessmentSettings,
  type CachedAssessment,
  type ContentType,
  type CourseDefaults,
} from '../settings/model.js';

/** Document 2 "Assessment view (administrator lists)", plus whether discovery still finds the assessment in the LMS. */
export interface AdminAssessmentView {
  readonly id: string;
  readonly courseId: string;
  readonly contentType: ContentType;
  readonly title: string;
  readonly published: boolean;
  readonly exbRequired: boolean;
  readonly enabled: boolean;
  readonly hasAccessCode: boolean;
  readonly hasStartPassword: boolean;
  readonly hasQuitPassword: boolean;
  readonly usesCourseDefaults: boolean;
  readonly verificationStatus: VerificationStatus;
  /** Addition: why the last LMS check did not confirm the code (its English sentence), so the dashboard can explain it. */
  readonly verificationReason: string | null;
  readonly updatedAt: string | null;
  /** `false` for an assessment discovery no longer lists whose setting is kept (its access code stays removable). */
  readonly discovered: boolean;
  /** Addition: the LMS has an access code on it that the service does not enforce (`enforcement/unmanaged-code.ts`). */
  readonly unmanagedAccessCode: boolean;
}

/**
 * The administrator's view of one assessment: the cache entry (when discovery lists it) and the setting (when one was
 * saved), with the passwords reduced to whether an effective one exists, by the same resolution the configuration uses.
 */
export function adminAssessmentView(
  courseId: string,
  contentId: string,
  cached: CachedAssessment | null,
  stored: AssessmentSettings | null,
  courseDefaults: CourseDefaults | null,
  managedExitPassword: string | null | undefined,
  verificationReason: string | null = null,
): AdminAssessmentView {
  const setting = stored ?? defaultAssessmentSettings(courseId, contentId);
  const parsed = parseContentId(contentId);
  return {
    id: contentId,
    courseId,
    contentType: cached?.contentType ?? (parsed?.kind === 'newquiz' ? 'NEW_QUIZ' : 'CLASSIC_QUIZ'),
    title: cached?.title ?? contentId,
    published: cached?.published ?? false,
    exbRequired: setting.exbRequired,
    enabled: setting.enabled,
    hasAccessCode: setting.accessCode !== null,
    hasStartPassword: resolveStartPassword(setting, courseDefaults).source !== 'none',
    hasQuitPassword: resolveExitPassword(setting, courseDefaults, managedExitPassword).source !== 'none',
    usesCourseDefaults: setting.usesCourseDefaults,
    verificationStatus: setting.verificationStatus,
    verificationReason: setting.verificationStatus === 'verified' ? null : verificationReason,
    updatedAt: setting.updatedAt === null ? null : setting.updatedAt.toISOString(),
    discovered: cached !== null,
    unmanagedAccessCode: cached !== null && hasUnmanagedAccessCode(cached, stored),
  };
}

/** Every assessment of a course: the cached ones in their order, then settings whose assessment discovery dropped. */
export function adminAssessmentViews(
  courseId: string,
  cached: readonly CachedAssessment[],
  settings: readonly AssessmentSettings[],
  courseDefaults: CourseDefaults | null,
  managedExitPassword: string | null | undefined,
  verifications: ReadonlyMap<string, { readonly reason: string | null }> = new Map(),
): AdminAssessmentView[] {
  const byId = new Map(settings.map((setting) => [setting.contentId, setting]));
  const views = cached.map((assessment) =>
    adminAssessmentView(
      courseId,
      assessment.contentId,
      assessment,
      byId.get(assessment.contentId) ?? null,
      courseDefaults,
      managedExitPassword,
      verifications.get(assessment.contentId)?.reason ?? null,
    ),
  );
  const listed = new Set(cached.map((assessment) => assessment.contentId));
  for (const setting of settings) {
    if (!listed.has(setting.contentId)) views.push(
        adminAssessmentView(courseId, setting.contentId, null, setting, courseDefaults, managedExitPassword, verifications.get(setting.contentId)?.reason ?? null),
      );
  }
  return views;
}

/** The school tool presets a course's catalog carries (school-managed tools keep the preset they came from). */
export function presetIdsOf(tools: readonly ExternalToolConfig[]): string[] {
  const ids = tools.flatMap((tool) => (tool.managedByAdmin && typeof tool.presetId === 'string' ? [tool.presetId] : []));
  return [...new Set(ids)];
}
