import type { Logger } from 'pino';
import { classicQuizContentId, isLmsId, newQuizContentId } from '@exb/shared/content-id.js';
import type { LmsApi } from '../../lms/api.js';
import type { LmsAssignmentDate, LmsQuiz } from '../../lms/schemas.js';
import type { CachedAssessment } from '../settings/model.js';
import type { ManagementLocks } from '../locks.js';
import type { AssessmentCache, DiscoveredAssessment } from './assessment-cache.js';

/**
 * When students can start: the LMS's unlock and due times, as classic quizzes carry them and as a new quiz's assignment
 * does (note §4.10), and those of each override in `all_dates` (a section, a group or some students starting at
 * another time). A time the LMS sends unreadable is kept as unknown rather than guessed; without `all_dates` only the
 * base times are known.
 */
function lmsDates(item: {
  unlockAt: string | null;
  dueAt: string | null;
  allDates: readonly LmsAssignmentDate[] | null;
}): Pick<DiscoveredAssessment, 'unlockAt' | 'dueAt' | 'overrideStarts'> {
  const overrideStarts = (item.allDates ?? [])
    .filter((date) => !date.base)
    .flatMap((date) => [lmsTime(date.unlockAt), lmsTime(date.dueAt)])
    .filter((time): time is Date => time !== null);
  return { unlockAt: lmsTime(item.unlockAt), dueAt: lmsTime(item.dueAt), overrideStarts };
}

function lmsTime(value: string | null): Date | null {
  if (value === null) return null;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? null : time;
}

/** Titles are display text; a longer one is cut rather than stored whole. */
const MAX_TITLE_LENGTH = 500;

/**
 * What runs after discovery, still under the course write lock, with the quiz list just read, in order: the access-code
 * verification of enforced assessments (`domain/enforcement/access-code-verification.ts`) and the search for codes the
 * service does not manage (`domain/enforcement/unmanaged-code.ts`), so every refresh also checks the LMS's codes.
 */
export interface DiscoveryFollowUp {
  verifyCourse(courseId: string, lms: LmsApi, options: { classicQuizzes: readonly LmsQuiz[]; byLmsUserId: string | null }): Promise<void>;
}

/**
 * Reads a course's assessments from the LMS with the caller's grant and replaces the course's cache with them:
 * classic quizzes from the quiz list, new quizzes from the assignment list (only assignments the LMS flags as new
 * quizzes; classic-quiz assignments are already in the quiz list). Runs under the course write lock.
 */
export class AssessmentDiscovery {
  constructor(
    private readonly cache: AssessmentCache,
    private readonly locks: ManagementLocks,
    private readonly logger: Logger,
    private readonly followUps: readonly DiscoveryFollowUp[] = [],
  ) {}

  /** `byLmsUserId`: whose grant `lms` carries, remembered as someone who can check the course's codes later. */
  async refresh(courseId: string, lms: LmsApi, byLmsUserId: string | null = null): Promise<CachedAssessment[]> {
    return this.locks.withCourseWriteLock(courseId, async () => {
      const [quizzes, assignments] = await Promise.all([lms.listQuizzes(courseId), lms.listAssignments(courseId)]);
      const discovered: DiscoveredAssessment[] = [];
      let skipped = 0;
      for (const quiz of quizzes) {
        if (!isLmsId(quiz.id)) {
          skipped += 1;
          continue;
        }
        discovered.push({
          contentId: classicQuizContentId(quiz.id),
          contentType: 'CLASSIC_QUIZ',
          lmsAssessmentId: quiz.id,
          title: quiz.title.slice(0, MAX_TITLE_LENGTH),
          published: quiz.published === true,
          ...lmsDates(quiz),
        });
      }
      for (const assignment of assignments) {
        if (!assignment.isNewQuiz) continue;
        if (!isLmsId(assignment.id) || (assignment.courseId !== null && assignment.courseId !== courseId)) {
          skipped += 1;
          continue;
        }
        discovered.push({
          contentId: newQuizContentId(courseId, assignment.id),
          contentType: 'NEW_QUIZ',
          lmsAssessmentId: assignment.id,
          title: assignment.name.slice(0, MAX_TITLE_LENGTH),
          published: assignment.published === true,
          ...lmsDates(assignment),
        });
      }
      // An id the service cannot address would only produce an assessment nobody can enforce.
      if (skipped > 0) this.logger.warn({ courseId, skipped }, 'discovery skipped LMS assessments without a usable id');
      const cached = await this.cache.replaceCourse(courseId, discovered);
      for (const followUp of this.followUps) await followUp.verifyCourse(courseId, lms, { classicQuizzes: quizzes, byLmsUserId });
      return this.followUps.length === 0 ? cached : this.cache.list(courseId);
    });
  }
}
