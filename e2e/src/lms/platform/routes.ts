import { htmlResponse, jsonResponse, redirectResponse } from '../errors.js';
import { visitor } from '../pages/common.js';
import { autoPostForm, barePage, escapeHtml } from '../pages/html.js';
import { publicRoute, type RouteDef, type RouteRequest } from '../router.js';
import { forwardingScript, PLATFORM_STORAGE_TARGET, POST_MESSAGE_FORWARDING_PATH } from './post-message-forwarding.js';

function flatParams(req: RouteRequest): Record<string, string | undefined> {
  const params: Record<string, string | undefined> = {};
  for (const source of [req.query, req.body]) {
    for (const [key, value] of Object.entries(source)) if (typeof value === 'string') params[key] = value;
  }
  return params;
}

/** The platform's key set. */
function jwks({ lms }: RouteRequest): Response {
  return jsonResponse(lms.platform.jwks(), 200, { 'cache-control': 'max-age=3600' });
}

/** The hosted authorization endpoint only forwards to the institution's host, which does the checking. */
function authorizeRedirect(req: RouteRequest): Response {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(flatParams(req))) if (value !== undefined) params.set(key, value);
  return redirectResponse(`${req.lms.baseUrl}/api/lti/authorize?${params}`);
}

async function authorize(req: RouteRequest): Promise<Response> {
  const seen = visitor(req);
  if (seen instanceof Response) return seen;
  const outcome = await req.lms.platform.authorize(flatParams(req), seen.user?.id);
  if (outcome.kind === 'reject') {
    return htmlResponse(barePage('Launch refused', `<h1>${escapeHtml(outcome.message)}</h1>`), outcome.status);
  }
  return htmlResponse(barePage('Launching…', autoPostForm({ action: outcome.action, fields: outcome.fields })));
}

export function platformRoutes(): RouteDef[] {
  return [
    publicRoute('GET', '/api/lti/security/jwks', jwks),
    publicRoute('GET', '/api/lti/authorize_redirect', authorizeRedirect),
    publicRoute('POST', '/api/lti/authorize_redirect', authorizeRedirect),
    publicRoute('GET', '/api/lti/authorize', authorize),
    publicRoute('POST', '/api/lti/authorize', authorize),
  ];
}

/** `GET /post_message_forwarding`: the forwarding frame's page. */
export function postMessageForwardingRoutes(): RouteDef[] {
  return [
    publicRoute('GET', POST_MESSAGE_FORWARDING_PATH, (req) =>
      htmlResponse(
        `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(PLATFORM_STORAGE_TARGET)}</title></head>` +
          `<body><script>${forwardingScript(new URL(req.lms.baseUrl).origin)}</script></body></html>`,
      ),
    ),
  ];
}
