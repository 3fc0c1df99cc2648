/**
 * The names the client and the server share for the session header token (`server/src/security/session-token.ts`
 * explains it): the header the page sends it in and each answer renews it in, and the query parameter a navigation to
 * one of the session's pages carries it in once, where no header can go and no cookie is kept.
 *
 * No dependencies, so browser bundles can import it.
 */
export const SESSION_TOKEN_HEADER = 'x-exb-session-token';
export const SESSION_TOKEN_PARAM = 'session_token';
