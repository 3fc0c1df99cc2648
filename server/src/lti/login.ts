import type { BrowserRequest, LtiDependencies } from './dependencies.js';
import { LtiError, rateLimitedError } from './errors.js';
import { LTI_LAUNCH_PATH, parseTargetLinkUri, type LaunchTarget } from './launch-target.js';
import { authorizationRedirectUrl, readLoginParameters, validateLoginRequest, type LoginParameters } from './login-request.js';
import { newNonce, type LoginState, type Transaction } from './login-state.js';
import { storageKeys, type PlatformStoragePut } from './platform-storage.js';

export interface LoginAttempt extends BrowserRequest {
  /** The GET query or the POST form. */
  readonly parameters: unknown;
  /** Set when a launch path forwards its own login: the login must name that target, or names it by default. */
  readonly requiredTarget?: LaunchTarget;
}

export type LoginOutcome =
  | {
      readonly ok: true;
      /** The LMS's authorization endpoint with the login's request. */
      readonly location: string;
      /** The transaction cookie to set, bound to the stored state. */
      readonly transaction: Transaction;
      /** Older transaction cookies of this browser to clear first, so it keeps only a few. */
      readonly staleCookies: string[];
      /**
       * Set when the LMS offers platform storage: the login page puts the transaction value and the nonce there
       * before it goes on to `location`, so the launch can prove the browser where the cookie is not kept.
       */
      readonly storage?: PlatformStoragePut;
    }
  | { readonly ok: false; readonly error: LtiError };

/**
 * LTI 1.3 login initiation (Document 1, `GET|POST /lti/login`), in the contract's order: size bounds, admission, issuer,
 * client id, target, deployment id; then a nonce, the transaction, the stored login state, and the authorization
 * request to redirect to. Every refusal is an {@link LtiError} naming the failed check.
 */
export async function startLogin(deps: LtiDependencies, attempt: LoginAttempt): Promise<LoginOutcome> {
  const { config } = deps;
  try {
    const parameters = readLoginParameters(attempt.parameters);
    if (!(await deps.ltiAdmission.login(attempt.ip)).allowed) return { ok: false, error: rateLimitedError() };
    if (attempt.requiredTarget) requireTarget(parameters, attempt.requiredTarget, config.baseUrl);
    const login = validateLoginRequest(parameters, { ...config.lti, baseUrl: config.baseUrl });

    const nonce = newNonce();
    const transaction = deps.transactionBinder.create();
    const state: LoginState = {
      nonce,
      target: login.target.path,
      issuer: login.issuer,
      transactionBinding: transaction.binding,
      ...(login.deploymentId !== undefined ? { deploymentId: login.deploymentId } : {}),
      ...(login.storageTarget !== undefined ? { storageTarget: login.storageTarget } : {}),
      createdAt: Date.now(),
    };
    const stateToken = await deps.loginStates.issue(state);
    const location = authorizationRedirectUrl({
      authUrl: config.lti.authUrl,
      clientId: config.lti.clientId,
      redirectUri: `${config.baseUrl}${LTI_LAUNCH_PATH}`,
      nonce,
      state: stateToken,
      login,
    });
    const staleCookies = deps.transactionBinder.cookiesToClear(attempt.cookies);
    if (login.storageTarget === undefined) return { ok: true, location, transaction, staleCookies };
    const { stateKey, nonceKey } = storageKeys(stateToken, nonce);
    const storage: PlatformStoragePut = {
      target: login.storageTarget,
      platformOrigin: new URL(config.lti.authUrl).origin,
      entries: [
        { key: stateKey, value: transaction.cookieValue },
        { key: nonceKey, value: nonce },
      ],
    };
    return { ok: true, location, transaction, staleCookies, storage };
  } catch (error) {
    if (error instanceof LtiError) return { ok: false, error };
    throw error;
  }
}

/** A launch path's own login names that path, or nothing (then it is filled in); any other target is refused. */
function requireTarget(parameters: LoginParameters, target: LaunchTarget, baseUrl: string): void {
  const given = parameters.target_link_uri;
  if (given === undefined) {
    parameters.target_link_uri = `${baseUrl}${target.path}`;
  } else if (parseTargetLinkUri(given, baseUrl)?.path !== target.path) {
    throw new LtiError('LTI_LOGIN_TARGET', 'toolNotOpened', { key: 'loginTargetMismatch' });
  }
}
