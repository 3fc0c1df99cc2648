import type { Logger } from 'pino';
import type { LmsApi } from '../../lms/api.js';
import { LmsAuthorizationRequiredError, LmsNotFoundError } from '../../lms/errors.js';
import type { LmsQuiz } from '../../lms/schemas.js';
import type { AssessmentSettings, ContentType } from '../settings/model.js';
import type { SettingsRepository } from '../settings/settings-repository.js';
import type { VerificationOutcome } from '../settings/verification-records.js';

/**
 * Whether the LMS really holds the access code the service stores. The service releases its stored code to proven
 * exam browsers and answers "required" from its own state, so a code that went missing in the LMS (a course copy, a
 * manual edit, an LMS-side reset) would leave a quiz that ordinary browsers open while every view says "protected".
 * Every LMS read of an enforced assessment therefore compares, and the result is stored where people look.
 */

/** What the LMS shows of one assessment's access code. */
export type LmsCodeObservation =
  | { readonly kind: 'code'; readonly code: string | null }
  /** The assessment is no longer in the LMS. */
  | { readonly kind: 'gone' }
  /** The LMS does not show codes to this grant (the user may not grade the quiz). */
  | { readonly kind: 'hidden' };

export interface CodeTarget {
  readonly courseId: string;
  readonly contentType: ContentType;
  readonly lmsAssessmentId: string;
}

export const VERIFICATION_REASONS = {
  missing: 'The LMS has no access code on this quiz, so any browser can open it.',
  otherCode: 'The LMS has another access code than the one the service gives to exam browsers.',
  gone: 'The quiz is no longer in the LMS.',
  hidden: 'The LMS did not show the access code to the account used for the check.',
  grantExpired: 'The LMS authorization used for checking has expired; open the tool and connect the LMS account again.',
  noGrant: 'No stored LMS authorization of someone who manages this course could check it.',
  failed: 'The last check could not reach the LMS; it is tried again later.',
  resetRunning: 'A course reset is removing this access code in the LMS; whether it is still there is not known until the reset has ended.',
  resetUndone: 'A course reset was undone and this access code put back in the LMS; the next check confirms it.',
  resetNotRestored: 'A course reset could not put this access code back in the LMS; check the quiz there and require the exam browser again.',
} as const;

/** The one rule comparing the stored code with the LMS's. */
export function compareAccessCode(stored: string | null, observed: LmsCodeObservation): Pick<VerificationOutcome, 'status' | 'reason'> {
  if (observed.kind === 'gone') return { status: 'stale', reason: VERIFICATION_REASONS.gone };
  if (observed.kind === 'hidden') return { status: 'unverified', reason: VERIFICATION_REASONS.hidden };
  if (observed.code === null) return { status: 'missing', reason: VERIFICATION_REASONS.missing };
  if (observed.code === stored) return { status: 'verified', reason: null };
  return { status: 'stale', reason: VERIFICATION_REASONS.otherCode };
}

/**
 * Reads access codes of one course's assessments. Classic quizzes come from the course's quiz list (the scope every
 * grant has, and one call for all of them), fetched once or handed over by discovery, which just read it; new quizzes
 * are read one by one.
 */
export class LmsCodeReader {
  private classic: Map<string, LmsQuiz> | null;

  constructor(
    private readonly lms: LmsApi,
    private readonly courseId: string,
    options: { classicQuizzes?: readonly LmsQuiz[] } = {},
  ) {
    this.classic = options.classicQuizzes === undefined ? null : new Map(options.classicQuizzes.map((quiz) => [quiz.id, quiz]));
  }

