import { auditedBy as by } from '../../../audit/audited.js';
import { requireSessionCourse } from '../../../domain/assessments/scope.js';
import { SENSITIVE_RESPONSE_HEADERS } from '../../../security/sensitive-headers.js';
import { router } from '../../init.js';
import { assessmentInput, courseInput, instructorMutation, scopedAssessment } from './procedures.js';

/** Revealing the effective start and exit passwords; the answer must never be cached. */

export const passwordsRouter = router({
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
});
