import { isoSeconds } from './clock.js';
import type { LmsRuntime } from './runtime.js';
import { LmsHttpError, apiErrors } from './errors.js';
import { safeEqual } from './ids.js';
import type { ParamObject } from './params.js';
import { scopesAllow } from './scopes.js';
import type { AccessTokenRecord, User } from './state.js';

export interface ApiAuth {
  /** The access token of the call; `null` when the browser's LMS session made it (the LMS's own pages do). */
  token: AccessTokenRecord | null;
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
 * Authenticates an API call the way the LMS does, in its order. A presented token must be known, not revoked and not
 * expired; then, on a scope-enforcing developer key, one of the token's `url:METHOD|/path` scopes must match the
 * request. Without a token, the browser's LMS session authenticates the call (scopes belong to tokens and do not
 * apply), but a call that changes something must carry the session's authenticity token. The user's rights in the
 * addressed course or account are checked by each handler afterwards.
 */
export function authenticateApiCall(
  lms: LmsRuntime,
  request: Request,
  url: URL,
  session: { cookies: Record<string, string>; body: ParamObject },
): ApiAuth {
  const presented = bearerToken(request, url);
  if (!presented) return sessionAuth(lms, request, session);
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

function sessionAuth(lms: LmsRuntime, request: Request, { cookies, body }: { cookies: Record<string, string>; body: ParamObject }): ApiAuth {
  const webSession = lms.sessions.fromCookies(cookies);
  const user = lms.sessions.userOf(webSession);
  if (!webSession || !user) throw apiErrors.unauthenticated();
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    const presented = request.headers.get('x-csrf-token') ?? (typeof body.authenticity_token === 'string' ? body.authenticity_token : '');
    if (!safeEqual(presented, webSession.csrfToken)) {
      throw new LmsHttpError(422, { errors: [{ message: 'Invalid AuthenticityToken' }] });
    }
  }
  return { token: null, user };
}

/**
 * The parameters a handler sees. On a scope-enforcing developer key without "Allow Include Parameters", Canvas removes
 * `include` and `includes` from a token's request, keeping only `uuid` from an array and dropping a single value
 * altogether (`lib/authentication_methods.rb#validate_scopes`, `#filter_includes`, `ALLOWED_SCOPE_INCLUDES`). The
 * request still succeeds; the answer just lacks what the includes would have added.
 */
export function paramsForHandler(lms: LmsRuntime, auth: ApiAuth | null, params: ParamObject): ParamObject {
  if (!auth?.token || !lms.settings.requireScopes || lms.settings.allowIncludes) return params;
  const filtered = { ...params };
  for (const key of ['include', 'includes']) {
    if (!Object.hasOwn(filtered, key)) continue;
    const value = filtered[key];
    if (Array.isArray(value)) filtered[key] = value.filter((entry) => entry === 'uuid');
    else delete filtered[key];
  }
  return filtered;
}

/** The "user not authorized" answer, with the status this LMS uses. */
export function notAuthorized(lms: LmsRuntime) {
  return apiErrors.unauthorized(lms.settings.unauthorizedStatus);
}
