import type { Logger } from 'pino';
import { EXAM_DAY_SCOPES } from '@exb/shared/oauth-scopes.js';
import { parseContentId } from '@exb/shared/content-id.js';
import { isLmsError, LmsAuthorizationRequiredError, type LmsApi } from '../../lms/index.js';
import { classicQuizAttempts, newQuizAttempts, type AttemptTimes } from './attempts.js';
import { COURSE_WIDE, type ExamDayLmsStore, type LmsReadKind, type ReadOutcome } from './lms-read-store.js';
import { rosterOf } from './roster.js';

/** Each assessment's attempts and each course's roster are read from the LMS at most this often, across all instances. */
export const EXAM_DAY_LMS_READ_INTERVAL_MS = 60_000;

/** A student no roster read has listed for this long leaves the board's roster (`ExamDayLmsStore.writeRoster`). */
export const EXAM_DAY_ROSTER_STALE_MS = 10 * 60_000;


/** A board read waits at most this long for the LMS; the board then shows what was stored before. */
const LMS_READ_DEADLINE_MS = 10_000;

/**
 * Reads the LMS behind an exam-day board on demand, with the grant of whoever reads the board, and stores what it
 * found. A read another board (on any instance) made within the last minute stands: then nothing is asked of the LMS.
 * A failed read never fails the board: its outcome is stored and shown, and the scope a grant lacks is named.
 */
export class ExamDayLmsReader {
  constructor(
    private readonly store: ExamDayLmsStore,
    private readonly clock: () => number,
    private readonly logger?: Logger,
  ) {}

  /** Refreshes the stored attempts of the assessment and the course's roster, where their minute has passed. */
  /** Whether the LMS was asked (either read was due), so what is stored may have changed. */
  async refresh(courseId: string, contentId: string, lms: LmsApi): Promise<boolean> {
    const asked = await Promise.all([
      this.readOnce(courseId, contentId, 'attempts', () => this.readAttempts(courseId, contentId, lms)),
      this.readOnce(courseId, COURSE_WIDE, 'roster', () => this.readRoster(courseId, lms)),
    ]);
    return asked.some(Boolean);
  }

  private async readOnce(courseId: string, contentId: string, kind: LmsReadKind, read: () => Promise<void>): Promise<boolean> {
    const now = new Date(this.clock());
    if (!(await this.store.claim(courseId, contentId, kind, now, EXAM_DAY_LMS_READ_INTERVAL_MS))) return false;
    let outcome: ReadOutcome;
    try {
      await read();
      outcome = { ok: true };
    } catch (error) {
      const failed = failedRead(error, scopeOf(kind, contentId));
      this.logger?.warn({ courseId, contentId, kind, missingScope: failed.missingScope, failure: failed.failure }, 'exam-day LMS read failed');
      outcome = failed;
    }
    await this.store.recordOutcome(courseId, contentId, kind, outcome, now);
    return true;
  }

  private async readAttempts(courseId: string, contentId: string, lms: LmsApi): Promise<void> {
    const content = parseContentId(contentId);
    if (content === null) throw new RangeError('not a canonical content id');
    const options = { deadlineMs: LMS_READ_DEADLINE_MS };
    let attempts: AttemptTimes[];
    if (content.kind === 'classic') {
      attempts = classicQuizAttempts(await lms.listQuizSubmissions(courseId, content.quizId, options));
    } else {
      attempts = newQuizAttempts(await lms.listAssignmentSubmissions(courseId, content.assignmentId, options));
    }
    await this.store.writeAttempts(courseId, contentId, attempts);
  }

  private async readRoster(courseId: string, lms: LmsApi): Promise<void> {
    const roster = rosterOf(await lms.listStudentEnrollments(courseId, { deadlineMs: LMS_READ_DEADLINE_MS }));
    await this.store.writeRoster(courseId, roster, new Date(this.clock()), EXAM_DAY_ROSTER_STALE_MS);
  }
}

/** The scope the LMS call of a read needs. */
function scopeOf(kind: LmsReadKind, contentId: string): string {
  if (kind === 'roster') return EXAM_DAY_SCOPES.enrollments;
  return parseContentId(contentId)?.kind === 'newquiz' ? EXAM_DAY_SCOPES.assignmentSubmissions : EXAM_DAY_SCOPES.quizSubmissions;
}

/** An LMS refusal becomes the read's outcome; anything else is a fault of the service and is not hidden. */
function failedRead(error: unknown, scope: string): Extract<ReadOutcome, { ok: false }> {
  if (error instanceof LmsAuthorizationRequiredError && error.reason === 'insufficient-scope') {
    return { ok: false, missingScope: scope, failure: null };
  }
  if (isLmsError(error)) return { ok: false, missingScope: null, failure: error.code };
  throw error;
}
