import { isoSeconds } from './clock.js';
import type { LmsRuntime } from './context.js';
import { apiErrors } from './errors.js';
import { scopesAllow } from './scopes.js';
import type { AccessTokenRecord, User } from './state.js';

export interface ApiAuth {
  token: AccessTokenRecord;
  user: User;
}

function bearerToken(request: Request, url: URL): string | undefined {
  const header = request.headers.get('authorization');
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1];
  }
  return url.searchParams.get('access_token') ?? undefined;
}

/**
 * Authenticates an API call the way the LMS does, in its order: a token must be present, known, not revoked and not
 * expired; then, on a scope-enforcing developer key, one of the token's `url:METHOD|/path` scopes must match the
 * request. The user's rights in the addressed course or account are checked by each handler afterwards.
 */
export function authenticateApiCall(lms: LmsRuntime, request: Request, url: URL): ApiAuth {
  const presented = bearerToken(request, url);
  if (!presented) throw apiErrors.unauthenticated();
  const token = lms.oauth.findByAccessToken(presented);
  if (!token) throw apiErrors.invalidToken();
  if (token.revokedAt !== null) throw apiErrors.revokedToken();
  if (token.expiresAt !== null && lms.clock.now() >= token.expiresAt) {
    throw apiErrors.expiredToken(isoSeconds(token.expiresAt));
  }
  const user = lms.state.users.get(token.userId);
  if (!user) throw apiErrors.invalidToken();
  if (lms.settings.requireScopes && !scopesAllow(token.scopes, request.method, url.pathname)) {
    throw apiErrors.insufficientScopes();
  }
  return { token, user };
}

/** The "user not authorized" answer, with the status this LMS uses. */
export function notAuthorized(lms: LmsRuntime) {
  return apiErrors.unauthorized(lms.settings.unauthorizedStatus);
}
