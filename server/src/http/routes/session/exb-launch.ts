import type { FastifyInstance, FastifyReply } from 'fastify';
import { EXB_LAUNCH_LOGIN_ROUTE, EXB_LAUNCH_ROUTE } from '@exb/shared/service-paths.js';
import { parseContentId } from '@exb/shared/content-id.js';
import type { AppContext } from '../../../context.js';
import { LtiError } from '../../../lti/errors.js';
import { exbLaunchPath, type LaunchTarget } from '../../../lti/launch-target.js';
import { launchRouteOptions } from '../../kit/launch-body.js';
import { sendLtiError } from '../../../pages/launch-refusals.js';
import { handleLaunch, handleLogin } from '../../views/lti-launch.js';
import { sessionForReload } from '../../kit/session-reload.js';
import { sendExbLaunch } from '../../views/exb-launch-view.js';

type ContentParams = { Params: { contentId: string } };

/** The launch target of a `:contentId` path parameter; `null` for anything but a canonical content id. */
function exbTarget(contentId: string): LaunchTarget | null {
  return parseContentId(contentId) ? { kind: 'exb', path: exbLaunchPath(contentId), contentId } : null;
}

// Malformed content ids are answered without any lookup (Document 3), as any unknown address.
const notFound = (reply: FastifyReply) => reply.callNotFound();

/** Document 3: `GET|POST /exb/launch/:contentId` and `GET /exb/launch/:contentId/login`. */
export async function registerExbLaunchRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.post<ContentParams>(EXB_LAUNCH_ROUTE.path, launchRouteOptions(ctx), (request, reply) => {
    const target = exbTarget(request.params.contentId);
    return target ? handleLaunch(request, reply, ctx, target) : notFound(reply);
  });

  app.get<ContentParams>(EXB_LAUNCH_ROUTE.path, async (request, reply) => {
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
        new LtiError('EXB_LAUNCH_NOT_FOR_SESSION', 'notForSession', { key: 'notForSession' }),
      );
    }
    return sendExbLaunch(request, reply, ctx, session, request.params.contentId);
  });

  app.get<ContentParams>(EXB_LAUNCH_LOGIN_ROUTE.path, { exposeHeadRoute: false }, (request, reply) => {
    const target = exbTarget(request.params.contentId);
    return target ? handleLogin(request, reply, ctx, request.query, target) : notFound(reply);
  });
}
