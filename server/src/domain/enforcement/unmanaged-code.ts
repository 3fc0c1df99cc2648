import type { Logger } from 'pino';
import type { LmsApi } from '../../lms/api.js';
import { LmsAuthorizationRequiredError } from '../../lms/errors.js';
import type { LmsQuiz } from '../../lms/schemas.js';
import type { AssessmentCache } from '../assessments/assessment-cache.js';
import type { AssessmentSettings, CachedAssessment } from '../settings/model.js';
import type { SettingsRepository } from '../settings/settings-repository.js';
import { isEnforced, LmsCodeReader } from './access-code-verification.js';

/**
 * Access codes the service does not manage. When the LMS copies a course it copies each quiz's access code along
 * (classic quizzes' `access_code`, New Quizzes' `require_student_access_code`/`student_access_code`); in the new course
 * the service does not enforce those quizzes, so it never releases the code and students wait at a prompt nobody can
 * answer. A code an instructor typed into the LMS by hand looks the same and is shown the same way. Discovery records
 * whether the LMS shows a code; the mark itself is decided against the setting when read, so enabling enforcement (which
 * replaces the code with the service's own) takes the mark away at once.
 */
export function hasUnmanagedAccessCode(cached: Pick<CachedAssessment, 'lmsHasAccessCode'>, setting: AssessmentSettings | null | undefined): boolean {
  return cached.lmsHasAccessCode && !(setting !== null && setting !== undefined && isEnforced(setting));
}

/** Reads the codes of a course's assessments the service does not enforce, after discovery, and records what it saw. */
export class UnmanagedCodeScan {
  constructor(
    private readonly cache: AssessmentCache,
    private readonly settings: SettingsRepository,
    private readonly logger: Logger,
  ) {}

  /**
   * Classic quizzes come from the list discovery just read; new quizzes are read one by one. A read that fails leaves
   * that assessment's last record (an expired grant ends the refresh, as any LMS call does); an LMS that hides codes
   * from this grant shows none, and nothing is marked on a guess.
   */
  async verifyCourse(courseId: string, lms: LmsApi, options: { classicQuizzes?: readonly LmsQuiz[] }): Promise<void> {
    const [cached, stored] = await Promise.all([this.cache.list(courseId), this.settings.listAssessmentSettings(courseId)]);
    const enforced = new Set(stored.filter(isEnforced).map((setting) => setting.contentId));
    const reader = new LmsCodeReader(lms, courseId, options.classicQuizzes === undefined ? {} : { classicQuizzes: options.classicQuizzes });
    const seen = new Map<string, boolean>();
    for (const assessment of cached) {
      if (enforced.has(assessment.contentId)) {
        // The service's own code: never marked, and the record must not mark it after enforcement is switched off.
        seen.set(assessment.contentId, false);
        continue;
      }
      try {
        const observed = await reader.read(assessment);
        seen.set(assessment.contentId, observed.kind === 'code' && observed.code !== null);
      } catch (error) {
        if (error instanceof LmsAuthorizationRequiredError) throw error;
        this.logger.warn({ err: error, courseId, contentId: assessment.contentId }, 'LMS access code of an unenforced assessment could not be read');
      }
    }
    await this.cache.recordLmsAccessCodes(courseId, seen);
  }
}
