import type { ExbPolicyError, PolicyPath, PolicyResult } from '@exb/shared/exb-policy.js';
import { DomainError } from '../domain-error.js';

/**
 * A policy validator's refusal: the contract's 400 with its own error code, plus where in the submitted input the
 * problem is, so the policy editor can show the message at the field (the tRPC error formatter passes `path` on).
 */
export class PolicyRefusal extends DomainError {
  readonly path: PolicyPath;

  constructor(error: ExbPolicyError) {
    super(error.errorCode, error.message);
    this.name = 'PolicyRefusal';
    this.path = error.path;
  }
}

export function policyError(error: ExbPolicyError): PolicyRefusal {
  return new PolicyRefusal(error);
}

/** The validated value, or the validator's refusal thrown as a {@link PolicyRefusal}. */
export function policyValue<T>(result: PolicyResult<T>): T {
  if (!result.ok) throw policyError(result.error);
  return result.value;
}
