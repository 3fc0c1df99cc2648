import { ADMIN_AND_APPLICATION_SCOPES, ADMIN_SCOPES, APPLICATION_SCOPES, EXAM_DAY_SCOPES } from '@exb/shared/oauth-scopes.js';

/** Which scope set an authorization requests (Document 1, "OAuth authorization state"). */
export type ScopeProfile = 'admin' | 'application';

/** The grant type of the token record. */
export type GrantType = 'instructor' | 'account_admin';

/** Whether an authorization also asks for the exam-day board's read scopes (`LMS_OAUTH_EXAM_DAY_SCOPES`). */
export interface ScopeOptions {
  readonly examDay?: boolean;
}

export function scopesForProfile(profile: ScopeProfile, options: ScopeOptions = {}): readonly string[] {
  const scopes = profile === 'admin' ? ADMIN_AND_APPLICATION_SCOPES : APPLICATION_SCOPES;
  return options.examDay === true ? [...scopes, ...Object.values(EXAM_DAY_SCOPES)] : scopes;
}

/**
 * `account_admin` when the scope set carries the administrator scopes, else `instructor`. All of them are required: a
 * record only claims administrator capability when it can actually make every administrator call.
 */
export function grantTypeForScopes(scopes: readonly string[]): GrantType {
  const granted = new Set(scopes);
  return ADMIN_SCOPES.every((scope) => granted.has(scope)) ? 'account_admin' : 'instructor';
}

/**
 * The profile an authorization start requests: the administrator set for the administrator start, and for every
 * other start whenever the user already holds an administrator grant, so reauthorizing never narrows that grant.
 */
export function profileForStart(endpointProfile: ScopeProfile, existingGrantType: GrantType | null): ScopeProfile {
  return endpointProfile === 'admin' || existingGrantType === 'account_admin' ? 'admin' : 'application';
}

/** The LMS's `scope` parameter: one value, space-separated (note §3.1). */
export function scopeParameter(profile: ScopeProfile, options: ScopeOptions = {}): string {
  return scopesForProfile(profile, options).join(' ');
}
