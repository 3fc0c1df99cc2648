import { NEW_QUIZ_PREFIX, parseContentId } from '@exb/shared/content-id.js';
import type { AssessmentCache } from '../assessments/assessment-cache.js';
import type { CachedAssessment } from '../settings/model.js';
import type { EnforcementFlags, SettingsRepository } from '../settings/settings-repository.js';
import type { EnforcedAssessment, ResetAssessment } from './model.js';
import { isEnforced } from './reset-rules.js';

export interface LocalRecords {
  /** Every assessment of the course with a cached entry or a setting, in content id order. */
  readonly assessments: readonly ResetAssessment[];
  /** The ones the service enforces. */
  readonly enforced: readonly EnforcedAssessment[];
  /**
   * Enforced records whose content id names no LMS assessment of this course (a legacy or damaged record): there is no
   * identifier to remove their codes through.
   */
  readonly unidentified: readonly ResetAssessment[];
}

/**
 * The course's assessments as the service holds them: the discovery cache and the settings' flags. Only whether a code
 * is stored is read, never the sealed code itself, so a reset never opens a secret it does not need (the code that
 * counts is the one the LMS holds, captured by the preflight).
 */
export async function readLocalRecords(
  sources: { readonly assessments: AssessmentCache; readonly settings: SettingsRepository },
  courseId: string,
): Promise<LocalRecords> {
  const [cached, flags] = await Promise.all([sources.assessments.list(courseId), sources.settings.listEnforcementFlags(courseId)]);
  return localRecordsOf(courseId, cached, flags);
}

/**
 * Joins the cache and the settings by content id, in code point order. Identity (kind, LMS id) comes from the
 * canonical content id; a setting whose assessment discovery dropped is named after its id.
 */
export function localRecordsOf(
  courseId: string,
  cached: readonly Pick<CachedAssessment, 'contentId' | 'title'>[],
  flags: readonly EnforcementFlags[],
): LocalRecords {
  const titles = new Map(cached.map((assessment) => [assessment.contentId, assessment.title]));
  const settings = new Map(flags.map((flag) => [flag.contentId, flag]));
  const ids = [...new Set([...titles.keys(), ...settings.keys()])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const assessments: ResetAssessment[] = [];
  const enforced: EnforcedAssessment[] = [];
  const unidentified: ResetAssessment[] = [];
  for (const id of ids) {
    const parsed = parseContentId(id);
    const usable = parsed !== null && (parsed.kind === 'classic' || parsed.courseId === courseId);
    const contentType = id.startsWith(NEW_QUIZ_PREFIX) ? 'NEW_QUIZ' : 'CLASSIC_QUIZ';
    const lmsAssessmentId = parsed === null ? null : parsed.kind === 'classic' ? parsed.quizId : parsed.assignmentId;
    const title = titles.get(id) ?? `${contentType === 'NEW_QUIZ' ? 'New quiz' : 'Quiz'} ${lmsAssessmentId ?? id}`;
    const assessment = { id, title: title.slice(0, 500), contentType } as const;
    assessments.push(assessment);
    const setting = settings.get(id);
    if (setting === undefined || !isEnforced(setting)) continue;
    if (usable && lmsAssessmentId !== null) enforced.push({ ...assessment, lmsAssessmentId });
    else unidentified.push(assessment);
  }
  return { assessments, enforced, unidentified };
}
