import { z } from 'zod';

/**
 * What the last LMS check of an enforced assessment found: its access code is `verified` in place, `missing` from the
 * quiz, or `stale` (another code is set there); `unverified` marks records whose code was never checked, or whose
 * check could not be made. The stored column, the service's answers and the teacher's view all take it from here.
 */
export const VERIFICATION_STATUSES = ['verified', 'missing', 'stale', 'unverified'] as const;
export const verificationStatusSchema = z.enum(VERIFICATION_STATUSES);
export type VerificationStatus = z.infer<typeof verificationStatusSchema>;
