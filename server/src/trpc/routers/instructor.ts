import { z } from 'zod';
import { EXB_POLICY_LIMITS, exbPasswordSchema, normalizeUrlRules, policySchema, checkNoQuizToolDefinitions } from '@exb/shared/exb-policy.js';
import { normalizeContentId } from '@exb/shared/content-id.js';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { auditedBy as by } from '../../audit/audited.js';
import { assessmentNotFound, requireSessionCourse, type AssessmentRef } from '../../domain/assessments/scope.js';
import type { SettingView } from '../../domain/enforcement/enforcement-service.js';
import { effectiveWebsiteRules, statusView } from '../../domain/enforcement/status-view.js';
import { hasUnmanagedAccessCode } from '../../domain/enforcement/unmanaged-code.js';
import { DomainError } from '../../domain-error.js';
import type { ManagementServices } from '../../domain/management-services.js';
import { policyError } from '../../domain/policy-errors.js';
import { SENSITIVE_RESPONSE_HEADERS } from '../../security/sensitive-headers.js';
import {
  defaultAssessmentSettings,
  redactAssessmentSettings,
  redactCourseDefaults,
  type AssessmentSettings,
  type CachedAssessment,
  type RedactedAssessmentSettings,
} from '../../domain/settings/model.js';
import { authorizationStatus, ensureAuthorization, type AuthorizationCheck } from '../../oauth/status.js';
import { reauthorizeUrl } from '../../oauth/reauthorize.js';
import { rethrowAsDomainRefusal, toTrpcError } from '../error-mapping.js';
import { publicProcedure, router } from '../init.js';
import { repairMessage } from './repair-message.js';

/**
 * The instructor's management API (Document 2, `/api/quizzes`). Every procedure acts inside the session's course:
 * course ids in the input must equal it and assessments must belong to it. Mutations also pass the Fetch Metadata
 * check and are refused while the course is being reset. The REST paths of the contract call these same procedures
 * (`http/quizzes-rest.ts`), so the answers here are the contract's bodies.
 */

const instructor = publicProcedure.use(({ ctx, next }) => {
  const principal = ctx.session?.principal;
  if (!principal) throw toTrpcError(new DomainError(ErrorCodes.UNAUTHORIZED, 'Open this tool from the LMS to continue.'));
  if (principal.kind !== 'instructor') {
    throw toTrpcError(new DomainError(ErrorCodes.INSTRUCTOR_REQUIRED, 'Only instructors of this course can manage exam settings.'));
  }
  const app = ctx.app;
  return next({
    ctx: {
      ...ctx,
      session: ctx.session!,
      principal,
      services: app.management,
      /** The LMS acting with the instructor's own grant, bound to the signed identity. */
      lms: app.lms.forPrincipal(principal),
    },
  });
});

/** Lower-layer failures leave as the contract's refusals; an expired grant points at the re-authorization start. */
const withRefusals = instructor.use(async ({ ctx, next }) => {
  const result = await next();
  if (!result.ok) rethrowAsDomainRefusal(result.error, { reauthorizeUrl: reauthorizeUrl(ctx.principal) });
  return result;
});

/** Nothing course-scoped runs until the LMS proved the user and the course (`identity/identity-service.ts`). */
const provenCourse = withRefusals.use(async ({ ctx, next }) => {
  await ctx.app.identity.requireCourse(ctx.principal);
  return next();
});

const instructorQuery = provenCourse;

// The cross-site guard of mutations runs before all of this (`publicProcedure`). Every mutation reveals a secret or
// writes a course setting, so the LMS must still list the instructor in the course (re-confirmed every few minutes).
const instructorMutation = provenCourse.use(async ({ ctx, next }) => {
  await ctx.app.identity.requireInstructor(ctx.principal);
  await ctx.services.locks.assertNoReset(ctx.principal.courseId);
  return next();
});

const courseIdInput = z.string().max(64);
// Far longer than any content id and only bounded to keep hostile input cheap: an id that is not canonical is the
// contract's 404 ASSESSMENT_NOT_FOUND (answered by the scope), not a 400 of the input check.
const ASSESSMENT_ID_MAX_LENGTH = 2048;
const assessmentIdInput = z.union([z.string().max(ASSESSMENT_ID_MAX_LENGTH), z.number().int().nonnegative()]).transform(String);
const passwordInput = exbPasswordSchema.nullable().optional();
const urlRulesInput = policySchema((input) => normalizeUrlRules(input)).optional();

const courseInput = z.object({ courseId: courseIdInput });
const assessmentInput = z.object({ courseId: courseIdInput, quizId: assessmentIdInput });

/** Document 2 "Cached assessment". */
export interface CachedAssessmentView {
  id: string;
  title: string;
  courseId: string;
  contentType: CachedAssessment['contentType'];
  published: boolean;
  /**
   * Addition: the LMS has an access code on it that this service does not enforce (a course copy carried it along), so
   * students would wait at a prompt nobody answers. Only whether; never the code.
   */
  unmanagedAccessCode: boolean;
}

