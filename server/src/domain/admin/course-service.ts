import { isContentId } from '@exb/shared/content-id.js';
import type { AuditedBy } from '../../audit/audited.js';
import type { LmsApi } from '../../lms/api.js';
import { assessmentNotFound, type AssessmentRef } from '../assessments/scope.js';
import { compareAccessCode, isEnforced } from '../enforcement/access-code-verification.js';
import type { AdoptCandidate } from '../enforcement/adopt-original.js';
import type { RepairedView, SettingView } from '../enforcement/enforcement-service.js';
import type { ManagementServices } from '../management-services.js';
import { PASSWORD_REVEAL_EXPIRES_IN_SECONDS, type PasswordReveal } from '../password-reveal/password-reveal.js';
import type { RedactedAssessmentSettings } from '../settings/model.js';
import { adminAssessmentViews, presetIdsOf, type AdminAssessmentView } from './assessment-view.js';
import { wasRead, type CourseConnection, type CourseConnections } from '../connected-courses/course-connections.js';
import { courseFacts, inRootAccount } from '../connected-courses/course-facts.js';
import { courseNotConnected } from '../connected-courses/errors.js';
import { generateExitPassword } from './exit-password.js';

/** Document 2 "Course detail", with the connection record's facts the dashboard shows beside it. */
export interface AdminCourseDetail {
  readonly id: string;
  readonly name: string;
  readonly courseCode: string;
  readonly termName: string | null;
  readonly lastRefreshedAt: string;
  /** Addition: whether the course's quizzes were read from the LMS yet. */
  readonly readFromLms: boolean;
  readonly setupCompleted: boolean;
  readonly hasCourseDefaults: boolean;
  readonly adminToolPresetIds: string[];
  readonly assessments: AdminAssessmentView[];
}

export interface AssessmentReveal extends PasswordReveal {
  readonly passwords: PasswordReveal['passwords'] & {
    /**
     * The code as the LMS holds it now; `mismatch` is why it is not the code exam browsers receive (the stored check
     * reason), `null` when it is or the assessment is not enforced.
     */
    readonly accessCode: { readonly value: string | null; readonly source: 'lms'; readonly mismatch: string | null };
  };
}

export interface CourseServiceDependencies {
  readonly connections: CourseConnections;
  readonly management: ManagementServices;
  readonly managedExitPassword: string | null | undefined;
  /** Replaces the exit password generator (tests). */
  readonly generateExitPassword?: () => string;
}

/**
 * What an administrator does inside one connected course. Every method first finds the course among the account's
 * connection records (`ADMIN_COURSE_NOT_CONNECTED` otherwise, whether the course is another school's or simply not
 * connected), then uses the same domain services as the instructor routes: discovery, enforcement, policy, course
 * defaults and the password reveal. Only the LMS grant differs: the administrator's.
 */
export class AdminCourseService {
  private readonly generateExitPassword: () => string;

  constructor(private readonly deps: CourseServiceDependencies) {
    this.generateExitPassword = deps.generateExitPassword ?? generateExitPassword;
  }

  async connected(accountId: string, courseId: string): Promise<CourseConnection> {
    const connection = await this.deps.connections.find(accountId, courseId);
    if (connection === null) throw courseNotConnected();
    return connection;
  }

  /** A connected course a change may be made in now: not while its reset runs (`COURSE_RESET_IN_PROGRESS`). */
  async changeable(accountId: string, courseId: string): Promise<CourseConnection> {
    const connection = await this.connected(accountId, courseId);
    await this.deps.management.locks.assertNoReset(courseId);
    return connection;
  }

  /**
   * An assessment of a connected course that a change may be made to, named by its canonical content id only (bare
   * quiz ids are instructor input).
   */
  async assessment(accountId: string, courseId: string, assessmentId: string): Promise<AssessmentRef> {
    await this.changeable(accountId, courseId);
    if (!isContentId(assessmentId)) throw assessmentNotFound();
    return this.deps.management.scope.resolve(courseId, assessmentId);
  }

  async detail(accountId: string, courseId: string): Promise<AdminCourseDetail> {
    const connection = await this.connected(accountId, courseId);
    const { assessments, settings } = this.deps.management;
    const [cached, stored, defaults, verifications] = await Promise.all([
      assessments.list(courseId),
      settings.listAssessmentSettings(courseId),
      settings.loadCourseDefaults(courseId),
      settings.listVerifications(courseId),
    ]);
    return {
      id: connection.courseId,
      name: connection.name,
      courseCode: connection.courseCode,
      termName: connection.termName,
      lastRefreshedAt: connection.lastRefreshedAt.toISOString(),
      readFromLms: wasRead(connection),
      setupCompleted: defaults?.setupCompleted ?? false,
      hasCourseDefaults: defaults !== null,
      adminToolPresetIds: presetIdsOf(defaults?.externalTools ?? []),
      assessments: adminAssessmentViews(courseId, cached, stored, defaults, this.deps.managedExitPassword, verifications),
    };
  }

