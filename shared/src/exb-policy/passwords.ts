import { z } from 'zod';
import { EXB_POLICY_LIMITS } from './limits.js';

/**
 * A start or exit password as saved by an instructor or administrator: printable ASCII only, because the exam browser
 * clients hash typed non-ASCII input differently (the macOS client normalizes it first).
 */
export const exbPasswordSchema = z
  .string()
  .min(1)
  .max(EXB_POLICY_LIMITS.passwordLength)
  .regex(/^[\x20-\x7e]+$/, 'Use printable ASCII characters only');

/**
 * Why a password an assessment is to have of its own cannot be saved, or `null`. Choosing one means entering one: the
 * save request leaves a missing value as it was, so an empty field would be "saved" without anything changing.
 */
export function ownPasswordRefusal(which: 'start' | 'exit', value: string): string | null {
  if (value === '') return `Enter the ${which} password for this assessment, or choose “Keep as it is” to leave it unchanged`;
  const parsed = exbPasswordSchema.safeParse(value);
  if (parsed.success) return null;
  return value.length > EXB_POLICY_LIMITS.passwordLength
    ? `Use at most ${EXB_POLICY_LIMITS.passwordLength} characters`
    : (parsed.error.issues[0]?.message ?? 'Use printable ASCII characters only');
}
