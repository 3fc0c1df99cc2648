import type { ExbPolicyError, PolicyMessageKey, PolicyMessageValue, PolicyPath, PolicyResult } from '@exb/shared/exb-policy.js';
import { DomainError } from '../domain-error.js';

/**
 * A policy validator's refusal: the contract's 400 with its own error code, plus where in the submitted input the
 * problem is and the message's key and values, so the policy editor can show the message at the field in the page's
 * language (the tRPC error formatter passes them on; the REST answer keeps the English message only).
 */
export class PolicyRefusal extends DomainError {
  readonly path: PolicyPath;
  readonly messageKey: PolicyMessageKey | undefined;
  readonly values: Readonly<Record<string, PolicyMessageValue>> | undefined;

  constructor(error: ExbPolicyError) {
    super(error.errorCode, error.message);
    this.name = 'PolicyRefusal';
    this.path = error.path;
    this.messageKey = error.messageKey;
    this.values = error.values;
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
