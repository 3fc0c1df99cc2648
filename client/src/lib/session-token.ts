import { SESSION_TOKEN_HEADER, SESSION_TOKEN_PARAM } from '@exb/shared/session-token.js';

/**
 * The page's session as a header token (`server/src/security/session-token.ts`): held in memory only, sent with every
 * request of the page to the service, renewed from each answer. Where the browser keeps the tool's cookie in the LMS's
 * frame the cookie carries the same session; where it keeps none, the token is the session.
 */
let current: string | undefined;

/** Takes the token the page's bootstrap carries. */
export function holdSessionToken(token: unknown): void {
  if (typeof token === 'string' && token !== '') current = token;
}

export function hasSessionToken(): boolean {
  return current !== undefined;
}

/** A same-origin request of the page, with its session token; the answer's fresh token replaces the held one. */
export async function sessionFetch(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (current !== undefined) headers.set(SESSION_TOKEN_HEADER, current);
  const response = await fetch(input, { ...init, headers, credentials: 'same-origin' });
  const fresh = response.headers.get(SESSION_TOKEN_HEADER);
  if (fresh) current = fresh;
  return response;
}

/**
 * The address of one of the session's pages (`reloadUrl`) or downloads (the audit trail export) with the session
 * token: a navigation or a download link cannot send the header, so the token rides in the query; a page opened so
 * takes a fresh one and drops the query at once.
 */
export function withSessionToken(path: string): string {
  if (current === undefined) return path;
  const url = new URL(path, window.location.href);
  url.searchParams.set(SESSION_TOKEN_PARAM, current);
  return url.pathname + url.search;
}
