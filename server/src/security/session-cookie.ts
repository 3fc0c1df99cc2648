import type { CookieSerializeOptions } from '@fastify/cookie';

export const SESSION_COOKIE_NAME = 'exb_session';

/**
 * Attributes of every cookie the service sets (session and login transaction), on every origin.
 *
 * The tool runs inside the LMS's iframe, a third-party context, so its cookies must be `SameSite=None; Secure`: the
 * launch is a cross-site form post into that frame. This holds on a local http origin too: an HTTPS LMS is cross-site
 * to `http://localhost` even on the same host (schemeful same-site), so `Lax` would break such launches, and browsers
 * (Chromium, Firefox since 75) store and send `Secure` cookies on `http://localhost` and `127.0.0.0/8`, which count as
 * secure contexts. `Partitioned` keeps the cookies in browsers that block unpartitioned third-party cookies, scoped to
 * the embedding LMS site.
 */
export function sessionCookieOptions(maxAgeSeconds?: number): CookieSerializeOptions {
  return {
    path: '/',
    httpOnly: true,
    secure: true,
    sameSite: 'none',
    partitioned: true,
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  };
}
