import { z } from 'zod';
import { assessmentNotFound, requireSessionCourse } from '../../../domain/assessments/scope.js';
import { defaultAssessmentSettings, redactAssessmentSettings, type RedactedAssessmentSettings } from '../../../domain/settings/model.js';
import { auditedBy as by } from '../../../audit/audited.js';
import { router } from '../../init.js';
import { studentHelpInput } from '../exam-day-input.js';
import { cachedView, type CachedAssessmentView } from '../../presenters.js';
import { assessmentIdInput, assessmentInput, courseInput, instructorMutation, instructorQuery, scopedAssessment } from './procedures.js';

/** The session course's assessments: the cache, their redacted settings, their last LMS check, and discovery. */

export const assessmentsRouter = router({
  /** `GET /api/quizzes`: the cache only, no LMS call. */
  list: instructorQuery.query(async ({ ctx }): Promise<CachedAssessmentView[]> => {
    const courseId = ctx.principal.courseId;
    const [cached, stored] = await Promise.all([ctx.services.assessments.list(courseId), ctx.services.settings.listAssessmentSettings(courseId)]);
    const settings = new Map(stored.map((setting) => [setting.contentId, setting]));
    return cached.map((assessment) => cachedView(assessment, settings.get(assessment.contentId)));
  }),

  /** `GET /api/quizzes/:quizId`. */
  get: instructorQuery.input(z.object({ quizId: assessmentIdInput })).query(async ({ ctx, input }): Promise<CachedAssessmentView> => {
    const ref = await ctx.services.scope.resolve(ctx.principal.courseId, input.quizId);
    // Known only by its setting: discovery dropped it, so there is no cached assessment to show.
    if (ref.cached === null) throw assessmentNotFound();
    return cachedView(ref.cached, await ctx.services.settings.loadAssessmentSettings(ref.courseId, ref.contentId));
  }),

  /** `GET /api/quizzes/exb-settings`: every cached or configured assessment's redacted setting, by content id. */
  settings: instructorQuery.query(async ({ ctx }): Promise<Record<string, RedactedAssessmentSettings>> => {
    const courseId = ctx.principal.courseId;
    const [cached, stored] = await Promise.all([
      ctx.services.assessments.list(courseId),
      ctx.services.settings.listAssessmentSettings(courseId),
    ]);
    const map: Record<string, RedactedAssessmentSettings> = {};
    for (const assessment of cached) map[assessment.contentId] = redactAssessmentSettings(defaultAssessmentSettings(courseId, assessment.contentId));
    for (const setting of stored) map[setting.contentId] = redactAssessmentSettings(setting);
    return map;
  }),

  /**
   * Addition (typed API and `GET /api/quizzes/exb-verification`): the last LMS check of every enforced assessment,
   * by content id, so the views can flag a code the LMS no longer holds.
   */
  verification: instructorQuery.query(async ({ ctx }) => {
    const records = await ctx.services.settings.listVerifications(ctx.principal.courseId);
    return Object.fromEntries(
      [...records].map(([contentId, record]) => [
        contentId,
        { status: record.status, checkedAt: record.checkedAt?.toISOString() ?? null, reason: record.reason },
      ]),
    );
  }),

  /**
   * Addition (exam day): lets one named student of the course get the assessment's access code once, on their own
   * tool page without the exam browser, for a few minutes. The answer never carries the code.
   */
  exemptStudent: instructorMutation
    .input(assessmentInput.extend(studentHelpInput))
    .mutation(async ({ ctx, input }) => ctx.services.exemptions.grant(by(ctx), await scopedAssessment(ctx, input), input.lmsUserId, input.reason)),

  /** `POST /api/quizzes/course/:courseId/refresh`: discovery through the instructor's grant. */
  refresh: instructorMutation.input(courseInput).mutation(async ({ ctx, input }) => {
    const courseId = requireSessionCourse(ctx.principal.courseId, input.courseId);
    const assessments = await ctx.services.discovery.refresh(courseId, ctx.lms, ctx.principal.lmsUserId);
    return {
      success: true as const,
      message: `Found ${assessments.length} assessment${assessments.length === 1 ? '' : 's'}.`,
      quizCount: assessments.length,
      quizzes: assessments.map((assessment) => ({ id: assessment.contentId, title: assessment.title, lmsQuizId: assessment.lmsAssessmentId })),
    };
  }),
});
