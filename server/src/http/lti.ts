import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { LtiError } from '../lti/errors.js';
import { LTI_LAUNCH_PATH, parseTargetLinkUri, type LaunchTarget } from '../lti/launch-target.js';
import { authorizationRedirectUrl, readLoginParameters, validateLoginRequest } from '../lti/login-request.js';
import { LOGIN_STATE_PURPOSE, LOGIN_STATE_TTL_SECONDS, newNonce, type LoginState } from '../lti/login-state.js';
import { sessionCookieOptions } from '../security/session-cookie.js';
import { runLaunch } from './launch-chain.js';
import { sendLtiError, sendRateLimited, sendRoleView, sessionForReload } from './launch-pages.js';

/**
 * LTI 1.3 login initiation (Document 1, `GET|POST /lti/login`), in the contract's order: size bounds, admission, issuer,
 * client id, target, deployment id; then a nonce, the transaction cookie, the encrypted login state, and the redirect
 * to the LMS's authorization endpoint. `requiredTarget` is set when a launch path forwards its own login here.
 */
export async function handleLogin(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
  source: unknown,
  requiredTarget?: LaunchTarget,
): Promise<FastifyReply> {
  const { config } = ctx;
  try {
    const parameters = readLoginParameters(source);
    if (!(await ctx.ltiAdmission.login(request.ip)).allowed) return sendRateLimited(reply, ctx);

    if (requiredTarget) {
      const given = parameters.target_link_uri;
      if (given === undefined) {
        parameters.target_link_uri = `${config.baseUrl}${requiredTarget.path}`;
      } else if (parseTargetLinkUri(given, config.baseUrl)?.path !== requiredTarget.path) {
        throw new LtiError(
          'LTI_LOGIN_TARGET',
          400,
          'The tool could not be opened',
          'The login names a different page than the link it was started from.',
        );
      }
    }
    const login = validateLoginRequest(parameters, { ...config.lti, baseUrl: config.baseUrl });

    const nonce = newNonce();
    const transaction = ctx.transactionBinder.create();
    reply.setCookie(transaction.cookieName, transaction.cookieValue, sessionCookieOptions(config.baseUrl, LOGIN_STATE_TTL_SECONDS));
    const state: LoginState = {
      nonce,
      target: login.target.path,
      issuer: login.issuer,
      transactionBinding: transaction.binding,
      ...(login.deploymentId !== undefined ? { deploymentId: login.deploymentId } : {}),
      createdAt: Date.now(),
    };
    const issued = await ctx.oneTimeStore.issue(LOGIN_STATE_PURPOSE, state, LOGIN_STATE_TTL_SECONDS);

    const location = authorizationRedirectUrl({
      authUrl: config.lti.authUrl,
      clientId: config.lti.clientId,
      redirectUri: `${config.baseUrl}${LTI_LAUNCH_PATH}`,
      nonce,
      state: issued.token,
      login,
    });
    return reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(location, 302);
  } catch (error) {
    if (error instanceof LtiError) return sendLtiError(reply, ctx, error);
    throw error;
  }
}

/** The query values a session reload may carry: each once, as text. */
function singleQueryValue(query: unknown, name: string): string | undefined | null {
  const value = query && typeof query === 'object' ? (query as Record<string, unknown>)[name] : undefined;
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : null;
}

/** Document 1: `GET|POST /lti/login`, `POST /lti/launch`, `GET /lti/launch`. */
export async function registerLtiRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  // No automatic HEAD route: a login creates a state and a cookie, which a HEAD request has no use for.
  app.get('/lti/login', { exposeHeadRoute: false }, (request, reply) => handleLogin(request, reply, ctx, request.query));
  app.post('/lti/login', (request, reply) => handleLogin(request, reply, ctx, request.body));

  app.post(LTI_LAUNCH_PATH, (request, reply) => runLaunch(request, reply, ctx));

  app.get(LTI_LAUNCH_PATH, async (request, reply) => {
    const reload = sessionForReload(request, reply, ctx);
    if ('sent' in reload) return reload.sent;
    const { session } = reload;
    const { principal } = session;
    const courseId = singleQueryValue(request.query, 'course_id');
    const userId = singleQueryValue(request.query, 'user_id');
    const courseMismatch =
      courseId !== undefined && (principal.kind === 'admin' || courseId !== principal.courseId);
    if (courseMismatch || (userId !== undefined && userId !== principal.lmsUserId)) {
      return sendLtiError(
        reply,
        ctx,
        new LtiError(
          'LTI_SESSION_MISMATCH',
          403,
          'This page belongs to another launch',
          'The tool was opened for another course or user than your current launch. Open the tool again from the LMS.',
        ),
      );
    }
    return sendRoleView(reply, ctx, session);
  });
}
