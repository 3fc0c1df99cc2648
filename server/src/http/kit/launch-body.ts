import type { FastifyError, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { AppContext } from '../../context.js';
import { LtiError } from '../../lti/errors.js';
import { sendLtiError } from '../../pages/launch-refusals.js';
import { launchLocale } from './launch-locale.js';

/**
 * Body limit of the launch endpoints (`POST /lti/launch`, `POST /exb/launch/:contentId`). Far above the envelope's own
 * bounds (a 32 KiB id_token, a 43-character state), so an oversized field reaches step 1 of the launch chain and gets
 * its explanation; still a hard cap, so a flood cannot make the service buffer unbounded bodies.
 */
export const LAUNCH_BODY_LIMIT_BYTES = 1024 * 1024;

const TOO_LARGE = 'FST_ERR_CTP_BODY_TOO_LARGE';

/**
 * A form the body parser already refused (above the hard cap, or unreadable) is still a launch the contract answers
 * with its 400 HTML explanation, not with a generic JSON status. Any other error goes on to the application's handler.
 */
function launchBodyErrorHandler(ctx: AppContext) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const status = error.statusCode ?? 500;
    if (!error.code?.startsWith('FST_ERR_CTP_') || status < 400 || status >= 500) throw error;
    const key = error.code === TOO_LARGE ? 'bodyTooLarge' : 'bodyUnreadable';
    return sendLtiError(reply, ctx, new LtiError('LTI_LAUNCH_INVALID_ENVELOPE', 'launchNotVerified', { key }), launchLocale(request));
  };
}

/** Route options of both launch endpoints. */
export function launchRouteOptions(ctx: AppContext): Pick<RouteShorthandOptions, 'bodyLimit' | 'errorHandler'> {
  return { bodyLimit: LAUNCH_BODY_LIMIT_BYTES, errorHandler: launchBodyErrorHandler(ctx) };
}
