import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { Principal } from '../domain/principal.js';
import { LtiError } from '../lti/errors.js';
import { verifyIdToken } from '../lti/id-token.js';
import { readLaunchEnvelope } from '../lti/launch-envelope.js';
import type { LaunchTarget } from '../lti/launch-target.js';
import { LOGIN_STATE_PURPOSE, loginStateSchema, type LoginState } from '../lti/login-state.js';
import { resolveLaunchOutcome } from '../lti/roles.js';
import { sessionCookieOptions } from '../security/session-cookie.js';
import { readSession, startSession } from '../security/session.js';
import {
  lmsHomeUrl,
  recentExbLaunches,
  sendExbLaunch,
  sendLtiError,
  sendNotAuthorized,
  sendRateLimited,
  sendRoleView,
} from './launch-pages.js';

const refuse = (code: LtiError['code'], message: string) =>
  new LtiError(code, 400, 'The launch could not be verified', message);

/**
 * The launch (Document 1, `POST /lti/launch`; Document 3, `POST /exb/launch/:contentId`), one implementation for both
 * endpoints. The ten steps run in the contract's order; each refusal ends the chain with its own code.
 *
 * `endpointTarget` is the endpoint's own target for `/exb/launch/:contentId`. `/lti/launch` is the redirect URI of every
 * login, so there it is absent and the token's (validated) target decides what the launch shows.
 */
export async function runLaunch(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
  endpointTarget?: LaunchTarget,
): Promise<FastifyReply> {
  const { config, oneTimeStore, ltiAdmission, transactionBinder } = ctx;
  try {
    // 1. Envelope: the LMS's error answer, presence, type and size of state and id_token. No key, no database.
    const envelope = readLaunchEnvelope(request.body);

    // 2. Admission per client address, process-local first so a flood costs no database round trip.
    if (!(await ltiAdmission.launch(request.ip)).allowed) return sendRateLimited(reply, ctx);

    // 3. Peek the login state without consuming it.
    const parsedState = loginStateSchema.safeParse(await oneTimeStore.peek(LOGIN_STATE_PURPOSE, envelope.state));
    if (!parsedState.success) {
      throw refuse('LTI_LAUNCH_STATE_INVALID', 'This launch is unknown, expired or already used. Open the tool again from the LMS.');
    }
    const state: LoginState = parsedState.data;

    // 4. The browser that posts the launch must hold the transaction cookie of the login that created the state.
    const transaction = transactionBinder.check(request.cookies, state.transactionBinding);
    if (transaction !== 'ok') {
      throw refuse(
        transaction === 'missing' ? 'LTI_LAUNCH_TRANSACTION_MISSING' : 'LTI_LAUNCH_TRANSACTION_MISMATCH',
        'This launch was started in another browser or its sign-in cookie was blocked. Open the tool again from the LMS; if this repeats, allow cookies for this tool.',
      );
    }

    // 5. Per-state budget: caps how many tokens can be tried against one state.
    if (!(await ltiAdmission.launchState(envelope.state)).allowed) return sendRateLimited(reply, ctx);

    // 6. The id_token itself.
    const claims = await verifyIdToken(envelope.idToken, ctx.platformKeys, {
      issuer: config.lti.issuer,
      clientId: config.lti.clientId,
      nonce: state.nonce,
      baseUrl: config.baseUrl,
      deploymentIds: config.lti.deploymentIds,
      deploymentIdCheckingEnabled: config.lti.deploymentIdCheckingEnabled,
      ...(endpointTarget ? { endpointTarget } : {}),
    });

    // 7. The token must answer this login: same issuer, deployment and target as the login asked for.
    if (claims.issuer !== state.issuer) {
      throw refuse('LTI_BINDING_ISSUER', 'The launch token comes from another LMS than the login.');
    }
    if (state.deploymentId !== undefined && claims.deploymentId !== state.deploymentId) {
      throw refuse('LTI_BINDING_DEPLOYMENT', 'The launch token names another deployment than the login.');
    }
    if (claims.target.path !== state.target) {
      throw refuse('LTI_BINDING_TARGET', 'The launch token was issued for another page than the login asked for.');
    }

    // 8. Claim the state: one conditional update, so of two concurrent posts exactly one proceeds.
    if ((await oneTimeStore.consume(LOGIN_STATE_PURPOSE, envelope.state)) === null) {
      throw refuse('LTI_LAUNCH_STATE_REPLAYED', 'This launch was already used. Open the tool again from the LMS.');
    }
    reply.clearCookie(transactionBinder.cookieName(state.transactionBinding), sessionCookieOptions(config.baseUrl));

    const outcome = resolveLaunchOutcome(claims);
    if (outcome.kind !== 'principal') {
      // Whoever this launch identified gets no principal, and no earlier one survives in this browser.
      request.session.delete();
      if (outcome.kind === 'deep-linking') {
        throw new LtiError(
          'LTI_DEEP_LINKING_UNSUPPORTED',
          410,
          'Adding content is not supported',
          'This tool does not offer content to add to a course. Open it from the course or account navigation instead.',
        );
      }
      return sendNotAuthorized(reply, ctx);
    }

    // 9 and 10. A new session id, carrying the verified principal.
    const session = establishSession(request, ctx, outcome.principal, claims.target);
    return claims.target.kind === 'exb'
      ? await sendExbLaunch(request, reply, ctx, session, claims.target.contentId)
      : sendRoleView(reply, ctx, session);
  } catch (error) {
    if (error instanceof LtiError) {
      if (error.code === 'LmsLtiConfigurationError') request.session.delete();
      return sendLtiError(reply, ctx, error);
    }
    throw error;
  }
}

/**
 * Replaces the browser's session with a fresh id (a session fixed before the launch is worthless after it). Completed
 * exam-browser launches of the same person carry over, so a relaunch after the assessment still goes to the course home.
 */
function establishSession(request: FastifyRequest, ctx: AppContext, principal: Principal, target: LaunchTarget) {
  const previous = readSession(request);
  const samePerson =
    previous !== null &&
    previous.principal.issuer === principal.issuer &&
    previous.principal.lmsUserId === principal.lmsUserId &&
    previous.principal.ltiSubject === principal.ltiSubject;
  return startSession(request, {
    principal,
    launchTarget: target.path,
    lmsReturnUrl: lmsHomeUrl(ctx.config.lmsUrl, principal),
    exbLaunches: samePerson ? recentExbLaunches(previous.exbLaunches) : {},
  });
}
