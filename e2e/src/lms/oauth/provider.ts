import type { LmsCore } from '../context.js';
import { lmsTokenString, randomToken } from '../ids.js';
import { APPLICATION_SCOPES } from '../scopes.js';
import type { AccessTokenRecord, User } from '../state.js';

export const CODE_LIFETIME_MS = 10 * 60 * 1000;
const APPROVAL_LIFETIME_MS = 30 * 60 * 1000;

/** The token endpoint's error answer: `{ error, error_description }`. */
export class OAuthError extends Error {
  constructor(
    readonly status: 400 | 401,
    readonly error: string,
    readonly description: string,
  ) {
    super(`${error}: ${description}`);
  }

  get body() {
    return { error: this.error, error_description: this.description };
  }

  /** 401 answers carry the LMS's OAuth challenge. */
  get headers(): Record<string, string> {
    return this.status === 401 ? { 'www-authenticate': 'Canvas OAuth 2.0' } : {};
  }
}

export interface TokenResponseBody {
  access_token: string;
  token_type: 'Bearer';
  user: { id: number; name: string; global_id: string; effective_locale: string };
  canvas_region: string;
  refresh_token?: string;
  expires_in?: number;
}

export interface IssuedToken {
  accessToken: string;
  refreshToken: string;
  record: AccessTokenRecord;
  response: TokenResponseBody;
}

/** A request to `GET /login/oauth2/auth`, after validation. */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state: string | undefined;
}

/**
 * Outcome of validating an authorization request: either it may be shown for approval, or it fails with a JSON answer
 * (client or redirect URI unusable, so nothing can be sent back), or with an error redirected to the client.
 */
export type AuthorizationCheck =
  | { kind: 'ok'; request: AuthorizationRequest }
  | { kind: 'reject'; error: OAuthError }
  | { kind: 'redirect'; location: string };

export function globalUserId(userId: number): string {
  return String(10000000000000 + userId);
}

function withQuery(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  return url.toString();
}

/** Rails' `Array#to_sentence` (English): `a`, `a and b`, `a, b, and c`. */
export function toSentence(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  if (items.length === 2) return `${items[0]} and ${items[1]}`;
  return `${items.slice(0, -1).join(', ')}, and ${items.at(-1)}`;
}

/** The LMS's OAuth 2.0 provider for its REST API (authorization-code and refresh-token grants). */
export class OAuthProvider {
  private tokenIds = 0;

  constructor(private readonly lms: LmsCore) {}

  findByAccessToken(accessToken: string): AccessTokenRecord | undefined {
    for (const token of this.lms.state.tokens.values()) if (token.accessToken === accessToken) return token;
    return undefined;
  }

  private findByRefreshToken(refreshToken: string): AccessTokenRecord | undefined {
    for (const token of this.lms.state.tokens.values()) if (token.refreshToken === refreshToken) return token;
    return undefined;
  }

  private clientScopes(): string[] {
    return this.lms.tool.oauthScopes;
  }

  checkAuthorizationRequest(params: {
    client_id?: string | undefined;
    response_type?: string | undefined;
    redirect_uri?: string | undefined;
    scope?: string | undefined;
    state?: string | undefined;
  }): AuthorizationCheck {
    const { tool, settings } = this.lms;
    if (params.client_id !== tool.oauthClientId) {
      return { kind: 'reject', error: new OAuthError(401, 'invalid_client', 'unknown client') };
    }
    if (!params.redirect_uri || !tool.oauthRedirectUris.includes(params.redirect_uri)) {
      return {
        kind: 'reject',
        error: new OAuthError(400, 'invalid_request', 'redirect_uri does not match client settings'),
      };
    }
    const back = (error: string, description: string) => ({
      kind: 'redirect' as const,
      location: withQuery(params.redirect_uri!, { error, error_description: description, state: params.state }),
    });
    // Canvas `oauth2_provider_controller.rb#auth`, in its order: scopes first, then the response type. One `scope`
    // parameter with space-separated values. On a scope-enforcing key, the whole authorization is refused when any
    // requested scope is missing from the key, or when none is requested (`Canvas::OAuth::Provider#valid_scopes?`:
    // `@scopes.present? && @scopes.all? { |scope| key.scopes.include?(scope) }`).
    const scopes = (params.scope ?? '').split(/\s+/).filter(Boolean);
    if (settings.requireScopes) {
      const missing = scopes.filter((scope) => !this.clientScopes().includes(scope));
      if (scopes.length === 0 || missing.length > 0) {
        return back(
          'invalid_scope',
          `A requested scope is invalid, unknown, malformed, or exceeds the scope granted by the resource owner. The following scopes were requested, but not granted: ${toSentence(missing)}`,
        );
      }
    }
    if (params.response_type !== 'code') {
      return back('unsupported_response_type', 'Only response_type=code is permitted');
    }
    return { kind: 'ok', request: { clientId: params.client_id, redirectUri: params.redirect_uri, scopes, state: params.state } };
  }

