import { z } from 'zod';
import { EXB_POLICY_LIMITS, checkNoQuizToolDefinitions } from '@exb/shared/exb-policy.js';
import { normalizeContentId } from '@exb/shared/content-id.js';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { auditedBy as by } from '../../../audit/audited.js';
import { requireSessionCourse } from '../../../domain/assessments/scope.js';
import { DomainError } from '../../../domain-error.js';
import { policyError } from '../../../domain/policy-errors.js';
import { router } from '../../init.js';
import {
  ASSESSMENT_ID_MAX_LENGTH,
  assessmentIdInput,
  courseIdInput,
  instructorMutation,
  instructorQuery,
  passwordInput,
  urlRulesInput,
} from './procedures.js';

/** An assessment's own URL and tool policy, and the rewrite of stored URL rules the exam browser reads differently. */

/** Structured save: one assessment named by `contentId` (new quiz) or `quizId` (classic content id or bare id). */
function structuredTarget(input: { contentId?: string | undefined; quizId?: string | undefined }): string {
  const given = [input.contentId, input.quizId].filter((value): value is string => value !== undefined);
  if (given.length === 0) throw new DomainError(ErrorCodes.INVALID_REQUEST, 'Name the assessment with contentId or quizId.');
  const normalized = new Set(given.map((value) => normalizeContentId(value) ?? value));
  if (normalized.size > 1) throw new DomainError(ErrorCodes.INVALID_REQUEST, 'contentId and quizId name different assessments.');
  return given[0]!;
}

export const policyRouter = router({
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
});

export const urlRulesRouter = router({
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
});
