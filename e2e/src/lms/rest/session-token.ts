import { notAuthorized } from '../authorization.js';
import { jsonResponse } from '../errors.js';
import { stringParam } from '../params.js';
import { apiRoute, type RouteDef, type RouteRequest } from '../router.js';

/**
 * Hands the API user of an OAuth token to a browser: answers a URL carrying a short-lived `session_token` that logs the browser in
 * when opened. `return_to` must be absolute, with the LMS's scheme and host; an unparsable one answers 400. As Canvas's
 * `app/controllers/login_controller.rb#session_token`: the token is valid 30 seconds either side of its minting
 * (`lib/session_token.rb`, see `pages/session.ts`), and `requires_terms_acceptance` says whether the user must still
 * accept the account's terms of use.
 */
function sessionToken({ lms, auth, query, request }: RouteRequest): Response {
  // Only an OAuth token can be traded for a web session.
  if (!auth!.token) throw notAuthorized(lms);
  const base = new URL(lms.baseUrl);
  const returnTo = stringParam(query, 'return_to') ?? request.headers.get('referer') ?? `${lms.baseUrl}/`;
  let target: URL;
  try {
    target = new URL(returnTo);
  } catch {
    try {
      new URL(returnTo, lms.baseUrl);
    } catch {
      return jsonResponse({ error: 'Invalid redirect URL' }, 400);
    }
    throw notAuthorized(lms);
  }
  if (target.protocol !== base.protocol || target.hostname !== base.hostname) throw notAuthorized(lms);
  const token = lms.sessions.issueSessionToken(auth!.user.id);
  const hashIndex = returnTo.indexOf('#');
  const withoutHash = hashIndex >= 0 ? returnTo.slice(0, hashIndex) : returnTo;
  const hash = hashIndex >= 0 ? returnTo.slice(hashIndex) : '';
  const separator = withoutHash.includes('?') ? '&' : '?';
  return jsonResponse({
    session_url: `${withoutHash}${separator}session_token=${encodeURIComponent(token)}${hash}`,
    requires_terms_acceptance: lms.state.termsAcceptancePending.has(auth!.user.id),
  });
}

export function sessionTokenRoutes(): RouteDef[] {
  return [
    // A scope-enforcing key can only reach the API path; the web path answers "Insufficient scopes" to scoped tokens.
    apiRoute('GET', '/api/v1/login/session_token', sessionToken),
    apiRoute('GET', '/login/session_token', sessionToken),
  ];
}