  /** The exam-day board of one assessment of a connected course, read with the administrator's grant. */
  async examDayBoard(accountId: string, courseId: string, assessmentId: string, lms: LmsApi) {
    const ref = await this.assessment(accountId, courseId, assessmentId);
    return this.deps.management.examDay.readWithLms(ref.courseId, ref.contentId, lms);
  }

  /** Re-admits one student to an assessment of a connected course (`exam-browser/readmission.ts`), audited with the reason. */
  async readmitStudent(by: AuditedBy, accountId: string, courseId: string, assessmentId: string, lmsUserId: string, reason: string) {
    const ref = await this.assessment(accountId, courseId, assessmentId);
    return this.deps.management.readmission.readmit(by, ref, lmsUserId, reason);
  }

  /** Exam day: exempts one named student of an assessment of a connected course from the exam browser, once. */
  async exemptStudent(by: AuditedBy, accountId: string, courseId: string, assessmentId: string, lmsUserId: string, reason: string) {
    const ref = await this.assessment(accountId, courseId, assessmentId);
    return this.deps.management.exemptions.grant(by, ref, lmsUserId, reason);
  }

  /**
   * Exam day: the printable sheet of the current access codes of the chosen assessments, across connected courses of
   * the account. Every course must be connected and every assessment one of its own, or nothing is printed.
   */
  async codeSheet(by: AuditedBy, accountId: string, selections: readonly { courseId: string; assessmentIds: readonly string[] }[], reason: string) {
    const items = [];
    for (const { courseId, assessmentIds } of selections) {
      const connection = await this.connected(accountId, courseId);
      for (const assessmentId of assessmentIds) {
        if (!isContentId(assessmentId)) throw assessmentNotFound();
        items.push({ ref: await this.deps.management.scope.resolve(courseId, assessmentId), courseName: connection.name });
      }
    }
    return this.deps.management.codeSheet.print(by, items, reason);
  }

  /** The course's stored URL rules the exam browser reads differently, as the course detail marks them. */
  async urlRuleReadings(accountId: string, courseId: string) {
    await this.connected(accountId, courseId);
    return this.deps.management.urlRules.readings(courseId);
  }

  /**
   * The one-click rewrite of a stored URL rule to its faithful form, for the course defaults (`assessmentId` absent) or
   * one assessment's own policy: administrators may change a course's policy (they reset an assessment to the course
   * defaults), so they may repair one of its rules too.
   */
  async rewriteUrlRule(by: AuditedBy, accountId: string, courseId: string, assessmentId: string | undefined, value: string) {
    let contentId: string | null = null;
    if (assessmentId === undefined) await this.changeable(accountId, courseId);
    else contentId = (await this.assessment(accountId, courseId, assessmentId)).contentId;
    return this.deps.management.urlRules.rewrite(by, { courseId, contentId }, value);
  }

  /** Discovery with the administrator's grant, after the LMS confirms the course is still in the root account. */
  async refresh(accountId: string, courseId: string, lms: LmsApi, byLmsUserId: string) {
    await this.changeable(accountId, courseId);
    const course = await lms.getCourse(courseId, { include: ['term'] });
    if (course.id !== courseId || !inRootAccount(course, accountId)) throw courseNotConnected();
    const discovered = await this.deps.management.discovery.refresh(courseId, lms, byLmsUserId);
    await this.deps.connections.markRefreshed(accountId, courseFacts(course));
    const required = new Set(
      (await this.deps.management.settings.listAssessmentSettings(courseId)).filter((setting) => setting.exbRequired).map((setting) => setting.contentId),
    );
    return {
      success: true as const,
      assessmentCount: discovered.length,
      assessments: discovered.map((assessment) => ({ id: assessment.contentId, title: assessment.title, exbRequired: required.has(assessment.contentId) })),
    };
  }

  async revealCourse(by: AuditedBy, accountId: string, courseId: string): Promise<PasswordReveal> {
    await this.changeable(accountId, courseId);
    return this.deps.management.passwords.revealCourse(by, courseId);
  }

