import { z } from 'zod';
import { bulkAssignmentInputSchema } from '@exb/shared/admin-tool-presets.js';
import { router } from '../../init.js';
import { adminMutation, adminQuery } from './procedures.js';

/**
 * Document 2's school tool presets (`/api/admin/tool-presets...`), behind the administrator guards of every other
 * administrator procedure. Ids from the input are only looked up inside the session's root account; the definition
 * is checked by the preset service with the shared policy module, so its refusals keep the contract's code and path.
 */

// Bounded only to keep hostile input cheap; the service answers ADMIN_TOOL_PRESET_NOT_FOUND for anything not a UUID.
const presetId = z.string().max(200);
const presetInput = z.object({ presetId });
// Shapes are the preset service's to check: its refusal carries the contract's code and the field's path.
const definition = { name: z.unknown().optional(), description: z.unknown().optional(), tool: z.unknown().optional() };

export const adminPresetsRouter = router({
  list: adminQuery.query(async ({ ctx }) => ({ success: true as const, presets: await ctx.admin.presets.service.list(ctx.principal.accountId) })),

  create: adminMutation.input(z.object(definition)).mutation(async ({ ctx, input }) => ({
    success: true as const,
    preset: await ctx.admin.presets.service.create({ principal: ctx.principal, requestId: ctx.requestId }, input),
  })),

  update: adminMutation.input(presetInput.extend(definition)).mutation(async ({ ctx, input }) => {
    const { presetId: id, ...body } = input;
    return { success: true as const, preset: await ctx.admin.presets.service.update({ principal: ctx.principal, requestId: ctx.requestId }, id, body) };
  }),

  delete: adminMutation
    .input(presetInput)
    .mutation(({ ctx, input }) => ctx.admin.presets.service.delete({ principal: ctx.principal, requestId: ctx.requestId }, input.presetId)),

  assignCourse: adminMutation
    .input(presetInput.extend({ courseId: z.string().max(64), assigned: z.boolean() }))
    .mutation(({ ctx, input }) =>
      ctx.admin.presets.service.assignCourse({ principal: ctx.principal, requestId: ctx.requestId }, input.presetId, input.courseId, input.assigned, ctx.lms),
    ),

  assign: adminMutation
    .input(presetInput.extend(bulkAssignmentInputSchema.shape))
    .mutation(({ ctx, input }) => {
      const { presetId: id, ...body } = input;
      return ctx.admin.presets.service.assign({ principal: ctx.principal, requestId: ctx.requestId }, id, body, ctx.lms);
    }),

  reconcile: adminMutation
    .input(presetInput.extend({ retryFailed: z.boolean().default(false) }))
    .mutation(({ ctx, input }) =>
      ctx.admin.presets.service.reconcile({ principal: ctx.principal, requestId: ctx.requestId }, input.presetId, input.retryFailed, ctx.lms),
    ),

  /** The courses whose synchronization failed, with the reason, for the dashboard's retry list. */
  failures: adminQuery.input(presetInput).query(async ({ ctx, input }) => ({
    success: true as const,
    courses: (await ctx.admin.presets.service.failures(ctx.principal.accountId, input.presetId)).map((course) => ({
      ...course,
      updatedAt: course.updatedAt.toISOString(),
    })),
  })),

  /** Who changed the preset and when, from the audit trail. */
  history: adminQuery.input(presetInput).query(async ({ ctx, input }) => ({
    success: true as const,
    entries: await ctx.admin.presets.service.history(ctx.principal.accountId, input.presetId),
  })),
});
