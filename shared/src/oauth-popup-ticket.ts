/**
 * The names the client and the server share for the LMS authorization popup: which authorization starts exist, where
 * the tool window obtains the one-time ticket that carries its session into the popup, and the query parameter the
 * popup hands the ticket to the start in. The server module `oauth/popup-ticket.ts` explains why the ticket exists.
 *
 * No dependencies, so browser bundles can import it.
 */

/** The authorization starts, each served at `/api/<start>`. */
export const AUTHORIZATION_STARTS = ['oauth2authorize', 'oauth2reauthorize', 'student-session-authorize', 'admin/oauth2authorize'] as const;
export type AuthorizationStart = (typeof AUTHORIZATION_STARTS)[number];

export const POPUP_TICKET_PATH = '/api/oauth2/popup-ticket';
export const POPUP_TICKET_PARAM = 'ticket';
export const POPUP_TICKET_TTL_SECONDS = 60;

export function authorizationStartPath(start: AuthorizationStart): string {
  return `/api/${start}`;
}

/** The start a same-origin path leads to (`/api/oauth2authorize` → `oauth2authorize`), or `null` for any other path. */
export function authorizationStartOf(pathname: string): AuthorizationStart | null {
  return AUTHORIZATION_STARTS.find((start) => authorizationStartPath(start) === pathname) ?? null;
}
