import { z } from 'zod';

/**
 * Helping one student on exam day (issue "Exam day" §3): the exemption from the exam browser and the code sheet for an
 * outage. The rules both the server and the views apply live here once.
 */

/** How long a granted exemption waits for the student to use it; one constant for the service and the views. */
export const EXEMPTION_TTL_SECONDS = 600;

/** The longest reason an intervention may give; the audit trail keeps it whole. */
export const HELP_REASON_MAX_LENGTH = 500;

/** A required reason: trimmed, not empty, bounded, one paragraph (no control characters). */
export const helpReasonSchema = z
  .string()
  .max(HELP_REASON_MAX_LENGTH * 2)
  .transform((value) => value.trim())
  .pipe(
    z
      .string()
      .min(1, 'Give a reason.')
      .max(HELP_REASON_MAX_LENGTH)
      // eslint-disable-next-line no-control-regex
      .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), 'The reason is one line of text.'),
  );

/** A student named by their numeric LMS user id. */
export const helpStudentIdSchema = z.string().regex(/^\d{1,20}$/, 'must be a numeric LMS user id');

/** The most assessments one code sheet may list (one outage, a school's exams of the hour). */
export const CODE_SHEET_MAX_ASSESSMENTS = 100;

/** What a student's own page learns of an exemption granted to them: never the code, which the release returns. */
export const exemptionOfferSchema = z.object({
  contentId: z.string().min(1),
  title: z.string(),
  /** When the offer lapses (ISO); the page says so once it has. */
  expiresAt: z.iso.datetime(),
  /** Set once the code was shown: the page says it was used. */
  usedAt: z.iso.datetime().nullable(),
});
export type ExemptionOffer = z.infer<typeof exemptionOfferSchema>;

/** The answer of a granted exemption: who may use it, until when; never the code. */
export interface ExemptionGranted {
  readonly success: true;
  readonly courseId: string;
  readonly assessmentId: string;
  readonly lmsUserId: string;
  readonly expiresAt: string;
  readonly expiresInSeconds: number;
}

/** One line of a code sheet. */
export interface CodeSheetLine {
  readonly courseId: string;
  readonly courseName: string;
  readonly assessmentId: string;
  readonly title: string;
  /** The code the service releases now; `null` when the assessment is not enforced or holds no code. */
  readonly accessCode: string | null;
}

export interface CodeSheet {
  readonly success: true;
  readonly generatedAt: string;
  readonly lines: CodeSheetLine[];
}
