import type { LmsRuntime } from '../runtime.js';
import { htmlResponse, LmsHttpError, redirectResponse } from '../errors.js';
import { safeEqual } from '../ids.js';
import type { RouteRequest } from '../router.js';
import type { User, WebSession } from '../state.js';
import { applicationPage, escapeHtml } from './html.js';

export interface PageVisitor {
  session: WebSession | undefined;
  user: User | undefined;
}

/**
 * Who is looking at a page. A valid `session_token` in the URL logs the browser in and redirects once more to drop
 * the token from the address, as the LMS does; an invalid one is ignored.
 */
export function visitor(req: RouteRequest): PageVisitor | Response {
  const { lms, url, request } = req;
  const sessionToken = url.searchParams.get('session_token');
  if (request.method === 'GET' && sessionToken) {
    const userId = lms.sessions.verifySessionToken(sessionToken);
    if (userId !== undefined) {
      const session = lms.sessions.create(userId);
      req.noteUser(userId);
      const clean = new URL(url);
      clean.searchParams.delete('session_token');
      return redirectResponse(`${clean.pathname}${clean.search}`, 302, { 'set-cookie': lms.sessions.setCookie(session) });
    }
  }
  const session = lms.sessions.fromCookies(req.cookies);
  const user = lms.sessions.userOf(session);
  if (user) req.noteUser(user.id);
  return { session, user };
}

/** A page that needs a logged-in user; others are sent to the login page and back. */
export function loggedInVisitor(req: RouteRequest): { session: WebSession; user: User } | Response {
  const seen = visitor(req);
  if (seen instanceof Response) return seen;
  if (!seen.session || !seen.user) {
    const returnTo = `${req.url.pathname}${req.url.search}`;
    return redirectResponse(`/login?return_to=${encodeURIComponent(returnTo)}`);
  }
  return { session: seen.session, user: seen.user };
}

/** The LMS rejects a form post without the session's authenticity token (422, as Rails does). */
export function checkAuthenticityToken(lms: LmsRuntime, session: WebSession, body: Record<string, unknown>, url: URL): void {
  const token = body.authenticity_token;
  if (typeof token !== 'string' || !safeEqual(token, session.csrfToken)) {
    throw new LmsHttpError(
      422,
      applicationPage(lms, {
        title: 'Invalid authenticity token',
        url,
        body: '<h1>Invalid authenticity token</h1><p>The form you submitted was stale or incomplete. Reload the page and try again.</p>',
      }),
    );
  }
}

/** The LMS's page for a user without access. */
export function unauthorizedPage(lms: LmsRuntime, visitorInfo: PageVisitor, url: URL): Response {
  return htmlResponse(
    applicationPage(lms, {
      title: 'Unauthorized',
      url,
      user: visitorInfo.user,
      session: visitorInfo.session,
      body: '<h1 id="unauthorized_message">Access Denied</h1><p>You don\'t have permission to access this page.</p>',
    }),
    401,
  );
}

export function notFoundPage(lms: LmsRuntime, visitorInfo: PageVisitor, url: URL): Response {
  return htmlResponse(
    applicationPage(lms, {
      title: 'Page Not Found',
      url,
      user: visitorInfo.user,
      session: visitorInfo.session,
      body: `<h1>Page Not Found</h1><p>${escapeHtml(url.pathname)} does not exist.</p>`,
    }),
    404,
  );
}

/** Only same-origin paths are followed after login. */
export function localPath(value: unknown, fallback = '/'): string {
  return typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') ? value : fallback;
}
