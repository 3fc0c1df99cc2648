import { resolveLaunchOutcome } from './launch-principal.js';
import type { Principal } from '../identity/principal.js';
import type { BrowserRequest, LtiDependencies } from './dependencies.js';
import { LtiError, rateLimitedError, type RefusalKey } from './errors.js';
import { verifyIdToken, type LaunchClaims } from './id-token.js';
import { readLaunchEnvelope } from './launch-envelope.js';
import type { LaunchTarget } from './launch-target.js';
import { checkStoredValues, readStorageFields, storageKeys, type BrowserBindingPath, type PlatformStorageRead } from './platform-storage.js';

export interface LaunchAttempt extends BrowserRequest {
  /** The posted form. */
  readonly body: unknown;
  /**
   * The endpoint's own target for `/exb/launch/:contentId`. `/lti/launch` is the redirect URI of every login, so there
   * it is absent and the token's (validated) target decides what the launch shows.
   */
  readonly endpointTarget?: LaunchTarget;
  /** Aborts when the client has gone: its login state is then not claimed. */
  readonly signal?: AbortSignal;
}

/**
 * Steps 1 to 8: the state is claimed (its transaction cookie is spent), or the first failed check, or (a login that
 * used platform storage, posted by a browser without the cookie) the storage entries to read back before the launch
 * is posted again with them.
 */
export type ClaimOutcome =
  | { readonly ok: true; readonly claims: LaunchClaims; readonly transactionCookie: string; readonly binding: BrowserBindingPath }
  | { readonly ok: false; readonly error: LtiError }
  | { readonly ok: false; readonly error: null; readonly readStorage: PlatformStorageRead; readonly idToken: string; readonly state: string };

/** After the claim: the verified principal, or why there is none (`error: null`: the role is not authorized). */
export type IdentifyOutcome =
  | { readonly ok: true; readonly principal: Principal; readonly target: LaunchTarget }
  | { readonly ok: false; readonly error: LtiError | null; readonly administratorInCourse?: true };

const refuse = (code: LtiError['code'], key: RefusalKey) => new LtiError(code, 'launchNotVerified', { key });

/**
 * The launch (Document 1, `POST /lti/launch`; Document 3, `POST /exb/launch/:contentId`), one implementation for both
 * endpoints. The ten steps run in the contract's order; each refusal ends the chain with its own code. The chain is
 * split where the login state is claimed, because from then on the transaction cookie is spent whatever follows:
 * {@link claimLaunch} runs steps 1 to 8, {@link identifyLaunch} decides the principal, and the route starts the
 * session (steps 9 and 10).
 */
export async function claimLaunch(deps: LtiDependencies, attempt: LaunchAttempt): Promise<ClaimOutcome> {
  const { config, ltiAdmission: admission } = deps;
  try {
    // 1. Envelope: the LMS's error answer, presence, type and size of state and id_token. No key, no database.
    const envelope = readLaunchEnvelope(attempt.body);

    // 2. Admission per client address, process-local first so a flood costs no database round trip.
    if (!(await admission.launch(attempt.ip)).allowed) return { ok: false, error: rateLimitedError() };

    // 3. Peek the login state without consuming it.
    const state = await deps.loginStates.peek(envelope.state);
    if (state === null) {
      throw refuse('LTI_LAUNCH_STATE_INVALID', 'stateInvalid');
    }

    // 4. The browser that posts the launch must hold the transaction value of the login that created the state: in
    // its transaction cookie, or, where the login put it into the LMS's platform storage and the browser kept no
    // cookie, read back from there by the launch page (the form then carries it with the nonce).
    let binding: BrowserBindingPath = 'cookie';
    let transaction = deps.transactionBinder.check(attempt.cookies, state.transactionBinding);
    if (transaction === 'missing' && state.storageTarget !== undefined) {
      const stored = readStorageFields(attempt.body);
      if (stored === undefined) {
        const readStorage: PlatformStorageRead = {
          target: state.storageTarget,
          platformOrigin: new URL(config.lti.authUrl).origin,
          ...storageKeys(envelope.state, state.nonce),
        };
        return { ok: false, error: null, readStorage, idToken: envelope.idToken, state: envelope.state };
      }
      binding = 'platform-storage';
      transaction = checkStoredValues(deps.transactionBinder, state, stored);
    }
    if (transaction !== 'ok') {
      throw refuse(transaction === 'missing' ? 'LTI_LAUNCH_TRANSACTION_MISSING' : 'LTI_LAUNCH_TRANSACTION_MISMATCH', 'transaction');
    }

    // 5. Per-state budget: caps how many tokens can be tried against one state.
    if (!(await admission.launchState(envelope.state)).allowed) return { ok: false, error: rateLimitedError() };

    // 6. The id_token itself.
    const claims = await verifyIdToken(envelope.idToken, deps.platformKeys, {
      issuer: config.lti.issuer,
      clientId: config.lti.clientId,
      nonce: state.nonce,
      baseUrl: config.baseUrl,
      deploymentIds: config.lti.deploymentIds,
      deploymentIdCheckingEnabled: config.lti.deploymentIdCheckingEnabled,
      ...(attempt.endpointTarget ? { endpointTarget: attempt.endpointTarget } : {}),
    });

    // 7. The token must answer this login: same issuer, deployment and target as the login asked for.
    if (claims.issuer !== state.issuer) {
      throw refuse('LTI_BINDING_ISSUER', 'bindingIssuer');
    }
    if (state.deploymentId !== undefined && claims.deploymentId !== state.deploymentId) {
      throw refuse('LTI_BINDING_DEPLOYMENT', 'bindingDeployment');
    }
    if (claims.target.path !== state.target) {
      throw refuse('LTI_BINDING_TARGET', 'bindingTarget');
    }

    // 8. Claim the state: one conditional update, so of two concurrent posts exactly one proceeds.
    if (!(await deps.loginStates.claim(envelope.state, attempt.signal))) {
      throw refuse('LTI_LAUNCH_STATE_REPLAYED', 'stateReplayed');
    }
    return { ok: true, claims, transactionCookie: deps.transactionBinder.cookieName(state.transactionBinding), binding };
  } catch (error) {
    if (error instanceof LtiError) return { ok: false, error };
    throw error;
  }
}

/**
 * The principal of claimed launch claims: the role decision (`lti/launch-principal.ts`), then the identity
 * bindings, since the custom ids must not contradict what the LMS proved before (DESIGN.md, trust model). Any refusal
 * here ends whatever session the browser had: whoever this launch identified gets no principal, and no earlier one
 * survives in this browser.
 */
export async function identifyLaunch(deps: Pick<LtiDependencies, 'identity'>, claims: LaunchClaims): Promise<IdentifyOutcome> {
  let outcome;
  try {
    outcome = resolveLaunchOutcome(claims);
  } catch (error) {
    if (error instanceof LtiError) return { ok: false, error };
    throw error;
  }
  if (outcome.kind === 'deep-linking') {
    return { ok: false, error: new LtiError('LTI_DEEP_LINKING_UNSUPPORTED', 'deepLinking', { key: 'deepLinking' }) };
  }
  if (outcome.kind !== 'principal') {
    return { ok: false, error: null, ...(outcome.kind === 'not-authorized' && outcome.administratorInCourse ? { administratorInCourse: true } : {}) };
  }

  const conflict = await deps.identity.checkLaunch(outcome.principal);
  if (conflict !== null) {
    return { ok: false, error: refuse('LTI_IDENTITY_CONFLICT', conflict === 'user' ? 'identityConflictUser' : 'identityConflictContext') };
  }
  return { ok: true, principal: outcome.principal, target: claims.target };
}
