/**
 * An error response the LMS sends. Handlers throw these; the router turns them into responses, so every handler
 * answers failures with the LMS's exact bodies and headers.
 */
export class LmsHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(`LMS ${status}: ${typeof body === 'string' ? body : JSON.stringify(body)}`);
    this.name = 'LmsHttpError';
  }

  toResponse(): Response {
    if (typeof this.body === 'string') {
      return new Response(this.body, {
        status: this.status,
        headers: { 'content-type': 'text/html; charset=utf-8', ...this.headers },
      });
    }
    return jsonResponse(this.body, this.status, this.headers);
  }
}

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

export function htmlResponse(html: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(html, { status, headers: { 'content-type': 'text/html; charset=utf-8', ...headers } });
}

export function redirectResponse(location: string, status = 302, headers: Record<string, string> = {}): Response {
  return new Response(null, { status, headers: { location, ...headers } });
}

const BEARER_CHALLENGE = { 'www-authenticate': 'Bearer realm="canvas-lms"' };

/** The API's error answers (bodies and headers as the LMS sends them). */
export const apiErrors = {
  unauthenticated: () =>
    new LmsHttpError(
      401,
      { status: 'unauthenticated', errors: [{ message: 'user authorization required' }] },
      BEARER_CHALLENGE,
    ),
  invalidToken: () => new LmsHttpError(401, { errors: [{ message: 'Invalid access token.' }] }, BEARER_CHALLENGE),
  expiredToken: (expiredAt: string | null) =>
    new LmsHttpError(401, { errors: [{ message: 'Expired access token.', expired_at: expiredAt }] }, BEARER_CHALLENGE),
  revokedToken: () => new LmsHttpError(401, { errors: [{ message: 'Revoked access token.' }] }, BEARER_CHALLENGE),
  insufficientScopes: () => new LmsHttpError(401, { errors: [{ message: 'Insufficient scopes on access token.' }] }),
  /** Hosted LMSes answer 403 since the auth-error update; older installations answer 401 with the same body. */
  unauthorized: (status: 401 | 403) =>
    new LmsHttpError(status, { status: 'unauthorized', errors: [{ message: 'user not authorized to perform that action' }] }),
  notFound: () => new LmsHttpError(404, { errors: [{ message: 'The specified resource does not exist.' }] }),
  missingParameter: (name: string) => new LmsHttpError(400, { errors: [{ message: `${name} is missing` }] }),
  invalid: (errors: unknown) => new LmsHttpError(400, { errors }),
};
