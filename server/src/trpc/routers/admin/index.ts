import { z } from 'zod';
import { ADMIN_PAGE_LIMIT } from '@exb/shared/admin-courses.js';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { EXB_POLICY_LIMITS } from '@exb/shared/exb-policy.js';
import { CODE_SHEET_MAX_ASSESSMENTS, helpReasonSchema } from '@exb/shared/exam-day-help.js';
import { auditedBy as by } from '../../../audit/audited.js';
import { auditFilterSchema } from '../../../domain/activity/audit-views.js';
import type { SettingView } from '../../../domain/enforcement/enforcement-service.js';
import { DomainError } from '../../../domain-error.js';
import { SENSITIVE_RESPONSE_HEADERS } from '../../../security/sensitive-headers.js';
import type { RedactedAssessmentSettings } from '../../../domain/settings/model.js';
import { LmsAuthorizationRequiredError } from '../../../lms/errors.js';
import { isSameOriginOrUnmarked } from '../../../security/fetch-metadata.js';
import { router } from '../../init.js';
import { repairMessage } from '../../presenters.js';
import { studentHelpInput } from '../exam-day-input.js';
import { alertView } from '../../../domain/pre-exam-sweep/alert-view.js';
import { ADMIN_AUTHORIZE_PATH, adminActionSession, adminMutation, adminQuery, adminSession } from './procedures.js';
import { adminPresetsRouter } from './presets.js';

/**
 * The root-account administrator's API (Document 2, `/api/admin`; tool presets in `presets.ts`). Account
 * and user ids come from the session's principal only; course ids from the input are looked up among the account's
 * connection records. The REST paths of the contract call these same procedures (`http/routes/session/admin-rest.ts` and `admin-presets-rest.ts`).
 */

// Bounded only to keep hostile input cheap; the services give the contract's answer for ids that are not canonical.
const courseId = z.string().max(64);
const assessmentId = z.string().max(2048);
const courseInput = z.object({ courseId });
const assessmentInput = z.object({ courseId, assessmentId });

type Setting = RedactedAssessmentSettings | SettingView;
const changed = <S extends Setting>(message: string, setting: S) => ({ success: true as const, message, setting });

export type AdminAuthorizationCheck = { readonly authorized: true } | { readonly authorized: false; readonly authUrl: string };

