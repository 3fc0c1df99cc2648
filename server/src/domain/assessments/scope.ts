import { contentIdMatchesCourse, isLmsId, normalizeContentId, parseContentId } from '@exb/shared/content-id.js';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { DomainError } from '../../domain-error.js';
import type { CachedAssessment, ContentType } from '../settings/model.js';
import type { SettingsRepository } from '../settings/settings-repository.js';
import type { AssessmentCache } from './assessment-cache.js';

/** An assessment the caller may act on, resolved inside one course. */
export interface AssessmentRef {
  readonly courseId: string;
  readonly contentId: string;
  readonly contentType: ContentType;
  /** The classic quiz id, or the new quiz's assignment id: the id the LMS API addresses. */
  readonly lmsAssessmentId: string;
  /** The cache entry; `null` for an assessment discovery dropped while it still has a stored setting. */
  readonly cached: CachedAssessment | null;
}

export function assessmentNotFound(): DomainError {
  return new DomainError(ErrorCodes.ASSESSMENT_NOT_FOUND, 'No such assessment in this course. Refresh the assessment list and try again.');
}

/**
 * The course a course-scoped request names must be the session's course; the session course comes from the signed
 * launch, the named one from the path, so a mismatch is someone reaching into another course.
 */
export function requireSessionCourse(sessionCourseId: string, requestedCourseId: string): string {
  if (!isLmsId(requestedCourseId) || requestedCourseId !== sessionCourseId) {
    throw new DomainError(ErrorCodes.COURSE_MISMATCH, 'This request names a course other than the one the tool was opened in.');
  }
  return requestedCourseId;
}

/**
 * Resolves an instructor's assessment parameter (content id, or bare classic quiz id) inside the session course. An
 * assessment belongs to the course when discovery found it there, or when the course already holds a setting for it
 * (discovery may have dropped it since; its access code must stay removable). A new quiz id must also embed the course.
 * Anything else is `ASSESSMENT_NOT_FOUND`, whether malformed, unknown or another course's.
 */
export class AssessmentScope {
  constructor(
    private readonly cache: AssessmentCache,
    private readonly settings: SettingsRepository,
  ) {}

  async resolve(courseId: string, assessmentParam: unknown): Promise<AssessmentRef> {
    const contentId = normalizeContentId(assessmentParam);
    if (contentId === null || !contentIdMatchesCourse(contentId, courseId)) throw assessmentNotFound();
    const parsed = parseContentId(contentId);
    if (parsed === null) throw assessmentNotFound();
    const cached = await this.cache.find(courseId, contentId);
    if (cached === null && (await this.settings.loadAssessmentSettings(courseId, contentId)) === null) throw assessmentNotFound();
    return {
      courseId,
      contentId,
      contentType: parsed.kind === 'classic' ? 'CLASSIC_QUIZ' : 'NEW_QUIZ',
      lmsAssessmentId: parsed.kind === 'classic' ? parsed.quizId : parsed.assignmentId,
      cached,
    };
  }
}
