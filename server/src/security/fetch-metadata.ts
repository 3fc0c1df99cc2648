import { ErrorCodes, errorStatus } from '@exb/shared/error-codes.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';

/** The `Sec-Fetch-Site` value, or `undefined` when the browser sent none (older browsers, non-browser clients). */
export function fetchSite(request: Pick<FastifyRequest, 'headers'>): string | undefined {
  const value = request.headers['sec-fetch-site'];
  return typeof value === 'string' ? value.trim().toLowerCase() : undefined;
}

/**
 * The Fetch Metadata guard of the authorization starts (Document 1): a navigation the browser marks as coming from
 * anywhere but the tool's own pages (another site, the LMS, or a typed or bookmarked URL: `none`) is refused, so no
 * other page can start an OAuth flow in the user's name. A navigation without the header carries no `Origin` either,
 * so it is let through; the state's session binding still holds. Mutations use {@link crossSiteMutationRefusal}.
 */
export function isSameOriginOrUnmarked(request: Pick<FastifyRequest, 'headers'>): boolean {
  const site = fetchSite(request);
  return site === undefined || site === 'same-origin';
}

export interface MutationRefusal {
  readonly status: number;
  readonly errorCode: typeof ErrorCodes.CROSS_SITE_REQUEST | typeof ErrorCodes.UNSUPPORTED_MEDIA_TYPE;
  readonly message: string;
}

const CROSS_SITE: MutationRefusal = {
  status: errorStatus(ErrorCodes.CROSS_SITE_REQUEST),
  errorCode: ErrorCodes.CROSS_SITE_REQUEST,
  message: 'This request can only be made from the tool itself. Open the tool from your course in the LMS.',
};

const NOT_JSON: MutationRefusal = {
  status: errorStatus(ErrorCodes.UNSUPPORTED_MEDIA_TYPE),
  errorCode: ErrorCodes.UNSUPPORTED_MEDIA_TYPE,
  message: 'Send the request body as JSON (Content-Type: application/json).',
};

function isJson(contentType: string | undefined): boolean {
  return contentType?.split(';', 1)[0]!.trim().toLowerCase() === 'application/json';
}

/**
 * The one guard of every mutation the session cookie authenticates; `null` lets the request through.
 *
 * The browser attaches the cookie to requests from any page, so the request must prove it comes from the tool's own
 * pages: `Sec-Fetch-Site: same-origin` where the browser sends Fetch Metadata, otherwise an `Origin` equal to the
 * service origin (`BASE_URL`); with neither it is refused. The JSON content type keeps every "simple" request (a form
 * post, a `no-cors` fetch) out, since another origin can only send JSON after a CORS preflight, and the service grants
 * none for these routes.
 */
export function crossSiteMutationRefusal(headers: IncomingHttpHeaders, serviceOrigin: string): MutationRefusal | null {
  const site = fetchSite({ headers });
  if (site !== undefined) {
    if (site !== 'same-origin') return CROSS_SITE;
  } else if (headers.origin !== serviceOrigin) {
    return CROSS_SITE;
  }
  return isJson(headers['content-type']) ? null : NOT_JSON;
}
