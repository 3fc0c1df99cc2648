import { LtiError, type LtiErrorCode, type RefusalKey, type RefusalText } from './errors.js';
import { MAX_TARGET_LINK_URI_LENGTH, parseTargetLinkUri, type LaunchTarget } from './launch-target.js';

/**
 * Upper bounds of the login parameters. `target_link_uri` and `lti_message_hint` are the contract's; the others are
 * generous multiples of what the LMS sends (a 40-character login hint, a 14- to 20-digit client id, a deployment id of
 * a tool id and a 40-character context id), small enough that nothing oversized is ever stored or forwarded.
 */
export const LOGIN_PARAMETER_LIMITS = {
  iss: 1024,
  login_hint: 2048,
  target_link_uri: MAX_TARGET_LINK_URI_LENGTH,
  client_id: 256,
  lti_deployment_id: 256,
  deployment_id: 256,
  lti_message_hint: 8192,
  // A frame name (Canvas sends `post_message_forwarding`; the client-side postMessages also allow `_parent`).
  lti_storage_target: 255,
} as const;

type LoginParameterName = keyof typeof LOGIN_PARAMETER_LIMITS;

/** The known login parameters, each a bounded, non-empty string. */
export type LoginParameters = Partial<Record<LoginParameterName, string>>;

export interface LoginConfig {
  baseUrl: string;
  issuer: string;
  clientId: string;
  deploymentIds: readonly string[];
  deploymentIdCheckingEnabled: boolean;
}

/** A login initiation that passed every check, ready to be turned into a login state and an authorization request. */
export interface LoginRequest {
  issuer: string;
  loginHint: string;
  targetLinkUri: string;
  target: LaunchTarget;
  clientId?: string;
  deploymentId?: string;
  messageHint?: string;
  /**
   * The frame that answers the platform-storage postMessages (`lti.put_data`, `lti.get_data`), when the LMS offers
   * them: the login state can then be tied to the browser without a cookie (`lti/platform-storage.ts`).
   */
  storageTarget?: string;
}

function loginError(code: LtiErrorCode, key: RefusalKey, values?: Readonly<Record<string, string | number>>, details: RefusalText[] = []): LtiError {
  return new LtiError(code, 'toolNotOpened', values === undefined ? { key } : { key, values }, details);
}

/**
 * The login parameters of a GET query or a POST form, read the same way: each known parameter once at most, as a
 * string within its bound; empty values count as absent. Unknown parameters (the LMS adds its own) are ignored.
 */
export function readLoginParameters(source: unknown): LoginParameters {
  const input = source !== null && typeof source === 'object' ? (source as Record<string, unknown>) : {};
  const parameters: LoginParameters = {};
  for (const name of Object.keys(LOGIN_PARAMETER_LIMITS) as LoginParameterName[]) {
    const value = Object.hasOwn(input, name) ? input[name] : undefined;
    if (value === undefined) continue;
    if (typeof value !== 'string') {
      throw loginError('LTI_LOGIN_INVALID_REQUEST', 'loginParameterRepeated', { name });
    }
    if (value.length > LOGIN_PARAMETER_LIMITS[name]) {
      throw loginError('LTI_LOGIN_INVALID_REQUEST', 'loginParameterTooLong', { name, max: LOGIN_PARAMETER_LIMITS[name] });
    }
    if (value !== '') parameters[name] = value;
  }
  return parameters;
}

/**
 * Checks login parameters (already bounded by {@link readLoginParameters}) in the contract's order: presence, issuer,
 * client id, target, deployment id. Throws an {@link LtiError} (400) naming the first failed check.
 */
export function validateLoginRequest(parameters: LoginParameters, config: LoginConfig): LoginRequest {
  const missing = (['iss', 'login_hint', 'target_link_uri'] as const).filter((name) => parameters[name] === undefined);
  if (missing.length > 0) {
    throw loginError('LTI_LOGIN_INVALID_REQUEST', 'loginParametersMissing', { names: missing.join(', ') });
  }
  // The LMS renamed `deployment_id` to `lti_deployment_id`; both are read, and they must not disagree.
  const { lti_deployment_id: current, deployment_id: legacy } = parameters;
  if (current !== undefined && legacy !== undefined && current !== legacy) {
    throw loginError('LTI_LOGIN_INVALID_REQUEST', 'loginDeploymentConflict');
  }
  const deploymentId = current ?? legacy;

  if (parameters.iss !== config.issuer) {
    throw loginError('LTI_LOGIN_ISSUER', 'loginIssuer');
  }
  if (parameters.client_id !== undefined && parameters.client_id !== config.clientId) {
    throw loginError('LTI_LOGIN_CLIENT_ID', 'loginClientId');
  }
  const target = parseTargetLinkUri(parameters.target_link_uri, config.baseUrl);
  if (!target) {
    throw loginError('LTI_LOGIN_TARGET', 'loginTarget', undefined, [
      { detail: 'allowedTargets', values: { launch: `${config.baseUrl}/lti/launch`, exbLaunch: `${config.baseUrl}/exb/launch/<content id>` } },
    ]);
  }
  if (config.deploymentIdCheckingEnabled && (deploymentId === undefined || !config.deploymentIds.includes(deploymentId))) {
    throw loginError('LTI_LOGIN_DEPLOYMENT', deploymentId === undefined ? 'loginDeploymentMissing' : 'deploymentUnknown');
  }

  return {
    issuer: parameters.iss!,
    loginHint: parameters.login_hint!,
    targetLinkUri: parameters.target_link_uri!,
    target,
    ...(parameters.client_id !== undefined ? { clientId: parameters.client_id } : {}),
    ...(deploymentId !== undefined ? { deploymentId } : {}),
    ...(parameters.lti_message_hint !== undefined ? { messageHint: parameters.lti_message_hint } : {}),
    ...(parameters.lti_storage_target !== undefined ? { storageTarget: parameters.lti_storage_target } : {}),
  };
}

export interface AuthorizationRequestInput {
  authUrl: string;
  clientId: string;
  redirectUri: string;
  nonce: string;
  state: string;
  login: LoginRequest;
}

/** The OIDC authentication request (LTI 1.3 step 2) the browser is redirected to. */
export function authorizationRedirectUrl(input: AuthorizationRequestInput): string {
  const url = new URL(input.authUrl);
  const query = url.searchParams;
  query.set('scope', 'openid');
  query.set('response_type', 'id_token');
  query.set('response_mode', 'form_post');
  query.set('prompt', 'none');
  query.set('client_id', input.clientId);
  query.set('redirect_uri', input.redirectUri);
  query.set('login_hint', input.login.loginHint);
  if (input.login.messageHint !== undefined) query.set('lti_message_hint', input.login.messageHint);
  query.set('nonce', input.nonce);
  query.set('state', input.state);
  return url.toString();
}
