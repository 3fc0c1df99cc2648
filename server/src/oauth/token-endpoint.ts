import { z } from 'zod';
import { LmsInvalidResponseError, LmsRateLimitedError, LmsUnavailableError } from '../lms/errors.js';
import { boundedFetch, Deadline, isRateLimited, parseJsonBody, type FetchLike, type RawResponse } from '../lms/http.js';

/** Document 1: the token response is limited to 64 KB. */
export const TOKEN_RESPONSE_MAX_BYTES = 64 * 1024;
/** Deadline of one token-endpoint call (the contract leaves it open). */
export const TOKEN_ENDPOINT_DEADLINE_MS = 10_000;

const tokenResponseSchema = z.object({
  access_token: z.string().min(1).max(4096),
  token_type: z.string().regex(/^bearer$/i),
  user: z
    .object({
      id: z.union([z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), z.string().regex(/^\d{1,20}$/)]).transform(String),
      name: z.string().max(512).nullish(),
      global_id: z.union([z.string().max(64), z.number()]).nullish(),
    })
    .optional(),
  refresh_token: z.string().min(1).max(4096).nullish(),
  expires_in: z.number().int().positive().max(10 * 365 * 24 * 3600).nullish(),
  canvas_region: z.string().max(64).nullish(),
});

export interface TokenGrant {
  accessToken: string;
  /** Absent on a refresh: the LMS keeps the refresh token (note §3.2). */
  refreshToken: string | null;
  /** `null`: the token does not expire. */
  expiresInSeconds: number | null;
  user: { id: string; name: string | null; globalId: string | null } | null;
  region: string | null;
}

/**
 * The LMS refused the grant itself: the code is unknown, used or expired, or the refresh token was revoked. Only a new
 * authorization helps. Carries the OAuth `error` value (a fixed vocabulary) and never the description or any token.
 */
export class TokenGrantRejectedError extends Error {
  constructor(
    readonly operation: string,
    readonly oauthError: string,
    readonly status: number,
  ) {
    super(`LMS ${operation}: grant rejected (${oauthError}, HTTP ${status})`);
    this.name = 'TokenGrantRejectedError';
  }
}

/** The service's client id or secret were refused: an operator problem, not the user's. */
export class TokenClientRejectedError extends Error {
  constructor(
    readonly operation: string,
    readonly status: number,
  ) {
    super(`LMS ${operation}: client credentials rejected (HTTP ${status})`);
    this.name = 'TokenClientRejectedError';
  }
}

export interface TokenEndpointSettings {
  lmsUrl: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  fetch?: FetchLike;
  deadlineMs?: number;
  maxBytes?: number;
}

const OAUTH_ERROR = /^[a-z_]{1,64}$/;

/**
 * `POST {lms_url}/login/oauth2/token` for the authorization-code and refresh-token grants, server side only. The
 * client secret travels in the form body (the LMS accepts it there or as Basic auth) and never leaves this module.
 */
export class LmsTokenEndpoint {
  private readonly url: URL;

  constructor(private readonly settings: TokenEndpointSettings) {
    this.url = new URL('/login/oauth2/token', settings.lmsUrl);
  }

  exchangeCode(code: string): Promise<TokenGrant> {
    return this.post('exchangeCode', { grant_type: 'authorization_code', code, redirect_uri: this.settings.redirectUri });
  }

  refresh(refreshToken: string): Promise<TokenGrant> {
    return this.post('refreshToken', { grant_type: 'refresh_token', refresh_token: refreshToken });
  }

  /**
   * `DELETE {lms_url}/login/oauth2/token`: ends a token the service will not keep (one issued to the wrong user), so
   * it does not stay usable in the LMS. Best effort: `false` when the LMS did not confirm.
   */
  async revoke(accessToken: string): Promise<boolean> {
    try {
      const response = await boundedFetch(this.settings.fetch ?? globalThis.fetch, {
        operation: 'revokeToken',
        method: 'DELETE',
        url: this.url,
        headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
        deadline: new Deadline(this.settings.deadlineMs ?? TOKEN_ENDPOINT_DEADLINE_MS),
        maxBytes: this.settings.maxBytes ?? TOKEN_RESPONSE_MAX_BYTES,
      });
      return response.status === 200;
    } catch {
      return false;
    }
  }

  private async post(operation: string, fields: Record<string, string>): Promise<TokenGrant> {
    const body = new URLSearchParams({ ...fields, client_id: this.settings.clientId, client_secret: this.settings.clientSecret });
    const response = await boundedFetch(this.settings.fetch ?? globalThis.fetch, {
      operation,
      method: 'POST',
      url: this.url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: body.toString(),
      deadline: new Deadline(this.settings.deadlineMs ?? TOKEN_ENDPOINT_DEADLINE_MS),
      maxBytes: this.settings.maxBytes ?? TOKEN_RESPONSE_MAX_BYTES,
    });
    if (response.status !== 200) throw this.failure(operation, response);
    const parsed = tokenResponseSchema.safeParse(parseJsonBody(operation, response));
    if (!parsed.success) throw new LmsInvalidResponseError(operation, 'token response has an unexpected shape', response.status);
    const token = parsed.data;
    return {
      accessToken: token.access_token,
      refreshToken: token.refresh_token ?? null,
      expiresInSeconds: token.expires_in ?? null,
      user: token.user
        ? { id: token.user.id, name: token.user.name ?? null, globalId: token.user.global_id == null ? null : String(token.user.global_id) }
        : null,
      region: token.canvas_region ?? null,
    };
  }

  private failure(operation: string, response: RawResponse): Error {
    if (response.status >= 500) return new LmsUnavailableError(operation, response.status);
    if (isRateLimited(response)) return new LmsRateLimitedError(operation, response.status);
    let oauthError = 'unknown';
    try {
      const value = (parseJsonBody(operation, response) as { error?: unknown }).error;
      if (typeof value === 'string' && OAUTH_ERROR.test(value)) oauthError = value;
    } catch {
      // Not JSON: classified by status alone.
    }
    if (response.status === 401 || oauthError === 'invalid_client') return new TokenClientRejectedError(operation, response.status);
    // The LMS answers a revoked refresh token with `invalid_request` rather than `invalid_grant` (note §3.2).
    if (response.status === 400 && (oauthError === 'invalid_grant' || oauthError === 'invalid_request')) {
      return new TokenGrantRejectedError(operation, oauthError, response.status);
    }
    return new LmsInvalidResponseError(operation, `token endpoint answered HTTP ${response.status}`, response.status);
  }
}
