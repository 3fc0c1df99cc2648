import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { carriedExbLaunches } from '../../domain/exam-browser/launch-decision.js';
import { launchStep } from '../../domain/exam-day/student-steps.js';
import { claimLaunch, identifyLaunch } from '../../lti/launch.js';
import type { LaunchTarget } from '../../lti/launch-target.js';
import { startLogin } from '../../lti/login.js';
import { LOGIN_STATE_TTL_SECONDS } from '../../lti/login-state.js';
import { lmsHomeUrl } from '../../lms/pages.js';
import { sendLtiError, sendNotAuthorized } from '../../pages/launch-refusals.js';
import { sendStoragePutPage, sendStorageReadPage } from '../../pages/platform-storage-pages.js';
import { sessionCookieOptions } from '../../security/session-cookie.js';
import { readSessionOfAnyAge, startSession } from '../../security/session.js';
import { sendExbLaunch } from './exb-launch-view.js';
import { sendRoleView } from './role-view.js';
import { clientSignal } from '../kit/client-signal.js';
import { launchLocale } from '../kit/launch-locale.js';

/** The login and launch of both launch endpoints (`/lti/...` and `/exb/launch/:contentId`). */

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
  // A student's launch of an assessment is the first step of their way in; the read records it (`exam-day/student-steps.ts`).
  const launched =
    target.kind === 'exb' && principal.kind === 'student'
      ? launchStep({ courseId: principal.courseId, contentId: target.contentId, lmsUserId: principal.lmsUserId, name: principal.name ?? null, at: new Date() })
      : undefined;
  const generation = await ctx.sessionGenerations.read({ issuer: principal.issuer, subject: principal.ltiSubject }, launched);
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
