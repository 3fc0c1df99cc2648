/** Validators as zod schemas for route inputs, and the policy error read back from a failed parse. */
import { z } from 'zod';
import {
  EXB_POLICY_ERROR_CODES,
  type ExbPolicyError,
  type ExbPolicyErrorCode,
  type PolicyPath,
  type PolicyResult,
} from './errors.js';
import { isPolicyMessageKey, type PolicyMessageValue } from './messages.js';

/**
 * Turns a validator into a zod schema for route inputs. A failure becomes one custom issue whose `params` carry the
 * contract code and the message's key and values; {@link policyErrorFromZod} reads them back.
 */
export function policySchema<T>(validate: (input: unknown) => PolicyResult<T>) {
  return z.unknown().transform((input, ctx): T => {
    const result = validate(input);
    if (result.ok) return result.value;
    ctx.addIssue({
      code: 'custom',
      message: result.error.message,
      path: result.error.path,
      params: { errorCode: result.error.errorCode, messageKey: result.error.messageKey, values: result.error.values },
    });
    return z.NEVER;
  });
}

/** The policy error behind a zod error raised by a {@link policySchema}, or `null` for any other failure. */
export function policyErrorFromZod(error: z.ZodError): ExbPolicyError | null {
  for (const issue of error.issues) {
    const params = issue.code === 'custom' ? (issue.params as { errorCode?: unknown; messageKey?: unknown; values?: unknown } | undefined) : undefined;
    const code = params?.errorCode;
    if (typeof code === 'string' && (EXB_POLICY_ERROR_CODES as readonly string[]).includes(code)) {
      const key = isPolicyMessageKey(params?.messageKey)
        ? { messageKey: params.messageKey, ...(params.values !== undefined ? { values: params.values as Readonly<Record<string, PolicyMessageValue>> } : {}) }
        : {};
      return { errorCode: code as ExbPolicyErrorCode, message: issue.message, ...key, path: issue.path as PolicyPath };
    }
  }
  return null;
}
