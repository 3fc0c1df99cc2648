import { z } from 'zod';
import { contentTypeSchema } from '../settings/model.js';

/**
 * The shapes of a course reset (Document 2, "Course reset"). Everything that leaves the server or is read back from the
 * database is a zod schema here; the captured access codes are the one secret, and they only ever live in memory for
 * the duration of one reset (`CapturedAssessment.code`), never in a preview, an answer, a receipt, an audit entry or a
 * log line.
 */

const contentId = z.string().min(1).max(100);
const lmsId = z.string().regex(/^\d{1,20}$/);

/** An assessment as the reset names it to people: what to check, what was cleared. */
export const resetAssessmentSchema = z.object({
  id: contentId,
  title: z.string().max(500),
  contentType: contentTypeSchema,
});
export type ResetAssessment = z.infer<typeof resetAssessmentSchema>;

/** An assessment the service enforces (a stored setting that requires the exam browser or holds a code). */
export const enforcedAssessmentSchema = resetAssessmentSchema.extend({ lmsAssessmentId: lmsId });
export type EnforcedAssessment = z.infer<typeof enforcedAssessmentSchema>;

/**
 * What the preflight found in the LMS for one enforced assessment:
 * - `code`: it has an access code now, captured exactly, which the LMS phase removes and a compensation restores;
 * - `no-code`: the LMS shows no code (nothing to remove);
 * - `gone`: the LMS no longer has the assessment (nothing to remove, nothing to restore).
 */
export type LmsCodeState = 'code' | 'no-code' | 'gone';

export interface CapturedAssessment extends EnforcedAssessment {
  readonly state: LmsCodeState;
  /** The exact code as the LMS holds it when `state` is `code`; `null` otherwise. Never leaves the process. */
  readonly code: string | null;
}

/** The read-only result of the preflight: what a reset of the course would change. */
export interface ResetPlan {
  readonly courseId: string;
  readonly courseName: string;
  /** Every assessment with a local record (cached, or with a setting), in content id order. */
  readonly assessments: readonly ResetAssessment[];
  /** The enforced ones, in content id order, with what the LMS holds for each. */
  readonly enforced: readonly CapturedAssessment[];
}

/** The dialog's preview (`admin.courses.resetPreview`): the plan without any secret. */
export const resetPreviewSchema = z.object({
  success: z.literal(true),
  courseId: lmsId,
  courseName: z.string(),
  assessmentsCleared: z.number().int().nonnegative(),
  accessCodesRemoved: z.number().int().nonnegative(),
  assessments: z.array(
    resetAssessmentSchema.extend({
      enforced: z.boolean(),
      /** `code`: its access code is removed in the LMS; `no-code` or `gone`: nothing to remove there. */
      lms: z.enum(['code', 'no-code', 'gone']).nullable(),
    }),
  ),
});
export type ResetPreview = z.infer<typeof resetPreviewSchema>;

/** The durable receipt stored on the connection record by the reset's transaction. */
export const resetReceiptSchema = z.object({
  receiptId: z.uuid(),
  courseId: lmsId,
  resetAt: z.iso.datetime({ offset: true }),
  byLmsUserId: lmsId,
  assessmentsCleared: z.number().int().nonnegative(),
  accessCodesRemoved: z.number().int().nonnegative(),
  /** Content ids whose access codes were removed in the LMS. */
  removedCodeIds: z.array(contentId).max(10_000),
  resetGeneration: z.number().int().positive(),
});
export type ResetReceipt = z.infer<typeof resetReceiptSchema>;

/** The success body of `POST /api/admin/courses/:courseId/reset`. */
export const resetSuccessSchema = z.object({
  success: z.literal(true),
  courseId: lmsId,
  assessmentsCleared: z.number().int().nonnegative(),
  accessCodesRemoved: z.number().int().nonnegative(),
  receipt: z.object({ id: z.uuid(), resetAt: z.iso.datetime({ offset: true }) }),
});
export type ResetSuccess = z.infer<typeof resetSuccessSchema>;

/** How a reset ended, as the audit trail and the refusal details name it. */
export type ResetOutcomeKind = 'success' | 'refused' | 'rolled-back' | 'verify-required' | 'failed';
