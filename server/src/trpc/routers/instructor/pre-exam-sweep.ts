import { z } from 'zod';
import { auditedBy as by } from '../../../audit/audited.js';
import { alertView } from '../../../domain/pre-exam-sweep/alert-view.js';
import { router } from '../../init.js';
import { instructorMutation, instructorQuery } from './procedures.js';

/** Exam day: drift the pre-exam sweep found before a start, and the course's choice of automatic repairs. */
export const preExamSweepRouter = router({
  alerts: instructorQuery.query(async ({ ctx }) => ({
    alerts: (await ctx.services.sweepRecords.courseAlerts(ctx.principal.courseId, new Date())).map(alertView),
  })),
  option: instructorQuery.query(async ({ ctx }) => ({ autoRepairBeforeStart: await ctx.services.sweepOption.get(ctx.principal.courseId) })),
  setOption: instructorMutation.input(z.object({ autoRepairBeforeStart: z.boolean() })).mutation(async ({ ctx, input }) => ({
    success: true as const,
    autoRepairBeforeStart: await ctx.services.sweepOption.set(by(ctx), ctx.principal.courseId, input.autoRepairBeforeStart),
  })),
});
