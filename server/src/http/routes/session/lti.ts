import type { FastifyInstance } from 'fastify';
import { LTI_LOGIN_ROUTE } from '@exb/shared/service-paths.js';
import type { AppContext } from '../../../context.js';
import { LtiError } from '../../../lti/errors.js';
import { LTI_LAUNCH_PATH } from '../../../lti/launch-target.js';
import { sendLtiError } from '../../../pages/launch-refusals.js';
import { registerPlatformStorageScript } from '../../../pages/platform-storage-pages.js';
import { launchRouteOptions } from '../../kit/launch-body.js';
import { handleLaunch, handleLogin } from '../../views/lti-launch.js';
import { sessionForReload } from '../../kit/session-reload.js';
import { sendRoleView } from '../../views/role-view.js';

/** The query values a session reload may carry: each once, as text. */
function singleQueryValue(query: unknown, name: string): string | undefined | null {
  const value = query && typeof query === 'object' ? (query as Record<string, unknown>)[name] : undefined;
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : null;
}

const sessionMismatch = () => new LtiError('LTI_SESSION_MISMATCH', 'sessionMismatch', { key: 'sessionMismatch' });

/** Document 1: `GET|POST /lti/login`, `POST /lti/launch`, `GET /lti/launch`. */
export async function registerLtiRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await registerPlatformStorageScript(app);
  // No automatic HEAD route: a login creates a state and a cookie, which a HEAD request has no use for.
  app.get(LTI_LOGIN_ROUTE.path, { exposeHeadRoute: false }, (request, reply) => handleLogin(request, reply, ctx, request.query));
  app.post(LTI_LOGIN_ROUTE.path, (request, reply) => handleLogin(request, reply, ctx, request.body));

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
