import { z } from 'zod';
import { EXB_POLICY_LIMITS } from './limits.js';
import { policyMessage, schemaMessage, type PolicyMessage } from './messages.js';

const PRINTABLE_ASCII = schemaMessage('password.printableAscii');

/**
 * A start or exit password as saved by an instructor or administrator: printable ASCII only, because the exam browser
 * clients hash typed non-ASCII input differently (the macOS client normalizes it first).
 */
export const exbPasswordSchema = z
  .string()
  .min(1)
  .max(EXB_POLICY_LIMITS.passwordLength)
  .regex(/^[\x20-\x7e]+$/, PRINTABLE_ASCII.message);

/**
 * Why a password an assessment is to have of its own cannot be saved, or `null`. Choosing one means entering one: the
 * save request leaves a missing value as it was, so an empty field would be "saved" without anything changing.
 */
export function ownPasswordProblem(which: 'start' | 'exit', value: string): PolicyMessage | null {
  if (value === '') return policyMessage(which === 'start' ? 'password.startMissing' : 'password.exitMissing');
  if (value.length > EXB_POLICY_LIMITS.passwordLength) return policyMessage('password.tooLong', { max: EXB_POLICY_LIMITS.passwordLength });
  return exbPasswordSchema.safeParse(value).success ? null : PRINTABLE_ASCII;
}

/** The English words of {@link ownPasswordProblem}. */
export function ownPasswordRefusal(which: 'start' | 'exit', value: string): string | null {
  return ownPasswordProblem(which, value)?.message ?? null;
}