  /** Remembers a validated request shown on the approval page, so the form only carries an opaque id. */
  holdForApproval(userId: number, request: AuthorizationRequest): string {
    const id = randomToken(18);
    this.lms.state.pendingApprovals.set(id, { id, userId, ...request, expiresAt: this.lms.clock.now() + APPROVAL_LIFETIME_MS });
    return id;
  }

  takePendingApproval(id: string, userId: number) {
    const pending = this.lms.state.pendingApprovals.get(id);
    this.lms.state.pendingApprovals.delete(id);
    if (!pending || pending.userId !== userId || pending.expiresAt <= this.lms.clock.now()) return undefined;
    return pending;
  }

  /** Issues a single-use, ten-minute authorization code and the redirect carrying it. */
  grantCode(userId: number, request: AuthorizationRequest): { code: string; redirectUrl: string } {
    const code = randomToken(32);
    this.lms.state.authorizationCodes.set(code, {
      code,
      userId,
      clientId: request.clientId,
      redirectUri: request.redirectUri,
      scopes: request.scopes,
      expiresAt: this.lms.clock.now() + CODE_LIFETIME_MS,
    });
    return { code, redirectUrl: withQuery(request.redirectUri, { code, state: request.state }) };
  }

  denyRedirect(request: AuthorizationRequest): string {
    return withQuery(request.redirectUri, { error: 'access_denied', state: request.state });
  }

  /**
   * Approves an authorization request as `user` without a browser, exactly as the approval page would, and returns
   * the code. Defaults: the service's API key, its first redirect URI, the application scopes.
   */
  approve(options: {
    user: number | string;
    scopes?: readonly string[];
    state?: string;
    redirectUri?: string;
    clientId?: string;
  }): { code: string; redirectUrl: string } {
    const user = this.lms.state.requireUser(options.user);
    const check = this.checkAuthorizationRequest({
      client_id: options.clientId ?? this.lms.tool.oauthClientId,
      response_type: 'code',
      redirect_uri: options.redirectUri ?? this.lms.tool.oauthRedirectUris[0],
      scope: (options.scopes ?? APPLICATION_SCOPES).join(' '),
      state: options.state,
    });
    if (check.kind === 'reject') throw check.error;
    if (check.kind === 'redirect') throw new Error(`Authorization refused: ${check.location}`);
    return this.grantCode(user.id, check.request);
  }

  private tokenResponse(record: AccessTokenRecord, user: User, includeRefresh: boolean): TokenResponseBody {
    const body: TokenResponseBody = {
      access_token: record.accessToken,
      token_type: 'Bearer',
      user: { id: user.id, name: user.name, global_id: globalUserId(user.id), effective_locale: user.locale },
      canvas_region: 'unknown',
    };
    if (includeRefresh) body.refresh_token = record.refreshToken;
    if (record.expiresAt !== null) body.expires_in = Math.round((record.expiresAt - this.lms.clock.now()) / 1000);
    return body;
  }

  private expiryFromNow(expiresIn?: number | null): number | null {
    const lifetime = expiresIn === undefined ? this.lms.settings.accessTokenLifetimeSeconds : expiresIn;
    return lifetime === null ? null : this.lms.clock.now() + lifetime * 1000;
  }

  /** Creates a token directly, as if the user had approved the service (for tests that skip the browser flow). */
  issueToken(options: {
    user?: number | string;
    userId?: number;
    scopes?: readonly string[];
    /** Seconds; `null` never expires; default the LMS's token lifetime. */
    expiresIn?: number | null;
    clientId?: string;
  }): IssuedToken {
    const user = this.lms.state.requireUser(options.userId ?? options.user ?? '');
    const record = this.createRecord(user.id, options.clientId ?? this.lms.tool.oauthClientId, [
      ...(options.scopes ?? APPLICATION_SCOPES),
    ], options.expiresIn);
    return {
      accessToken: record.accessToken,
      refreshToken: record.refreshToken,
      record,
      response: this.tokenResponse(record, user, true),
    };
  }