export const adminRouter = router({
  authorization: router({
    /**
     * The dashboard's connection check: a usable grant (an expired access token is refreshed first) that confirms the
     * administrator. Without one, where to authorize; a grant that does not confirm them is refused as such.
     */
    ensure: adminSession.query(async ({ ctx }): Promise<AdminAuthorizationCheck> => {
      try {
        await ctx.app.identity.requireAdministrator(ctx.principal);
        return { authorized: true };
      } catch (error) {
        if (error instanceof LmsAuthorizationRequiredError) return { authorized: false, authUrl: ADMIN_AUTHORIZE_PATH };
        throw error;
      }
    }),
  }),

  actionToken: router({
    /** A fresh action token for this session; only the tool's own pages ask (same-origin fetch). */
    renew: adminSession.query(({ ctx }) => {
      if (!isSameOriginOrUnmarked({ headers: ctx.requestHeaders })) {
        throw new DomainError(ErrorCodes.CROSS_SITE_REQUEST, 'This request can only be made from the tool itself.');
      }
      const { actionTokens } = ctx.app;
      return { actionToken: actionTokens.issue(ctx.session, 'admin-mutation'), expiresInSeconds: actionTokens.lifetimeSeconds('admin-mutation') };
    }),
  }),

  summary: adminQuery.query(({ ctx }) => ctx.admin.summary.summary(ctx.principal, ctx.lms)),
  /** Addition: the dashboard's pre-exam drift alerts over every connected course of the account. */
  preExamAlerts: adminQuery.query(async ({ ctx }) => ({
    alerts: (await ctx.app.management.sweepRecords.accountAlerts(ctx.principal.accountId, new Date())).map(alertView),
  })),
  /** The one-time legacy backfill and a reconciliation batch, which the dashboard starts when it opens. */
  catchUp: adminMutation.mutation(({ ctx }) => ctx.admin.summary.catchUp(ctx.principal, ctx.lms)),

  examDay: router({
    /** Addition: the school-wide summary of the assessments running now, with their counts per state. */
    running: adminQuery.query(({ ctx }) => ctx.app.management.examDay.running(ctx.principal.accountId)),
  }),

  courses: router({
    list: adminQuery
      .input(
        z.object({
          search: z.string().max(2000).optional(),
          cursor: z.string().max(4096).optional(),
          limit: z.number().int().min(ADMIN_PAGE_LIMIT.min).max(ADMIN_PAGE_LIMIT.max).optional(),
          includePast: z.boolean().optional(),
        }),
      )
      .query(async ({ ctx, input }) => {
        const operationalTerm = await ctx.admin.terms.operational(ctx.principal.accountId, ctx.lms);
        return ctx.admin.courseList.list(ctx.principal.accountId, operationalTerm, input);
      }),

    get: adminQuery.input(courseInput).query(async ({ ctx, input }) => ({
      success: true as const,
      course: await ctx.admin.courses.detail(ctx.principal.accountId, input.courseId),
    })),

    connect: adminMutation
      .input(
        z.object({
          courseIds: z.array(z.union([z.string().max(64), z.number()])).max(1000).optional(),
          input: z.string().max(20_000).optional(),
        }),
      )
      .mutation(({ ctx, input }) => ctx.admin.connect.connect(ctx.principal, ctx.lms, input)),

    refresh: adminMutation.input(courseInput).mutation(({ ctx, input }) => ctx.admin.courses.refresh(ctx.principal.accountId, input.courseId, ctx.lms, ctx.principal.lmsUserId)),

    revealPasswords: adminMutation.input(courseInput).mutation(async ({ ctx, input }) => {
      const reveal = await ctx.admin.courses.revealCourse(by(ctx), ctx.principal.accountId, input.courseId);
      Object.assign(ctx.responseHeaders, SENSITIVE_RESPONSE_HEADERS);
      return reveal;
    }),

    rotateExitPassword: adminMutation.input(courseInput).mutation(async ({ ctx, input }) => {
      const rotated = await ctx.admin.courses.rotateExitPassword(by(ctx), ctx.principal.accountId, input.courseId);
      Object.assign(ctx.responseHeaders, SENSITIVE_RESPONSE_HEADERS);
      return rotated;
    }),

    /** Addition: drift the pre-exam sweep found in the course, and its choice of automatic repairs. */
    preExamSweep: adminQuery.input(courseInput).query(async ({ ctx, input }) => {
      await ctx.admin.courses.connected(ctx.principal.accountId, input.courseId);
      return {
        alerts: (await ctx.app.management.sweepRecords.courseAlerts(input.courseId, new Date())).map(alertView),
        autoRepairBeforeStart: await ctx.app.management.sweepOption.get(input.courseId),
      };
    }),

    setAutoRepair: adminMutation.input(courseInput.extend({ autoRepairBeforeStart: z.boolean() })).mutation(async ({ ctx, input }) => {
      await ctx.admin.courses.changeable(ctx.principal.accountId, input.courseId);
      return { success: true as const, autoRepairBeforeStart: await ctx.app.management.sweepOption.set(by(ctx), input.courseId, input.autoRepairBeforeStart) };
    }),

    /** Addition: the exam-day board of one assessment of the course (the teacher's board, for any connected course). */
    examDayBoard: adminQuery
      .input(assessmentInput)
      .query(({ ctx, input }) => ctx.admin.courses.examDayBoard(ctx.principal.accountId, input.courseId, input.assessmentId, ctx.lms)),

    /** Addition: re-admits one student who is stuck on exam day, with a required reason (audited). */
    readmitStudent: adminMutation
      .input(assessmentInput.extend(studentHelpInput))
      .mutation(async ({ ctx, input }) => ({
        success: true as const,
        ...(await ctx.admin.courses.readmitStudent(by(ctx), ctx.principal.accountId, input.courseId, input.assessmentId, input.lmsUserId, input.reason)),
      })),

    /** Addition (exam day): lets one named student get the assessment's access code once without the exam browser. */
    exemptStudent: adminMutation
      .input(assessmentInput.extend(studentHelpInput))
      .mutation(({ ctx, input }) =>
        ctx.admin.courses.exemptStudent(by(ctx), ctx.principal.accountId, input.courseId, input.assessmentId, input.lmsUserId, input.reason),
      ),

    /** Addition (exam day): the printable sheet of the current access codes of chosen assessments, for an outage. */
    codeSheet: adminMutation
      .input(
        z.object({
          reason: helpReasonSchema,
          selections: z
            .array(z.object({ courseId, assessmentIds: z.array(assessmentId).min(1).max(CODE_SHEET_MAX_ASSESSMENTS) }))
            .min(1)
            .max(CODE_SHEET_MAX_ASSESSMENTS)
            .refine((selections) => selections.reduce((sum, selection) => sum + selection.assessmentIds.length, 0) <= CODE_SHEET_MAX_ASSESSMENTS, {
              message: `At most ${CODE_SHEET_MAX_ASSESSMENTS} assessments per sheet.`,
            }),
        }),
      )
      .mutation(async ({ ctx, input }) => {
        // Refusals too: the request asked for secrets.
        Object.assign(ctx.responseHeaders, SENSITIVE_RESPONSE_HEADERS);
        return ctx.admin.courses.codeSheet(by(ctx), ctx.principal.accountId, input.selections, input.reason);
      }),

    /** Addition: the board live (server-sent events: the board, then what changed), authorized as the board first. */
    examDayChanges: adminQuery.input(assessmentInput).subscription(async ({ ctx, input, signal }) => {
      const ref = await ctx.admin.courses.assessment(ctx.principal.accountId, input.courseId, input.assessmentId);
      return ctx.app.liveBoards.follow(ref.courseId, ref.contentId, ctx.lms, signal);
    }),

    /** Addition: the course's stored URL rules the exam browser reads differently (course defaults, by assessment). */
    urlRuleReadings: adminQuery.input(courseInput).query(({ ctx, input }) => ctx.admin.courses.urlRuleReadings(ctx.principal.accountId, input.courseId)),

    /** Addition: rewrites a stored URL rule to its faithful form (`assessmentId` absent: the course defaults' rule). */
    rewriteUrlRule: adminMutation
      .input(courseInput.extend({ assessmentId: assessmentId.optional(), value: z.string().max(EXB_POLICY_LIMITS.urlLength) }))
      .mutation(async ({ ctx, input }) => ({
        success: true as const,
        ...(await ctx.admin.courses.rewriteUrlRule(by(ctx), ctx.principal.accountId, input.courseId, input.assessmentId, input.value)),
      })),

    /** What a reset would remove (the read-only preflight), for the confirmation dialog. */
    resetPreview: adminQuery.input(courseInput).query(({ ctx, input }) => ctx.admin.reset.preview(ctx.principal.accountId, input.courseId, ctx.lms)),

    /**
     * The course reset. Its confirmation is checked right after the action token, before the administrator is
     * confirmed through the LMS, so an unconfirmed reset never reaches the LMS.
     */
    reset: adminActionSession
      .input(courseInput.extend({ confirmation: z.unknown().optional() }))
      .use(async ({ ctx, input, next }) => {
        await ctx.admin.reset.requireConfirmation({ principal: ctx.principal, courseId: input.courseId, requestId: ctx.requestId }, input.confirmation);
        await ctx.app.identity.requireAdministrator(ctx.principal);
        return next();
      })
      .mutation(({ ctx, input }) =>
        ctx.admin.reset.reset({
          principal: ctx.principal,
          courseId: input.courseId,
          lms: ctx.lms,
          requestId: ctx.requestId,
          refusalOptions: { authorizeUrl: ADMIN_AUTHORIZE_PATH },
        }),
      ),
  }),

  catalog: adminQuery
    .input(
      z.object({
        search: z.string().max(2000).optional(),
        termId: z.string().max(64).optional(),
        cursor: z.string().max(1024).optional(),
        includeUnpublished: z.boolean().optional(),
        withEnrollments: z.boolean().optional(),
      }),
    )
    .query(({ ctx, input }) => ctx.admin.catalog.page(ctx.principal.accountId, ctx.lms, input)),

  terms: router({
    list: adminQuery.query(async ({ ctx }) => ({ success: true as const, ...(await ctx.admin.terms.list(ctx.principal.accountId, ctx.lms)) })),

    setOperational: adminMutation.input(z.object({ termId: z.string().min(1).max(64) })).mutation(async ({ ctx, input }) => ({
      success: true as const,
      operationalTerm: await ctx.admin.terms.choose(ctx.principal.accountId, ctx.lms, input.termId),
    })),
  }),

  assessments: router({
    revealPasswords: adminMutation.input(assessmentInput).mutation(async ({ ctx, input }) => {
      const ref = await ctx.admin.courses.assessment(ctx.principal.accountId, input.courseId, input.assessmentId);
      const reveal = await ctx.admin.courses.revealAssessment(by(ctx), ref, ctx.lms);
      Object.assign(ctx.responseHeaders, SENSITIVE_RESPONSE_HEADERS);
      return reveal;
    }),

    resetExitPassword: adminMutation.input(assessmentInput).mutation(async ({ ctx, input }) => {
      const ref = await ctx.admin.courses.assessment(ctx.principal.accountId, input.courseId, input.assessmentId);
      return changed('The assessment uses the course’s exit password again.', await ctx.admin.courses.resetExitPassword(by(ctx), ref));
    }),

    resetDefaults: adminMutation.input(assessmentInput).mutation(async ({ ctx, input }) => {
      const ref = await ctx.admin.courses.assessment(ctx.principal.accountId, input.courseId, input.assessmentId);
      return changed('The assessment uses the course defaults again.', await ctx.admin.courses.resetDefaults(by(ctx), ref));
    }),

    regenerateCode: adminMutation.input(assessmentInput).mutation(async ({ ctx, input }) => {
      const ref = await ctx.admin.courses.assessment(ctx.principal.accountId, input.courseId, input.assessmentId);
      return changed('A new access code is in place; the previous one no longer works.', await ctx.admin.courses.regenerateCode(by(ctx), ref, ctx.lms));
    }),

    /** Addition: `POST .../assessments/:assessmentId/protection/reapply` puts the stored code back in the LMS. */
    reapplyProtection: adminMutation.input(assessmentInput).mutation(async ({ ctx, input }) => {
      const ref = await ctx.admin.courses.assessment(ctx.principal.accountId, input.courseId, input.assessmentId);
      const setting = await ctx.admin.courses.reapplyProtection(by(ctx), ref, ctx.lms);
      return changed(repairMessage(setting.verificationStatus), setting);
    }),

    /** Addition: `POST .../assessments/:assessmentId/protection/accept-lms-code` stores the LMS's current code. */
    acceptLmsCode: adminMutation.input(assessmentInput).mutation(async ({ ctx, input }) => {
      const ref = await ctx.admin.courses.assessment(ctx.principal.accountId, input.courseId, input.assessmentId);
      const setting = await ctx.admin.courses.acceptLmsCode(by(ctx), ref, ctx.lms);
      return changed('The LMS’s access code is now the one released to exam browsers.', setting);
    }),

    /** Addition: `POST .../assessments/:assessmentId/protection/clear-lms-code`, as the teacher's (`instructor.ts`). */
    clearLmsCode: adminMutation.input(assessmentInput).mutation(async ({ ctx, input }) => {
      const ref = await ctx.admin.courses.assessment(ctx.principal.accountId, input.courseId, input.assessmentId);
      await ctx.app.management.enforcement.clearUnmanagedCode(by(ctx), ref, ctx.lms);
      return { success: true as const, message: 'The access code was removed in the LMS; students can open the quiz without it.' };
    }),

    /**
     * Addition: the originals a copied quiz may be adopted from, the enforced assessments of its title in the account's
     * connected courses (the teacher's `adoptCandidates`, with the account for the courses the teacher teaches).
     */
    adoptCandidates: adminQuery.input(assessmentInput).query(async ({ ctx, input }) => {
      const ref = await ctx.admin.courses.assessment(ctx.principal.accountId, input.courseId, input.assessmentId);
      return { success: true as const, candidates: await ctx.admin.courses.adoptCandidates(ctx.principal.accountId, ref) };
    }),

    /** Addition: adopts a copied quiz with the settings of one of `adoptCandidates`, with this service's own code. */
    adoptOriginal: adminMutation
      .input(assessmentInput.extend({ sourceCourseId: courseId, sourceContentId: assessmentId }))
      .mutation(async ({ ctx, input }) => {
        const ref = await ctx.admin.courses.assessment(ctx.principal.accountId, input.courseId, input.assessmentId);
        const source = { courseId: input.sourceCourseId, contentId: input.sourceContentId };
        const setting = await ctx.admin.courses.adoptOriginal(by(ctx), ctx.principal.accountId, ref, source, ctx.lms);
        return changed('The exam browser is now required, with the original assessment’s settings.', setting);
      }),

    setRequired: adminMutation.input(assessmentInput.extend({ required: z.boolean() })).mutation(async ({ ctx, input }) => {
      const ref = await ctx.admin.courses.assessment(ctx.principal.accountId, input.courseId, input.assessmentId);
      const setting = await ctx.admin.courses.setRequired(by(ctx), ref, input.required, ctx.lms);
      return changed(input.required ? 'The exam browser is now required.' : 'The exam browser is no longer required.', setting);
    }),
  }),

  /** The account's audit trail with filters; the CSV export is `GET /api/admin/audit.csv` over `audit.export`. */
  audit: router({
    list: adminQuery
      .input(auditFilterSchema.extend({ cursor: z.string().max(200).optional() }))
      .query(({ ctx, input }) => {
        const { cursor, ...filter } = input;
        return ctx.admin.auditTrail.page(ctx.principal.accountId, filter, cursor);
      }),

    export: adminQuery.input(auditFilterSchema).query(({ ctx, input }) => ctx.admin.auditTrail.export(ctx.principal.accountId, input)),
  }),

  toolPresets: adminPresetsRouter,
});
