import { ErrorCodes, errorStatus, errorStatusAt, type ErrorCode } from '@exb/shared/error-codes.js';
import type { Catalogue } from '@exb/shared/i18n/catalogues.js';
import { OAUTH_CALLBACK_ROUTE } from '@exb/shared/service-paths.js';
import {
  AUTHORIZATION_STARTS,
  authorizationStartPath,
  POPUP_TICKET_PARAM,
  POPUP_TICKET_PATH,
  type AuthorizationStart,
} from '@exb/shared/oauth-popup-ticket.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.js';
import { translator } from '../../../i18n/translator.js';
import { callbackFailureMessage, completeAuthorization, type CallbackDependencies } from '../../../oauth/callback.js';
import { lmsHomeUrl } from '../../../lms/pages.js';
import { START_ENDPOINTS, startAuthorization, type StartDependencies, type StartEndpoint } from '../../../oauth/start.js';
import { authorizationStatus } from '../../../oauth/status.js';
import { fetchSite, isSameOriginOrUnmarked } from '../../../security/fetch-metadata.js';
import { adoptSession, readSession, requestLocale, type SessionData } from '../../../security/session.js';
import { errorBody } from '../../kit/error-body.js';
import { sameOriginMutation } from '../../kit/mutation-guard.js';
import { htmlSecurityHeaders } from '../../../pages/shell.js';
import { staticPage } from '../../../pages/static-page.js';

const CROSS_SITE_START_MESSAGE =
  'LMS authorization can only be started from the tool itself. Open the tool from your course or account in the LMS and use its authorize button.';

type StartRefusalKey = keyof Catalogue['launch']['oauth']['start'];

/** The page's sentence for a refused start; the JSON body keeps the contract's English message. */
const START_REFUSALS: Partial<Record<ErrorCode, StartRefusalKey>> = {
  [ErrorCodes.CROSS_SITE_AUTHORIZATION_START]: 'crossSite',
  [ErrorCodes.LTI_PRINCIPAL_REQUIRED]: 'principalRequired',
  [ErrorCodes.INVALID_REQUEST]: 'invalidRequest',
  [ErrorCodes.OAUTH_USER_MISMATCH]: 'otherUser',
  [ErrorCodes.OAUTH_COURSE_MISMATCH]: 'otherCourse',
  [ErrorCodes.LMS_OAUTH_NOT_CONFIGURED]: 'notConfigured',
};

const ROLE_ONLY: Readonly<Record<StartEndpoint, StartRefusalKey>> = {
  instructor: 'instructorOnly',
  student: 'studentOnly',
  admin: 'adminOnly',
};

/**
 * Browsers navigating to a start endpoint get a readable page in their language; scripts asking for JSON get the
 * contract's error body.
 */
function sendRefusal(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  refusal: { status: number; code: ErrorCode; message: string; endpoint: StartEndpoint },
) {
  const { status, code, message, endpoint } = refusal;
  reply.code(status).header('cache-control', 'no-store');
  const accept = String(request.headers.accept ?? '');
  if (accept.includes('text/html')) {
    const locale = requestLocale(request);
    const t = translator(locale);
    const key = code === ErrorCodes.OAUTH_ROLE_MISMATCH ? ROLE_ONLY[endpoint] : (START_REFUSALS[code] ?? 'other');
    return reply
      .headers(htmlSecurityHeaders(ctx.config.lmsUrl))
      .type('text/html; charset=utf-8')
      .send(staticPage(locale, t('launch:oauth.startRefused'), [t(`launch:oauth.start.${key}`)]));
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
    refusals: oauth.refusals,
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
    const endpoint = START_ENDPOINTS[start];
    // The Fetch Metadata guard runs before anything else, so a cross-site page learns nothing about the session.
    if (!isSameOriginOrUnmarked(request)) {
      return sendRefusal(ctx, request, reply, {
        status: errorStatusAt(ErrorCodes.CROSS_SITE_AUTHORIZATION_START, 'authorizationStart'),
        code: ErrorCodes.CROSS_SITE_AUTHORIZATION_START,
        message: CROSS_SITE_START_MESSAGE,
        endpoint,
      });
    }
    const { [POPUP_TICKET_PARAM]: ticket, ...query } = (request.query ?? {}) as Record<string, unknown>;
    const session = await sessionForStart(request, start, ticket);
    const outcome = await startAuthorization(startDeps, endpoint, session, query);
    if (!outcome.ok) return sendRefusal(ctx, request, reply, { ...outcome, endpoint });
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

  app.get(OAUTH_CALLBACK_ROUTE.path, async (request, reply) => {
    const session = readSession(request);
    const locale = requestLocale(request);
    const t = translator(locale);
    const title = t('launch:oauth.title');
    let outcome;
    try {
      outcome = await completeAuthorization(callbackDeps, session, request.query);
    } catch (error) {
      request.log.error({ err: error }, 'LMS OAuth callback failed');
      const failed = { view: 'oauth-error', errorCode: 'internal-error', title, message: t('launch:oauth.storeFailed') };
      return shell.send(reply, failed, { status: errorStatus(ErrorCodes.INTERNAL_ERROR), title, locale });
    }
    if (outcome.ok) return shell.send(reply, outcome.view, { locale });
    request.log.info({ failure: outcome.failure }, 'LMS OAuth callback refused');
    const details: ({ label: string; value: string } | string)[] = [];
    for (const scope of outcome.missingScopes ?? []) details.push({ label: t('launch:oauth.missingScope'), value: scope });
    // The administrator who can fix it is told where the procedure is; everyone else whom to tell.
    if (outcome.failure === 'lms-scope-missing') {
      details.push(session?.principal.kind === 'admin' ? t('launch:oauth.scopeFixAdmin', { url: `${config.baseUrl}/setup/guide` }) : t('launch:oauth.scopeFixOthers'));
    }
    if (outcome.lmsError) details.push({ label: t('launch:oauth.lmsError'), value: outcome.lmsError });
    if (outcome.lmsErrorDescription) details.push({ label: t('launch:oauth.lmsMessage'), value: outcome.lmsErrorDescription });
    return shell.send(
      reply,
      {
        view: 'oauth-error',
        errorCode: outcome.failure,
        title,
        message: callbackFailureMessage(outcome.failure, locale),
        details,
        ...(session ? { lmsReturnUrl: lmsHomeUrl(config.lmsUrl, session.principal) } : {}),
      },
      { status: errorStatus(ErrorCodes.INVALID_REQUEST), title, locale },
    );
  });

  app.get('/api/oauth2status', async (request, reply) => {
    const authorized = await authorizationStatus(oauth.accessTokens, readSession(request), request.query);
    return reply.header('cache-control', 'no-store').send({ authorized });
  });
}
