import type { FastifyRequest } from 'fastify';

/** The `Sec-Fetch-Site` value, or `undefined` when the browser sent none (older browsers, non-browser clients). */
export function fetchSite(request: FastifyRequest): string | undefined {
  const value = request.headers['sec-fetch-site'];
  return typeof value === 'string' ? value.trim().toLowerCase() : undefined;
}

/**
 * The Fetch Metadata guard of the authorization starts: a request the browser marks as coming from anywhere but the
 * tool's own pages (another site, the LMS, or a typed or bookmarked URL: `none`) is refused, so no other page can
 * start an OAuth flow in the user's name. Requests without the header are allowed; the state binding still holds.
 */
export function isSameOriginOrUnmarked(request: FastifyRequest): boolean {
  const site = fetchSite(request);
  return site === undefined || site === 'same-origin';
}
