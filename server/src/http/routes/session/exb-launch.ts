import type { FastifyInstance, FastifyReply } from 'fastify';
import { parseContentId } from '@exb/shared/content-id.js';
import type { AppContext } from '../../../context.js';
import { LtiError } from '../../../lti/errors.js';
import { exbLaunchPath, type LaunchTarget } from '../../../lti/launch-target.js';
import { launchRouteOptions } from '../../kit/launch-body.js';
import { sendExbLaunch, sendLtiError, sessionForReload } from '../../views/role-view.js';
import { handleLaunch, handleLogin } from './lti.js';

/** The exam-browser launch endpoint of an assessment and its own login initiation, as registered. */
export const EXB_LAUNCH_ROUTE = '/exb/launch/:contentId';
export const EXB_LAUNCH_LOGIN_ROUTE = '/exb/launch/:contentId/login';

type ContentParams = { Params: { contentId: string } };

/** The launch target of a `:contentId` path parameter; `null` for anything but a canonical content id. */
function exbTarget(contentId: string): LaunchTarget | null {
  return parseContentId(contentId) ? { kind: 'exb', path: exbLaunchPath(contentId), contentId } : null;
}

// Malformed content ids are answered without any lookup (Document 3), as any unknown address.
const notFound = (reply: FastifyReply) => reply.callNotFound();

/** Document 3: `GET|POST /exb/launch/:contentId` and `GET /exb/launch/:contentId/login`. */
export async function registerExbLaunchRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.post<ContentParams>(EXB_LAUNCH_ROUTE, launchRouteOptions(ctx), (request, reply) => {
    const target = exbTarget(request.params.contentId);
    return target ? handleLaunch(request, reply, ctx, target) : notFound(reply);
  });

  app.get<ContentParams>(EXB_LAUNCH_ROUTE, async (request, reply) => {
    const target = exbTarget(request.params.contentId);
    if (!target) return notFound(reply);
    const reload = sessionForReload(request, reply, ctx);
    if ('sent' in reload) return reload.sent;
    const { session } = reload;
    // A reload shows only what the signed launch targeted; another content id needs its own launch.
    if (session.launchTarget !== target.path) {
      return sendLtiError(
        reply,
        ctx,
        new LtiError('EXB_LAUNCH_NOT_FOR_SESSION', 403, 'notForSession', { key: 'notForSession' }),
      );
    }
    return sendExbLaunch(request, reply, ctx, session, request.params.contentId);
  });

  app.get<ContentParams>(EXB_LAUNCH_LOGIN_ROUTE, { exposeHeadRoute: false }, (request, reply) => {
    const target = exbTarget(request.params.contentId);
    return target ? handleLogin(request, reply, ctx, request.query, target) : notFound(reply);
  });
}
