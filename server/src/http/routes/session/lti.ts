import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.js';
import { carriedExbLaunches } from '../../../domain/exam-browser/launch-decision.js';
import { LtiError } from '../../../lti/errors.js';
import { claimLaunch, identifyLaunch } from '../../../lti/launch.js';
import { LTI_LAUNCH_PATH, type LaunchTarget } from '../../../lti/launch-target.js';
import { startLogin } from '../../../lti/login.js';
import { LOGIN_STATE_TTL_SECONDS } from '../../../lti/login-state.js';
import { lmsHomeUrl } from '../../../lms/pages.js';
import { sessionCookieOptions } from '../../../security/session-cookie.js';
import { readSessionOfAnyAge, startSession } from '../../../security/session.js';
import { clientSignal } from '../../kit/client-signal.js';
import { launchRouteOptions } from '../../kit/launch-body.js';
import { launchLocale, sendExbLaunch, sendLtiError, sendNotAuthorized, sendRoleView, sessionForReload } from '../../views/role-view.js';
import { registerPlatformStorageScript, sendStoragePutPage, sendStorageReadPage } from '../../../pages/platform-storage-pages.js';

/**
 * `GET|POST /lti/login` (the rules: `lti/login.ts`): the transaction cookie, then the redirect to the LMS's authorization
 * endpoint. `requiredTarget` is set when a launch path forwards its own login here.
 */
export async function handleLogin(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
  parameters: unknown,
  requiredTarget?: LaunchTarget,
): Promise<FastifyReply> {
  const attempt = { ip: request.ip, parameters, cookies: request.cookies, ...(requiredTarget ? { requiredTarget } : {}) };
  const outcome = await startLogin(ctx, attempt);
  if (!outcome.ok) return sendLtiError(reply, ctx, outcome.error, launchLocale(request));
  for (const name of outcome.staleCookies) reply.clearCookie(name, sessionCookieOptions());
  const { cookieName, cookieValue } = outcome.transaction;
  // The cookie is set on either path: where the browser keeps it, the launch needs nothing from the platform storage.
  reply.setCookie(cookieName, cookieValue, sessionCookieOptions(LOGIN_STATE_TTL_SECONDS));
  if (outcome.storage !== undefined) {
    return sendStoragePutPage(reply, ctx.config.lmsUrl, launchLocale(request), outcome.storage, outcome.location);
  }
  return reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(outcome.location, 302);
}

/**
 * `POST /lti/launch` and `POST /exb/launch/:contentId` (the chain: `lti/launch.ts`). Once the state is claimed its
 * transaction cookie goes, whatever follows; a launch that yields no principal ends the browser's session; steps 9
 * and 10 replace the session with a fresh id carrying the principal, keeping the same person's completed launches.
 */
export async function handleLaunch(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
  endpointTarget?: LaunchTarget,
): Promise<FastifyReply> {
  const attempt = {
    ip: request.ip,
    body: request.body,
    cookies: request.cookies,
    signal: clientSignal(reply),
    ...(endpointTarget ? { endpointTarget } : {}),
  };
  const claimed = await claimLaunch(ctx, attempt);
  if (!claimed.ok) {
    if (claimed.error !== null) return sendLtiError(reply, ctx, claimed.error, launchLocale(request));
    // No transaction cookie came, and the login put its entries into the platform storage: the page reads them
    // back and posts this launch again, to this same endpoint, with them.
    const action = request.url.split('?')[0] ?? request.url;
    return sendStorageReadPage(reply, ctx.config.lmsUrl, launchLocale(request), claimed.readStorage, {
      action,
      idToken: claimed.idToken,
      state: claimed.state,
    });
  }
  // The cookie path is every ordinary start's, a hot path that logs no line per success; the storage path is the
  // exception worth seeing at the default level.
  const bindingLog = { browserBinding: claimed.binding };
  if (claimed.binding === 'cookie') request.log.debug(bindingLog, 'launch bound to the browser');
  else request.log.info(bindingLog, 'launch bound to the browser');
  reply.clearCookie(claimed.transactionCookie, sessionCookieOptions());
  const locale = launchLocale(request, claimed.claims.locale);
  const identified = await identifyLaunch(ctx, claimed.claims);
  if (!identified.ok) {
    request.session.delete();
    return identified.error === null
      ? sendNotAuthorized(reply, ctx, locale, identified.administratorInCourse === true)
      : sendLtiError(reply, ctx, identified.error, locale);
  }
  const { principal, target } = identified;
  // Read past the cache: a launch right after the person's sessions were ended must carry the new generation.
  const generation = await ctx.sessionGenerations.read({ issuer: principal.issuer, subject: principal.ltiSubject });
  const session = startSession(request, {
    principal,
    generation,
    launchTarget: target.path,
    lmsReturnUrl: lmsHomeUrl(ctx.config.lmsUrl, principal),
    exbLaunches: carriedExbLaunches(readSessionOfAnyAge(request), principal),
    locale,
  });
  return target.kind === 'exb' ? sendExbLaunch(request, reply, ctx, session, target.contentId) : sendRoleView(reply, ctx, session);
}

/** The query values a session reload may carry: each once, as text. */
function singleQueryValue(query: unknown, name: string): string | undefined | null {
  const value = query && typeof query === 'object' ? (query as Record<string, unknown>)[name] : undefined;
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : null;
}

const sessionMismatch = () => new LtiError('LTI_SESSION_MISMATCH', 403, 'sessionMismatch', { key: 'sessionMismatch' });

/** The LTI login initiation endpoint. */
export const LTI_LOGIN_PATH = '/lti/login';

/** Document 1: `GET|POST /lti/login`, `POST /lti/launch`, `GET /lti/launch`. */
export async function registerLtiRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await registerPlatformStorageScript(app);
  // No automatic HEAD route: a login creates a state and a cookie, which a HEAD request has no use for.
  app.get(LTI_LOGIN_PATH, { exposeHeadRoute: false }, (request, reply) => handleLogin(request, reply, ctx, request.query));
  app.post(LTI_LOGIN_PATH, (request, reply) => handleLogin(request, reply, ctx, request.body));

  app.post(LTI_LAUNCH_PATH, launchRouteOptions(ctx), (request, reply) => handleLaunch(request, reply, ctx));

  app.get(LTI_LAUNCH_PATH, async (request, reply) => {
    const reload = sessionForReload(request, reply, ctx);
    if ('sent' in reload) return reload.sent;
    const { session } = reload;
    const { principal } = session;
    const courseId = singleQueryValue(request.query, 'course_id');
    const userId = singleQueryValue(request.query, 'user_id');
    const courseMismatch = courseId !== undefined && (principal.kind === 'admin' || courseId !== principal.courseId);
    if (courseMismatch || (userId !== undefined && userId !== principal.lmsUserId)) return sendLtiError(reply, ctx, sessionMismatch());
    return sendRoleView(reply, ctx, session);
  });
}
