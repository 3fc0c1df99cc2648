import type { CookieSerializeOptions } from '@fastify/cookie';

export const SESSION_COOKIE_NAME = 'exb_session';

/** True for a plain-HTTP development origin on the local machine, the one place a cookie may go without `Secure`. */
export function isLocalDevelopmentOrigin(baseUrl: string): boolean {
  const url = new URL(baseUrl);
  return url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}

/**
 * The tool runs inside the LMS's iframe, a third-party context: its cookies must be `SameSite=None; Secure`. On a
 * local http origin, `Secure` cookies are not stored, and the LMS on another port of the same host is same-site
 * anyway, so `Lax` works there.
 */
export function sessionCookieOptions(baseUrl: string, maxAgeSeconds?: number): CookieSerializeOptions {
  const local = isLocalDevelopmentOrigin(baseUrl);
  return {
    path: '/',
    httpOnly: true,
    secure: !local,
    sameSite: local ? 'lax' : 'none',
    // Browsers that block third-party cookies still keep partitioned ones, scoped to the embedding LMS.
    partitioned: !local,
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  };
}