  private createRecord(userId: number, clientId: string, scopes: string[], expiresIn?: number | null): AccessTokenRecord {
    const record: AccessTokenRecord = {
      id: ++this.tokenIds,
      userId,
      clientId,
      scopes,
      accessToken: lmsTokenString(),
      refreshToken: lmsTokenString(),
      createdAt: this.lms.clock.now(),
      expiresAt: this.expiryFromNow(expiresIn),
      revokedAt: null,
    };
    this.lms.state.tokens.set(record.id, record);
    return record;
  }

  /** Revokes a token (by access token string or record); later use answers "Revoked access token." */
  revoke(token: string | AccessTokenRecord): void {
    const record = typeof token === 'string' ? this.findByAccessToken(token) : token;
    if (!record) throw new Error('No such access token');
    record.revokedAt = this.lms.clock.now();
  }

  /** Makes a token expired now; later use answers "Expired access token." */
  expire(token: string | AccessTokenRecord): void {
    const record = typeof token === 'string' ? this.findByAccessToken(token) : token;
    if (!record) throw new Error('No such access token');
    record.expiresAt = this.lms.clock.now() - 1000;
  }

  /** `POST /login/oauth2/token`. */
  exchange(form: Record<string, unknown>, authorization: string | null): TokenResponseBody {
    const text = (name: string) => {
      const value = form[name];
      return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
    };
    let clientId = text('client_id');
    let clientSecret = text('client_secret');
    const basic = /^Basic\s+(\S+)$/i.exec(authorization ?? '');
    if (basic) {
      const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
      const separator = decoded.indexOf(':');
      if (separator >= 0) {
        clientId ??= decodeURIComponent(decoded.slice(0, separator));
        clientSecret ??= decodeURIComponent(decoded.slice(separator + 1));
      }
    }
    const grantType = text('grant_type') ?? (text('code') ? 'authorization_code' : undefined);
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
      throw new OAuthError(400, 'unsupported_grant_type', 'The grant_type you requested is not currently supported');
    }
    const { tool } = this.lms;
    if (clientId !== tool.oauthClientId) throw new OAuthError(401, 'invalid_client', 'unknown client');
    if (clientSecret !== tool.oauthClientSecret) throw new OAuthError(401, 'invalid_client', 'invalid client');

    if (grantType === 'authorization_code') {
      const redirectUri = text('redirect_uri');
      if (!redirectUri || !tool.oauthRedirectUris.includes(redirectUri)) {
        throw new OAuthError(400, 'invalid_request', 'redirect_uri does not match client settings');
      }
      const codeValue = text('code');
      if (!codeValue) {
        throw new OAuthError(
          400,
          'invalid_request',
          'You must provide the code parameter when using the authorization_code grant type',
        );
      }
      const code = this.lms.state.authorizationCodes.get(codeValue);
      // Codes are single use: the first exchange removes them, whatever its outcome.
      this.lms.state.authorizationCodes.delete(codeValue);
      if (!code || code.expiresAt <= this.lms.clock.now()) {
        throw new OAuthError(400, 'invalid_grant', 'authorization_code not found');
      }
      if (code.clientId !== clientId) throw new OAuthError(400, 'invalid_grant', 'incorrect client');
      const user = this.lms.state.users.get(code.userId);
      if (!user) throw new OAuthError(400, 'invalid_grant', 'authorization_code not found');
      if (text('replace_tokens') === '1' || text('replace_tokens') === 'true') {
        for (const [id, token] of this.lms.state.tokens) {
          if (token.userId === user.id && token.clientId === clientId) this.lms.state.tokens.delete(id);
        }
      }
      const record = this.createRecord(user.id, clientId, code.scopes);
      return this.tokenResponse(record, user, true);
    }

    const refreshToken = text('refresh_token');
    if (!refreshToken) {
      throw new OAuthError(
        400,
        'invalid_request',
        'You must provide the refresh_token parameter when using the refresh_token grant type',
      );
    }
    const record = this.findByRefreshToken(refreshToken);
    if (!record || record.revokedAt !== null) throw new OAuthError(400, 'invalid_request', 'refresh_token not found');
    if (record.clientId !== clientId) throw new OAuthError(400, 'invalid_grant', 'incorrect client');
    const user = this.lms.state.users.get(record.userId);
    if (!user) throw new OAuthError(400, 'invalid_request', 'refresh_token not found');
    // Refreshing regenerates the same token record: the previous access token stops working at once.
    record.accessToken = lmsTokenString();
    record.expiresAt = this.expiryFromNow();
    return this.tokenResponse(record, user, false);
  }
}
