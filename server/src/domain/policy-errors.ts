import type { ExbPolicyError, PolicyResult } from '@exb/shared/exb-policy.js';
import { DomainError } from './errors.js';

/** A policy validator's refusal as the contract's 400 with its own error code. */
export function policyError(error: ExbPolicyError): DomainError {
  return new DomainError(400, error.errorCode, error.message);
}

/** The validated value, or the validator's refusal thrown as a {@link DomainError}. */
export function policyValue<T>(result: PolicyResult<T>): T {
  if (!result.ok) throw policyError(result.error);
  return result.value;
}
