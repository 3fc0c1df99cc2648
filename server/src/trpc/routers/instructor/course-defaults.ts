import { z } from 'zod';
import { auditedBy as by } from '../../../audit/audited.js';
import { requireSessionCourse } from '../../../domain/assessments/scope.js';
import { redactCourseDefaults } from '../../../domain/settings/model.js';
import { router } from '../../init.js';
import { courseIdInput, courseInput, instructorMutation, instructorQuery, passwordInput, urlRulesInput } from './procedures.js';

/** The session course's defaults and tool catalog, and copying a catalog tool into the instructor's other courses. */

export const courseDefaultsRouter = router({
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
});

export const examToolsRouter = router({
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
});