function cachedView(assessment: CachedAssessment, setting: AssessmentSettings | null | undefined): CachedAssessmentView {
  return {
    id: assessment.contentId,
    title: assessment.title,
    courseId: assessment.courseId,
    contentType: assessment.contentType,
    published: assessment.published,
    unmanagedAccessCode: hasUnmanagedAccessCode(assessment, setting),
  };
}

function enabledSetting(view: SettingView) {
  return { exbRequired: view.exbRequired, enabled: view.enabled, hasAccessCode: view.hasAccessCode, configValid: view.configValid };
}

function disabledSetting(view: RedactedAssessmentSettings) {
  return { exbRequired: view.exbRequired, enabled: view.enabled, hasAccessCode: view.hasAccessCode };
}

type Ctx = { principal: { courseId: string }; services: ManagementServices };

/** An assessment of the session course, named by a course-scoped path. */
async function scopedAssessment(ctx: Ctx, input: { courseId: string; quizId: string }): Promise<AssessmentRef> {
  const courseId = requireSessionCourse(ctx.principal.courseId, input.courseId);
  return ctx.services.scope.resolve(courseId, input.quizId);
}

/** Structured save: one assessment named by `contentId` (new quiz) or `quizId` (classic content id or bare id). */
function structuredTarget(input: { contentId?: string | undefined; quizId?: string | undefined }): string {
  const given = [input.contentId, input.quizId].filter((value): value is string => value !== undefined);
  if (given.length === 0) throw new DomainError(ErrorCodes.INVALID_REQUEST, 'Name the assessment with contentId or quizId.');
  const normalized = new Set(given.map((value) => normalizeContentId(value) ?? value));
  if (normalized.size > 1) throw new DomainError(ErrorCodes.INVALID_REQUEST, 'contentId and quizId name different assessments.');
  return given[0]!;
}