  /** A new random exit password as the course's override, under the course write lock; the answer shows it once. */
  async rotateExitPassword(by: AuditedBy, accountId: string, courseId: string) {
    await this.changeable(accountId, courseId);
    const exit = this.generateExitPassword();
    await this.deps.management.courseDefaults.save(by, courseId, { quitPassword: exit }, 'password.rotate');
    return {
      success: true as const,
      expiresInSeconds: PASSWORD_REVEAL_EXPIRES_IN_SECONDS,
      passwords: { exit: { value: exit, source: 'course' as const } },
    };
  }

  /**
   * Start and exit passwords as stored, and the access code as the LMS holds it now; like every LMS read of an enforced
   * assessment, the read is also compared with the stored code and the verification recorded.
   */
  revealAssessment(by: AuditedBy, ref: AssessmentRef, lms: LmsApi): Promise<AssessmentReveal> {
    const { passwords, settings } = this.deps.management;
    return passwords.revealAssessment(by, ref.courseId, ref.contentId, async (reveal) => {
      const [accessCode, stored] = await Promise.all([lmsAccessCode(ref, lms), settings.loadAssessmentSettings(ref.courseId, ref.contentId)]);
      let mismatch: string | null = null;
      if (stored !== null && isEnforced(stored)) {
        const outcome = compareAccessCode(stored.accessCode, { kind: 'code', code: accessCode });
        await settings.recordVerification(ref.courseId, ref.contentId, stored.version, { ...outcome, byLmsUserId: by.principal.lmsUserId });
        mismatch = outcome.reason;
      }
      return { ...reveal, passwords: { ...reveal.passwords, accessCode: { value: accessCode, source: 'lms' as const, mismatch } } };
    });
  }

  /** Drops the assessment's own exit password, so the course's or the managed one applies. */
  async resetExitPassword(by: AuditedBy, ref: AssessmentRef): Promise<SettingView> {
    const { settings, courseDefaults } = await this.deps.management.policy.saveStructured(by, ref, { quitPasswordOverride: false });
    return this.deps.management.enforcement.view(settings, courseDefaults);
  }

  async resetDefaults(by: AuditedBy, ref: AssessmentRef): Promise<SettingView> {
    const { settings, courseDefaults } = await this.deps.management.policy.resetToCourseDefaults(by, ref);
    return this.deps.management.enforcement.view(settings, courseDefaults);
  }

  reapplyProtection(by: AuditedBy, ref: AssessmentRef, lms: LmsApi): Promise<RepairedView> {
    return this.deps.management.enforcement.reapply(by, ref, lms);
  }

  acceptLmsCode(by: AuditedBy, ref: AssessmentRef, lms: LmsApi): Promise<RepairedView> {
    return this.deps.management.enforcement.acceptLmsCode(by, ref, lms);
  }

  regenerateCode(by: AuditedBy, ref: AssessmentRef, lms: LmsApi): Promise<SettingView> {
    return this.deps.management.enforcement.regenerateCode(by, ref, lms);
  }

  /** The originals a copied quiz of a connected course may be adopted from: any connected course of the account. */
  adoptCandidates(accountId: string, ref: AssessmentRef): Promise<AdoptCandidate[]> {
    return this.deps.management.adoption.candidates(ref, { kind: 'connected', accountId });
  }

  /**
   * Adopts a copied quiz with its original's settings (`enforcement/adopt-original.ts`, the teacher's path too), under
   * the course write lock as every enforcement change of the administrator.
   */
  adoptOriginal(by: AuditedBy, accountId: string, ref: AssessmentRef, source: { courseId: string; contentId: string }, lms: LmsApi): Promise<SettingView> {
    const { locks, adoption } = this.deps.management;
    return locks.withCourseWriteLock(ref.courseId, () => adoption.adopt(by, ref, source, { kind: 'connected', accountId }, lms));
  }

  /**
   * Enforcement on or off under the course write lock and then the assessment's operation lock (either taken: 409). The
   * connection record's counts follow in the transaction of the setting's write (the database's count triggers).
   */
  setRequired(by: AuditedBy, ref: AssessmentRef, required: boolean, lms: LmsApi): Promise<RedactedAssessmentSettings | SettingView> {
    const { locks, enforcement } = this.deps.management;
    return locks.withCourseWriteLock(ref.courseId, () => enforcement.setRequired(by, ref, required, lms));
  }
}

async function lmsAccessCode(ref: AssessmentRef, lms: LmsApi): Promise<string | null> {
  if (ref.contentType === 'CLASSIC_QUIZ') return (await lms.getQuiz(ref.courseId, ref.lmsAssessmentId)).accessCode ?? null;
  const quiz = await lms.getNewQuiz(ref.courseId, ref.lmsAssessmentId);
  return quiz.requireStudentAccessCode ? quiz.studentAccessCode : null;
}