  async read(target: CodeTarget): Promise<LmsCodeObservation> {
    if (target.contentType === 'CLASSIC_QUIZ') {
      if (this.classic === null) {
        this.classic = new Map((await this.lms.listQuizzes(this.courseId)).map((quiz) => [quiz.id, quiz]));
      }
      const quiz = this.classic.get(target.lmsAssessmentId);
      if (quiz === undefined) return { kind: 'gone' };
      return quiz.accessCode === undefined ? { kind: 'hidden' } : { kind: 'code', code: quiz.accessCode };
    }
    try {
      const quiz = await this.lms.getNewQuiz(this.courseId, target.lmsAssessmentId);
      return { kind: 'code', code: quiz.requireStudentAccessCode ? quiz.studentAccessCode : null };
    } catch (error) {
      if (error instanceof LmsNotFoundError) return { kind: 'gone' };
      throw error;
    }
  }
}

/** Where an enforced setting lives in the LMS, from its content id (`classicquiz_{id}`, `newquiz:{course}:{id}`). */
export function codeTargetOf(setting: Pick<AssessmentSettings, 'courseId' | 'contentId'>): CodeTarget {
  const newQuiz = /^newquiz:\d+:(\d+)$/.exec(setting.contentId);
  if (newQuiz) return { courseId: setting.courseId, contentType: 'NEW_QUIZ', lmsAssessmentId: newQuiz[1]! };
  return { courseId: setting.courseId, contentType: 'CLASSIC_QUIZ', lmsAssessmentId: setting.contentId.replace(/^classicquiz_/, '') };
}

export function isEnforced(setting: AssessmentSettings): boolean {
  return setting.exbRequired && setting.enabled;
}

/** Compares and records; the record is version-guarded, so a change made during the LMS read wins. */
export class AccessCodeVerification {
  constructor(
    private readonly settings: SettingsRepository,
    private readonly logger: Logger,
  ) {}

  /** Checks one enforced setting with `reader`; returns the outcome (also when a concurrent change dropped it). */
  async verify(setting: AssessmentSettings, reader: LmsCodeReader, byLmsUserId: string | null): Promise<VerificationOutcome> {
    const observed = await reader.read(codeTargetOf(setting));
    const outcome = { ...compareAccessCode(setting.accessCode, observed), byLmsUserId };
    await this.settings.recordVerification(setting.courseId, setting.contentId, setting.version, outcome);
    if (outcome.status === 'missing' || outcome.status === 'stale') {
      this.logger.warn({ courseId: setting.courseId, contentId: setting.contentId, status: outcome.status }, 'LMS access code differs from the stored one');
    }
    return outcome;
  }

  /**
   * Records a check that could not decide, with why (an expired grant, no grant at all, an LMS failure): a `verified`
   * claim loses its proof and becomes `unverified`, while a known `missing` or `stale` stays flagged, since nothing
   * showed it was repaired.
   */
  async markUnchecked(setting: Pick<AssessmentSettings, 'courseId' | 'contentId' | 'version' | 'verificationStatus'>, reason: string): Promise<void> {
    const known = setting.verificationStatus === 'missing' || setting.verificationStatus === 'stale';
    const status = known ? setting.verificationStatus : 'unverified';
    await this.settings.recordVerification(setting.courseId, setting.contentId, setting.version, { status, reason, byLmsUserId: null });
  }

  /**
   * Checks every enforced assessment of a course after discovery read it. An expired grant ends the refresh as it would
   * any LMS call; any other failure of one assessment's read leaves its last status and is logged, so a flaky new-quiz
   * read never fails the whole refresh.
   */
  async verifyCourse(courseId: string, lms: LmsApi, options: { classicQuizzes?: readonly LmsQuiz[]; byLmsUserId: string | null }): Promise<void> {
    const enforced = (await this.settings.listAssessmentSettings(courseId)).filter(isEnforced);
    if (enforced.length === 0) return;
    const reader = new LmsCodeReader(lms, courseId, options.classicQuizzes === undefined ? {} : { classicQuizzes: options.classicQuizzes });
    for (const setting of enforced) {
      try {
        await this.verify(setting, reader, options.byLmsUserId);
      } catch (error) {
        if (error instanceof LmsAuthorizationRequiredError) throw error;
        this.logger.warn({ err: error, courseId, contentId: setting.contentId }, 'access code could not be verified');
      }
    }
  }
}
