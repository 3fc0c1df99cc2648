import { LmsHttpError, htmlResponse, jsonResponse, redirectResponse } from '../errors.js';
import { checkAuthenticityToken, loggedInVisitor, visitor } from '../pages/common.js';
import { barePage, escapeHtml } from '../pages/html.js';
import { stringParam } from '../params.js';
import { publicRoute, type RouteDef } from '../router.js';
import { OAuthError } from './provider.js';

function oauthErrorResponse(error: OAuthError): Response {
  return jsonResponse(error.body, error.status, error.headers);
}

/** The provider's browser and token endpoints. */
export function oauthRoutes(): RouteDef[] {
  return [
    publicRoute('GET', '/login/oauth2/auth', (req) => {
      const { lms, query } = req;
      const check = lms.oauth.checkAuthorizationRequest({
        client_id: stringParam(query, 'client_id'),
        response_type: stringParam(query, 'response_type'),
        redirect_uri: stringParam(query, 'redirect_uri'),
        scope: stringParam(query, 'scope'),
        state: stringParam(query, 'state'),
      });
      if (check.kind === 'reject') return oauthErrorResponse(check.error);
      if (check.kind === 'redirect') return redirectResponse(check.location);
      const authRequest = check.request;

      if (stringParam(query, 'prompt') === 'none') {
        const seen = visitor(req);
        if (seen instanceof Response) return seen;
        if (!seen.user) {
          return redirectResponse(`${authRequest.redirectUri}?${new URLSearchParams({ error: 'login_required', ...(authRequest.state ? { state: authRequest.state } : {}) })}`);
        }
        const granted = [...lms.state.tokens.values()].some(
          (token) =>
            token.userId === seen.user!.id &&
            token.clientId === authRequest.clientId &&
            token.revokedAt === null &&
            authRequest.scopes.every((scope) => token.scopes.includes(scope)),
        );
        if (!granted) {
          return redirectResponse(`${authRequest.redirectUri}?${new URLSearchParams({ error: 'interaction_required', ...(authRequest.state ? { state: authRequest.state } : {}) })}`);
        }
        return redirectResponse(lms.oauth.grantCode(seen.user.id, authRequest).redirectUrl);
      }

      const seen = loggedInVisitor(req);
      if (seen instanceof Response) return seen;
      const requestId = lms.oauth.holdForApproval(seen.user.id, authRequest);
      const scopes = authRequest.scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`).join('');
      const token = `<input type="hidden" name="authenticity_token" value="${escapeHtml(seen.session.csrfToken)}">
    <input type="hidden" name="request_id" value="${escapeHtml(requestId)}">`;
      return htmlResponse(
        barePage(
          'Authorize application',
          `<h1>${escapeHtml(lms.platform.registration.title)} is requesting access to your account.</h1>
  <p>You are logged in as <strong id="oauth_user">${escapeHtml(seen.user.name)}</strong>. The application asks to:</p>
  <ul id="oauth_scopes">${scopes}</ul>
  <form action="/login/oauth2/accept" method="post" style="display:inline">
    ${token}
    <button type="submit" class="btn btn-primary" id="oauth2_accept">Authorize</button>
  </form>
  <form action="/login/oauth2/deny" method="post" style="display:inline">
    ${token}
    <button type="submit" class="btn" id="oauth2_deny">Cancel</button>
  </form>`,
        ),
      );
    }),

    publicRoute('POST', '/login/oauth2/accept', (req) => {
      const seen = loggedInVisitor(req);
      if (seen instanceof Response) return seen;
      checkAuthenticityToken(req.lms, seen.session, req.body, req.url);
      const pending = req.lms.oauth.takePendingApproval(String(req.body.request_id ?? ''), seen.user.id);
      if (!pending) throw new LmsHttpError(400, barePage('Authorization expired', '<h1>This authorization request has expired.</h1>'));
      return redirectResponse(req.lms.oauth.grantCode(seen.user.id, pending).redirectUrl);
    }),

    publicRoute('POST', '/login/oauth2/deny', (req) => {
      const seen = loggedInVisitor(req);
      if (seen instanceof Response) return seen;
      checkAuthenticityToken(req.lms, seen.session, req.body, req.url);
      const pending = req.lms.oauth.takePendingApproval(String(req.body.request_id ?? ''), seen.user.id);
      if (!pending) throw new LmsHttpError(400, barePage('Authorization expired', '<h1>This authorization request has expired.</h1>'));
      return redirectResponse(req.lms.oauth.denyRedirect(pending));
    }),

    publicRoute('POST', '/login/oauth2/token', ({ lms, body, request }) => {
      try {
        return jsonResponse(lms.oauth.exchange(body, request.headers.get('authorization')));
      } catch (error) {
        if (error instanceof OAuthError) return oauthErrorResponse(error);
        throw error;
      }
    }),

    // Logging out a token: authenticated with the token itself.
    publicRoute('DELETE', '/login/oauth2/token', ({ lms, request, url }) => {
      const header = /^Bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '');
      const presented = header?.[1] ?? url.searchParams.get('access_token');
      if (!presented) {
        return jsonResponse({ message: "can't delete OAuth access token when not using an OAuth access token" }, 400);
      }
      const token = lms.oauth.findByAccessToken(presented);
      if (!token) return jsonResponse({ errors: [{ message: 'Invalid access token.' }] }, 401, { 'www-authenticate': 'Bearer realm="canvas-lms"' });
      if (token.revokedAt !== null) {
        return jsonResponse({ errors: [{ message: 'Revoked access token.' }] }, 401, { 'www-authenticate': 'Bearer realm="canvas-lms"' });
      }
      lms.oauth.revoke(token);
      return jsonResponse({});
    }),
  ];
}
