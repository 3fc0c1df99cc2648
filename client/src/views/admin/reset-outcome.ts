import { z } from 'zod';
import { readServerError, type RouterOutputs } from '../../lib/trpc';

export type ResetPreview = RouterOutputs['admin']['courses']['resetPreview'];
export type ResetSuccess = RouterOutputs['admin']['courses']['reset'];

const namedAssessmentSchema = z.object({
  id: z.string(),
  title: z.string(),
  contentType: z.enum(['CLASSIC_QUIZ', 'NEW_QUIZ']),
});
export type NamedAssessment = z.infer<typeof namedAssessmentSchema>;

/** The fields a course reset's refusal carries beside its message (server: `course-reset/reset-refusals.ts`). */
const refusalDetailsSchema = z.object({
  outcome: z.enum(['refused', 'rolled-back', 'verify-required']),
  assessments: z.array(namedAssessmentSchema).optional(),
});

/**
 * How a reset ended, as the dialog states it:
 * - `done`: the course is reset;
 * - `rolled-back`: it stopped after changing something and undid every change: nothing lost;
 * - `refused`: it stopped before changing anything;
 * - `verify`: the state of the named assessments is unknown or could not be restored: check them.
 */
export type ResetOutcome =
  | { readonly kind: 'done'; readonly result: ResetSuccess }
  | { readonly kind: 'rolled-back' | 'refused' | 'verify'; readonly message: string; readonly assessments: readonly NamedAssessment[] };

export type FailedReset = Exclude<ResetOutcome, { kind: 'done' }>;

export function failedOutcome(error: unknown): FailedReset {
  const refusal = readServerError(error);
  const details = refusalDetailsSchema.safeParse(refusal.details);
  const assessments = details.success ? (details.data.assessments ?? []) : [];
  if (!details.success) {
    // No outcome in the answer (the connection broke, or a guard refused): the reset's state is not known.
    const known = refusal.httpStatus !== undefined && refusal.httpStatus < 500;
    return { kind: known ? 'refused' : 'verify', message: refusal.message, assessments };
  }
  const kind = details.data.outcome === 'verify-required' ? 'verify' : details.data.outcome;
  return { kind, message: refusal.message, assessments };
}