export const instructorRouter = router({
  authorization: router({
    /**
     * The teacher view's connection check: refreshes an expired access token when the stored refresh token still
     * works, so only an instructor whose grant is gone or refused is asked to authorize. (`GET /api/oauth2status`
     * answers from what is stored and never refreshes.)
     */
    // Not course-scoped: it is what tells the view to ask for the connection that proves the user and the course.
    ensure: withRefusals.query(({ ctx }): Promise<AuthorizationCheck> => ensureAuthorization(ctx.app.oauth.accessTokens, ctx.principal)),
  }),

  assessments: router({
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
  }),

  courseDefaults: router({
    get: instructorQuery.input(courseInput).query(async ({ ctx, input }) => {
      const courseId = requireSessionCourse(ctx.principal.courseId, input.courseId);
      return { success: true as const, defaults: redactCourseDefaults(await ctx.services.courseDefaults.load(courseId)) };
    }),

    /**
     * Whether the school set a default exit password (never its value): a course without its own then still has one,
     * so the teacher view can tell whether the setup may be called complete. Typed API only; no REST path.
     */
    schoolExitPassword: instructorQuery.query(({ ctx }) => {
      const managed = ctx.app.config.exb.managedQuitPassword;
      return { set: typeof managed === 'string' && managed.length > 0 };
    }),

    save: instructorMutation
      .input(
        z.object({
          courseId: courseIdInput,
          urlRules: urlRulesInput,
          externalTools: z.unknown().optional(),
          quitPassword: passwordInput,
          startPassword: passwordInput,
          setupCompleted: z.boolean().optional(),
        }),
      )
      .mutation(async ({ ctx, input }) => {
        const courseId = requireSessionCourse(ctx.principal.courseId, input.courseId);
        const { courseId: _courseId, ...defaults } = input;
        const saved = await ctx.services.courseDefaults.save(by(ctx), courseId, defaults);
        return { success: true as const, message: 'Course defaults saved.', defaults: redactCourseDefaults(saved) };
      }),
  }),

  enforcement: router({
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

    /** `GET .../exb/config`: where the exam-browser launch of the assessment starts. */
    configLocation: instructorQuery.input(assessmentInput).query(async ({ ctx, input }) => {
      const ref = await scopedAssessment(ctx, input);
      return { location: `/exb/launch/${ref.contentId}` };
    }),

    /** The Activity panel: the assessment's recent changes (who, when, outcome) and exam-day counters; polled. */
    activity: instructorQuery.input(assessmentInput).query(async ({ ctx, input }) => {
      const ref = await scopedAssessment(ctx, input);
      return ctx.services.activity.view(ref.courseId, ref.contentId);
    }),

    /** The exam-day board: every student of the assessment with a recorded step, their state and the counts. */
    examDayBoard: instructorQuery.input(assessmentInput).query(async ({ ctx, input }) => {
      const ref = await scopedAssessment(ctx, input);
      return ctx.services.examDay.read(ref.courseId, ref.contentId);
    }),

    /**
     * The board's live signal, over server-sent events: one event whenever the board may have changed (coalesced per
     * assessment); the page then reads `examDayBoard` again. Authorized as the board, before the stream opens.
     */
    examDayChanges: instructorQuery.input(assessmentInput).subscription(async ({ ctx, input, signal }) => {
      const ref = await scopedAssessment(ctx, input);
      return ctx.app.examDayChanges.watch(ref.courseId, ref.contentId, signal);
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
  }),

  policy: router({
    /** `POST /api/quizzes/exb-config-structured`; course tool definitions are refused before the input is read. */
    saveStructured: instructorMutation
      .use(async ({ getRawInput, next }) => {
        const refusal = checkNoQuizToolDefinitions(await getRawInput());
        if (refusal !== null) throw policyError(refusal);
        return next();
      })
      .input(
        z.object({
          userId: z.union([z.string().max(64), z.number().int()]).transform(String),
          contentId: z.string().max(ASSESSMENT_ID_MAX_LENGTH).optional(),
          quizId: assessmentIdInput.optional(),
          urlRules: urlRulesInput,
          usesCourseDefaults: z.boolean().optional(),
          quitPasswordOverride: z.boolean().optional(),
          quitPassword: passwordInput,
          startPasswordOverride: z.boolean().optional(),
          startPassword: passwordInput,
          externalToolIds: z.unknown().optional(),
          quizOnlyExternalTools: z.unknown().optional(),
        }),
      )
      .mutation(async ({ ctx, input }) => {
        if (input.userId !== ctx.principal.lmsUserId) {
          throw new DomainError(ErrorCodes.USER_MISMATCH, 'This request names a user other than the one signed in.');
        }
        const ref = await ctx.services.scope.resolve(ctx.principal.courseId, structuredTarget(input));
        const { userId: _userId, contentId: _contentId, quizId: _quizId, ...policy } = input;
        const { settings, courseDefaults } = await ctx.services.policy.saveStructured(by(ctx), ref, policy);
        return { success: true as const, message: 'Exam settings saved.', setting: ctx.services.enforcement.view(settings, courseDefaults) };
      }),
  }),

  urlRules: router({
    /**
     * Addition: stored URL rules the exam browser reads differently than the editor promises, for the course defaults
     * and by assessment (the rules its configuration is built from), each with why and its faithful form if any.
     */
    readings: instructorQuery.query(({ ctx }) => ctx.services.urlRules.readings(ctx.principal.courseId)),

    /**
     * Addition: one click rewrites a stored exact rule (of the course defaults, or of `quizId`'s own policy) to its
     * faithful form; a rule without one is refused and has to be changed in the editor.
     */
    rewrite: instructorMutation
      .input(z.object({ courseId: courseIdInput, quizId: assessmentIdInput.optional(), value: z.string().max(EXB_POLICY_LIMITS.urlLength) }))
      .mutation(async ({ ctx, input }) => {
        const courseId = requireSessionCourse(ctx.principal.courseId, input.courseId);
        const contentId = input.quizId === undefined ? null : (await ctx.services.scope.resolve(courseId, input.quizId)).contentId;
        const result = await ctx.services.urlRules.rewrite(by(ctx), { courseId, contentId }, input.value);
        return { success: true as const, ...result };
      }),
  }),

  examTools: router({
    copyTargets: instructorQuery
      .input(z.object({ courseId: courseIdInput, toolId: z.string().max(64) }))
      .query(async ({ ctx, input }) => {
        const courseId = requireSessionCourse(ctx.principal.courseId, input.courseId);
        return { success: true as const, courses: await ctx.services.toolsCopy.copyTargets(courseId, input.toolId, ctx.lms) };
      }),

    copy: instructorMutation
      .input(
        z.object({
          courseId: courseIdInput,
          toolId: z.string().max(64),
          courseIds: z.array(z.union([z.string().max(32), z.number()])).max(1000),
        }),
      )
      .mutation(async ({ ctx, input }) => {
        const courseId = requireSessionCourse(ctx.principal.courseId, input.courseId);
        return { success: true as const, ...(await ctx.services.toolsCopy.copy(by(ctx), courseId, input.toolId, input.courseIds, ctx.lms)) };
      }),
  }),

  passwords: router({
    revealCourse: instructorMutation.input(courseInput).mutation(async ({ ctx, input }) => {
      const courseId = requireSessionCourse(ctx.principal.courseId, input.courseId);
      Object.assign(ctx.responseHeaders, SENSITIVE_RESPONSE_HEADERS);
      return ctx.services.passwords.revealCourse(by(ctx), courseId);
    }),

    revealAssessment: instructorMutation.input(assessmentInput).mutation(async ({ ctx, input }) => {
      const ref = await scopedAssessment(ctx, input);
      Object.assign(ctx.responseHeaders, SENSITIVE_RESPONSE_HEADERS);
      return ctx.services.passwords.revealAssessment(by(ctx), ref.courseId, ref.contentId);
    }),
  }),
});
