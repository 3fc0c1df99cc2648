import { z } from 'zod';
import { exbPasswordSchema, normalizeUrlRules, policySchema } from '@exb/shared/exb-policy.js';
import { requireSessionCourse, type AssessmentRef } from '../../../domain/assessments/scope.js';
import type { ManagementServices } from '../../../domain/management-services.js';
import { reauthorizeUrl } from '../../../oauth/reauthorize.js';
import { rethrowAsDomainRefusal } from '../../error-mapping.js';
import { principalProcedure } from '../../init.js';

/**
 * The guards and inputs of the instructor's management API (Document 2, `/api/quizzes`). Every procedure acts inside
 * the session's course: course ids in the input must equal it and assessments must belong to it. Mutations also pass
 * the Fetch Metadata check and are refused while the course is being reset.
 */

const instructor = principalProcedure('instructor').use(({ ctx, next }) =>
  next({
    ctx: {
      ...ctx,
      services: ctx.app.management,
      /** The LMS acting with the instructor's own grant, bound to the signed identity. */
      lms: ctx.app.lms.forPrincipal(ctx.principal),
    },
  }),
);

/** Lower-layer failures leave as the contract's refusals; an expired grant points at the re-authorization start. */
export const withRefusals = instructor.use(async ({ ctx, next }) => {
  const result = await next();
  if (!result.ok) rethrowAsDomainRefusal(result.error, { reauthorizeUrl: reauthorizeUrl(ctx.principal) });
  return result;
});

/** Nothing course-scoped runs until the LMS proved the user and the course (`identity/identity-service.ts`). */
const provenCourse = withRefusals.use(async ({ ctx, next }) => {
  await ctx.app.identity.requireCourse(ctx.principal);
  return next();
});

export const instructorQuery = provenCourse;

// The cross-site guard of mutations runs before all of this (`publicProcedure`). Every mutation reveals a secret or
// writes a course setting, so the LMS must still list the instructor in the course (re-confirmed every few minutes).
export const instructorMutation = provenCourse.use(async ({ ctx, next }) => {
  await ctx.app.identity.requireInstructor(ctx.principal);
  await ctx.services.locks.assertNoReset(ctx.principal.courseId);
  return next();
});

export const courseIdInput = z.string().max(64);
// Far longer than any content id and only bounded to keep hostile input cheap: an id that is not canonical is the
// contract's 404 ASSESSMENT_NOT_FOUND (answered by the scope), not a 400 of the input check.
export const ASSESSMENT_ID_MAX_LENGTH = 2048;
export const assessmentIdInput = z.union([z.string().max(ASSESSMENT_ID_MAX_LENGTH), z.number().int().nonnegative()]).transform(String);
export const passwordInput = exbPasswordSchema.nullable().optional();
export const urlRulesInput = policySchema((input) => normalizeUrlRules(input)).optional();

export const courseInput = z.object({ courseId: courseIdInput });
export const assessmentInput = z.object({ courseId: courseIdInput, quizId: assessmentIdInput });

type Ctx = { principal: { courseId: string }; services: ManagementServices };

/** An assessment of the session course, named by a course-scoped path. */
export async function scopedAssessment(ctx: Ctx, input: { courseId: string; quizId: string }): Promise<AssessmentRef> {
  const courseId = requireSessionCourse(ctx.principal.courseId, input.courseId);
  return ctx.services.scope.resolve(courseId, input.quizId);
}
