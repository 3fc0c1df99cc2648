/**
 * The contract's error codes for refused policies, and the result shapes every validator of this folder returns: the
 * normalized value, or an error with the code and the path into the submitted body.
 */
import type { z } from 'zod';
import { ErrorCodes, type ErrorCode } from '../error-codes.js';
import { policyMessage, schemaPolicyMessage, type PolicyMessage, type PolicyMessageKey, type PolicyMessageValue } from './messages.js';

export const EXB_POLICY_ERROR_CODES = [
  ErrorCodes.INVALID_EXB_URL_POLICY,
  ErrorCodes.INVALID_EXB_DOMAIN_POLICY,
  ErrorCodes.INVALID_EXB_TOOL_POLICY,
  ErrorCodes.INVALID_EXB_TOOL_SELECTION,
  ErrorCodes.QUIZ_TOOL_DEFINITIONS_NOT_ALLOWED,
] as const satisfies readonly ErrorCode[];

export type ExbPolicyErrorCode = (typeof EXB_POLICY_ERROR_CODES)[number];

export type PolicyPath = (string | number)[];

export interface ExbPolicyError {
  readonly errorCode: ExbPolicyErrorCode;
  /**
   * Human-readable, in the words of the forms that submit the value (never field names), and free of the submitted
   * value, so it can be returned as is; the one exception is a host name once it passed the host name rule.
   */
  readonly message: string;
  /**
   * The message's key in the `policy` catalogue namespace and its values, so a page shows it in its own language.
   * Absent only on a shape error that zod worded itself (a request no form of the service sends).
   */
  readonly messageKey?: PolicyMessageKey;
  readonly values?: Readonly<Record<string, PolicyMessageValue>>;
  /** Where in the submitted body the problem is, e.g. `['externalTools', 2, 'resourceRules', 0, 'value']`. */
  readonly path: PolicyPath;
}

export type PolicyResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ExbPolicyError };

/** Outcome of a single value check, before a caller attaches the error code and path of its context. */
export type ValueCheck<T> = { readonly ok: true; readonly value: T } | ({ readonly ok: false } & PolicyMessage);

/** A failed value check: the message `messageKey` with its `values`. */
export function refuse(messageKey: PolicyMessageKey, values?: Readonly<Record<string, PolicyMessageValue>>): { ok: false } & PolicyMessage {
  return { ok: false, ...policyMessage(messageKey, values) };
}

/**
 * A refusal with the code and path of the context that found it, saying `said`: a message of the rules (or a failed
 * value check, whose message it takes), or only the text of a shape error zod worded.
 */
export function fail(
  errorCode: ExbPolicyErrorCode,
  said: PolicyMessage | { readonly message: string; readonly messageKey?: undefined },
  path: PolicyPath,
): { ok: false; error: ExbPolicyError } {
  const { message, messageKey, values } = said as Partial<PolicyMessage> & { message: string };
  const key = messageKey === undefined ? {} : values === undefined ? { messageKey } : { messageKey, values };
  return { ok: false, error: { errorCode, message, ...key, path } };
}

/** A refusal from a shape check: zod's first issue, its path appended to the context's. */
export function firstZodIssue(error: z.ZodError, errorCode: ExbPolicyErrorCode, path: PolicyPath) {
  const issue = error.issues[0];
  const known = issue === undefined ? policyMessage('invalidValue') : schemaPolicyMessage(issue.message);
  return fail(errorCode, known ?? { message: issue!.message }, [...path, ...((issue?.path ?? []) as PolicyPath)]);
}
