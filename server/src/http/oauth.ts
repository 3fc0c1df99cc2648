import { ErrorCodes, type ErrorCode } from '@exb/shared/error-codes.js';
import {
  AUTHORIZATION_STARTS,
  authorizationStartPath,
  POPUP_TICKET_PARAM,
  POPUP_TICKET_PATH,
  type AuthorizationStart,
} from '@exb/shared/oauth-popup-ticket.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { CALLBACK_FAILURE_MESSAGES, completeAuthorization, type CallbackDependencies } from '../oauth/callback.js';
import { lmsHomeUrl } from '../lms/pages.js';
import { START_ENDPOINTS, startAuthorization, type StartDependencies } from '../oauth/start.js';
import { authorizationStatus } from '../oauth/status.js';
import { fetchSite, isSameOriginOrUnmarked } from '../security/fetch-metadata.js';
import { adoptSession, readSession, type SessionData } from '../security/session.js';
import { errorBody } from './error-body.js';
import { sameOriginMutation } from './mutation-guard.js';
import { htmlSecurityHeaders } from '../pages/shell.js';
import { staticPage } from './static-page.js';

const CROSS_SITE_START_MESSAGE =
  'LMS authorization can only be started from the tool itself. Open the tool from your course or account in the LMS and use its authorize button.';

/** Browsers navigating to a start endpoint get a readable page; scripts asking for JSON get the contract's error body. */
function sendRefusal(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, status: number, code: ErrorCode, message: string) {
  reply.code(status).header('cache-control', 'no-store');
  const accept = String(request.headers.accept ?? '');
  if (accept.includes('text/html')) {
    return reply
      .headers(htmlSecurityHeaders(ctx.config.lmsUrl))
      .type('text/html; charset=utf-8')
      .send(staticPage('LMS authorization was not started', [message]));
  }
  return reply.send(errorBody(code, message));
}

/**
 * The LMS OAuth routes of Document 1: the four authorization starts, the popup ticket that carries the session into
 * the authorization popup, the callback and the status check. Routes only guard, read the session and render; the
 * rules live in `oauth/`.
 */
export async function registerOAuthRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { config, shell, oauth, logger } = ctx;
  const startDeps: StartDependencies = { config, states: oauth.states, tokens: oauth.tokens };
  const callbackDeps: CallbackDependencies = {
    config,
    states: oauth.states,
    tokens: oauth.tokens,
    tokenEndpoint: oauth.tokenEndpoint,
    identity: ctx.identity,
    logger,
  };

  /**
   * With a popup ticket, the session it carries, now also this browser's (see `oauth/popup-ticket.ts`); without one,
   * the cookie's. A ticket that does not redeem counts as no session, whatever cookie came along. A ticket is only
   * honoured on a navigation the browser marks same-origin, so it can never plant a session through a request whose
   * origin is unknown; every browser that partitions cookies sends the header.
   */
  const sessionForStart = async (request: FastifyRequest, start: AuthorizationStart, ticket: unknown): Promise<SessionData | null> => {
    if (ticket === undefined) return readSession(request);
    if (fetchSite(request) !== 'same-origin') return null;
    const handedOver = await oauth.popupTickets.redeem(start, ticket);
    return handedOver === null ? null : adoptSession(request, handedOver);
  };

  const startRoute = (start: AuthorizationStart) => async (request: FastifyRequest, reply: FastifyReply) => {
    // The Fetch Metadata guard runs before anything else, so a cross-site page learns nothing about the session.
    if (!isSameOriginOrUnmarked(request)) {
      return sendRefusal(ctx, request, reply, 403, ErrorCodes.CROSS_SITE_AUTHORIZATION_START, CROSS_SITE_START_MESSAGE);
    }
    const { [POPUP_TICKET_PARAM]: ticket, ...query } = (request.query ?? {}) as Record<string, unknown>;
    const session = await sessionForStart(request, start, ticket);
    const outcome = await startAuthorization(startDeps, START_ENDPOINTS[start], session, query);
    if (!outcome.ok) return sendRefusal(ctx, request, reply, outcome.status, outcome.code, outcome.message);
    return reply.code(302).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(outcome.location);
  };

  for (const start of AUTHORIZATION_STARTS) app.get(authorizationStartPath(start), startRoute(start));

  // A hook, so refusals the handler never writes (the guard's, a malformed body's) are not stored either.
  const noStore = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('cache-control', 'no-store');
  };
  app.post(POPUP_TICKET_PATH, { onRequest: [noStore, sameOriginMutation(config.baseUrl)] }, async (request, reply) => {
    const outcome = await oauth.popupTickets.issue(readSession(request), request.body);
    if (!outcome.ok) return reply.code(outcome.status).send(errorBody(outcome.code, outcome.message));
    return reply.send({ success: true, ticket: outcome.ticket, expiresInSeconds: outcome.expiresInSeconds });
  });

  app.get('/api/oauth2callback', async (request, reply) => {
    const session = readSession(request);
    let outcome;
    try {
      outcome = await completeAuthorization(callbackDeps, session, request.query);
    } catch (error) {
      request.log.error({ err: error }, 'LMS OAuth callback failed');
      return shell.send(reply, { view: 'oauth-error', errorCode: 'internal-error', message: 'The authorization could not be stored. Try again in a moment.' }, { status: 500 });
    }
    if (outcome.ok) return shell.send(reply, outcome.view);
    request.log.info({ failure: outcome.failure }, 'LMS OAuth callback refused');
    const details: { label: string; value: string }[] = [];
    if (outcome.lmsError) details.push({ label: 'LMS error', value: outcome.lmsError });
    if (outcome.lmsErrorDescription) details.push({ label: 'LMS message', value: outcome.lmsErrorDescription });
    return shell.send(
      reply,
      {
        view: 'oauth-error',
        errorCode: outcome.failure,
        message: CALLBACK_FAILURE_MESSAGES[outcome.failure],
        details,
        ...(session ? { lmsReturnUrl: lmsHomeUrl(config.lmsUrl, session.principal) } : {}),
      },
      { status: 400 },
    );
  });

  app.get('/api/oauth2status', async (request, reply) => {
    const authorized = await authorizationStatus(oauth.accessTokens, readSession(request), request.query);
    return reply.header('cache-control', 'no-store').send({ authorized });
  });
}
