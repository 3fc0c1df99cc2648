import type { FastifyReply, FastifyRequest } from 'fastify';
import { LOGIN_PAGE_ROUTE } from '@exb/shared/service-paths.js';
import type { AppContext } from '../../context.js';
import { LtiError } from '../../lti/errors.js';
import { sendLtiError } from '../../pages/launch-refusals.js';
import { readSession, type SessionData } from '../../security/session.js';

/** A navigation that puts the tool into a frame of another site: not the tool reloading its own frame. */
function isCrossSiteFrame(request: FastifyRequest): boolean {
  return request.headers['sec-fetch-dest'] === 'iframe' && request.headers['sec-fetch-site'] === 'cross-site';
}

/**
 * The guard of the session reloads (`GET /lti/launch`, `GET /exb/launch/:contentId`): a cross-site frame gets `403`,
 * a browser without a principal goes to `/login`. Returns the session, or the reply already sent.
 */
export function sessionForReload(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
): { session: SessionData } | { sent: FastifyReply } {
  if (isCrossSiteFrame(request)) {
    return {
      sent: sendLtiError(
        reply,
        ctx,
        new LtiError('LTI_CROSS_SITE_FRAME', 'crossSiteFrame', { key: 'crossSiteFrame' }),
      ),
    };
  }
  const session = readSession(request);
  if (!session) return { sent: reply.header('cache-control', 'no-store').redirect(LOGIN_PAGE_ROUTE.path, 302) };
  return { session };
}
