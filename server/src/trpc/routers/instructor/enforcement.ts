import { EXB_LAUNCH_ROUTE, servicePath } from '@exb/shared/service-paths.js';
import { z } from 'zod';
import { auditedBy as by } from '../../../audit/audited.js';
import { effectiveWebsiteRules, statusView } from '../../../domain/enforcement/status-view.js';
import { defaultAssessmentSettings } from '../../../domain/settings/model.js';
import { authorizationStatus } from '../../../oauth/status.js';
import { router } from '../../init.js';
import { studentHelpInput } from '../exam-day-input.js';
import { disabledSetting, enabledSetting, repairMessage } from '../../presenters.js';
import { ASSESSMENT_ID_MAX_LENGTH, assessmentIdInput, assessmentInput, instructorMutation, instructorQuery, scopedAssessment } from './procedures.js';

/**
 * Requiring the exam browser for one assessment, its access code and protection in the LMS, and what the teacher
 * watches on exam day (its status, Activity panel and board).
 */

export const enforcementRouter = router({
  /** `PUT /api/quizzes/:quizId/exb`: the assessment is named without a course; the session course is used. */
  setRequired: instructorMutation
    .input(z.object({ quizId: assessmentIdInput, required: z.boolean() }))
    .mutation(async ({ ctx, input }) => {
      const ref = await ctx.services.scope.resolve(ctx.principal.courseId, input.quizId);
      if (input.required) {
        const view = await ctx.services.enforcement.enable(by(ctx), ref, ctx.lms);
        return { success: true as const, message: 'The exam browser is now required.', setting: enabledSetting(view) };
      }
      const view = await ctx.services.enforcement.disable(by(ctx), ref, ctx.lms);
      return { success: true as const, message: 'The exam browser is no longer required.', setting: disabledSetting(view) };
    }),

  enable: instructorMutation.input(assessmentInput).mutation(async ({ ctx, input }) => {
    const view = await ctx.services.enforcement.enable(by(ctx), await scopedAssessment(ctx, input), ctx.lms);
    return { success: true as const, message: 'The exam browser is now required.', setting: enabledSetting(view) };
  }),

  disable: instructorMutation.input(assessmentInput).mutation(async ({ ctx, input }) => {
    const view = await ctx.services.enforcement.disable(by(ctx), await scopedAssessment(ctx, input), ctx.lms);
    return { success: true as const, message: 'The exam browser is no longer required.', setting: disabledSetting(view) };
  }),

  resetDefaults: instructorMutation.input(assessmentInput).mutation(async ({ ctx, input }) => {
    const { settings, courseDefaults } = await ctx.services.policy.resetToCourseDefaults(by(ctx), await scopedAssessment(ctx, input));
    return {
      success: true as const,
      message: 'The assessment uses the course defaults again.',
      setting: ctx.services.enforcement.view(settings, courseDefaults),
    };
  }),

  regenerateCode: instructorMutation.input(assessmentInput).mutation(async ({ ctx, input }) => {
    await ctx.services.enforcement.regenerateCode(by(ctx), await scopedAssessment(ctx, input), ctx.lms);
    return { success: true as const, message: 'A new access code is in place; the previous one no longer works.' };
  }),

  /** Addition: `POST .../exb/protection/reapply` puts the stored access code back in the LMS, then checks it. */
  reapplyProtection: instructorMutation.input(assessmentInput).mutation(async ({ ctx, input }) => {
    const ref = await scopedAssessment(ctx, input);
    const setting = await ctx.services.enforcement.reapply(by(ctx), ref, ctx.lms);
    return { success: true as const, message: repairMessage(setting.verificationStatus), setting };
  }),

  /** Addition: `POST .../exb/protection/accept-lms-code` keeps the code the LMS has now (a stale assessment). */
  acceptLmsCode: instructorMutation.input(assessmentInput).mutation(async ({ ctx, input }) => {
    const ref = await scopedAssessment(ctx, input);
    const setting = await ctx.services.enforcement.acceptLmsCode(by(ctx), ref, ctx.lms);
    return { success: true as const, message: 'The LMS’s access code is now the one released to exam browsers.', setting };
  }),

  /**
   * Addition: `POST .../exb/protection/clear-lms-code` removes, in the LMS, an access code this service does not
   * manage (a course copy carried it along). Adopting it instead is `enable`, which puts the service's own code there.
   */
  clearLmsCode: instructorMutation.input(assessmentInput).mutation(async ({ ctx, input }) => {
    await ctx.services.enforcement.clearUnmanagedCode(by(ctx), await scopedAssessment(ctx, input), ctx.lms);
    return { success: true as const, message: 'The access code was removed in the LMS; students can open the quiz without it.' };
  }),

  /**
   * Addition: adopts a quiz that carries a code this service does not manage with the settings of the enforced
   * assessment it was copied from (`domain/enforcement/adopt-original.ts`); the candidates come from `adoptCandidates`.
   */
  adoptCandidates: instructorQuery.input(assessmentInput).query(async ({ ctx, input }) => {
    const ref = await scopedAssessment(ctx, input);
    return { success: true as const, candidates: await ctx.services.adoption.candidates(ref, { kind: 'taught', lms: ctx.lms }) };
  }),

  adoptOriginal: instructorMutation
    .input(assessmentInput.extend({ sourceCourseId: z.string().max(64), sourceContentId: z.string().max(ASSESSMENT_ID_MAX_LENGTH) }))
    .mutation(async ({ ctx, input }) => {
      const ref = await scopedAssessment(ctx, input);
      const source = { courseId: input.sourceCourseId, contentId: input.sourceContentId };
      const view = await ctx.services.adoption.adopt(by(ctx), ref, source, { kind: 'taught', lms: ctx.lms }, ctx.lms);
      return { success: true as const, message: 'The exam browser is now required, with the original assessment’s settings.', setting: enabledSetting(view) };
    }),

  /** `GET .../exb/config`: where the exam-browser launch of the assessment starts. */
  configLocation: instructorQuery.input(assessmentInput).query(async ({ ctx, input }) => {
    const ref = await scopedAssessment(ctx, input);
    return { location: servicePath(EXB_LAUNCH_ROUTE, [ref.contentId]) };
  }),

  /** The Activity panel: the assessment's recent changes (who, when, outcome) and exam-day counters; polled. */
  activity: instructorQuery.input(assessmentInput).query(async ({ ctx, input }) => {
    const ref = await scopedAssessment(ctx, input);
    return ctx.services.activity.view(ref.courseId, ref.contentId);
  }),

  /** The exam-day board: every student of the assessment with a recorded step, their state and the counts. */
  examDayBoard: instructorQuery.input(assessmentInput).query(async ({ ctx, input }) => {
    const ref = await scopedAssessment(ctx, input);
    return ctx.services.examDay.readWithLms(ref.courseId, ref.contentId, ctx.lms);
  }),

  /**
   * The board live, over server-sent events: the whole board first, then the students whose record changed, coalesced
   * per assessment (`domain/exam-day/live-boards.ts`). Authorized as the board, before the stream opens.
   */
  examDayChanges: instructorQuery.input(assessmentInput).subscription(async ({ ctx, input, signal }) => {
    const ref = await scopedAssessment(ctx, input);
    return ctx.app.liveBoards.follow(ref.courseId, ref.contentId, ctx.lms, signal);
  }),

  /** Re-admits one student who is stuck on exam day, with a required reason (audited). */
  readmitStudent: instructorMutation.input(assessmentInput.extend(studentHelpInput)).mutation(async ({ ctx, input }) => {
    const ref = await scopedAssessment(ctx, input);
    return { success: true as const, ...(await ctx.services.readmission.readmit(by(ctx), ref, input.lmsUserId, input.reason)) };
  }),

  status: instructorQuery.input(assessmentInput).query(async ({ ctx, input }) => {
    const ref = await scopedAssessment(ctx, input);
    const { assessment, courseDefaults } = await ctx.services.settings.loadPolicyInputs(ref.courseId, ref.contentId);
    const authenticated = await authorizationStatus(ctx.app.oauth.accessTokens, ctx.session, {});
    const policy = {
      settings: assessment ?? defaultAssessmentSettings(ref.courseId, ref.contentId),
      courseDefaults,
      managedExitPassword: ctx.app.config.exb.managedQuitPassword,
    };
    return {
      success: true as const,
      ...statusView({ ...policy, lmsUrl: ctx.app.config.lmsUrl, authenticated }),
      websiteRules: effectiveWebsiteRules(policy),
    };
  }),
});
