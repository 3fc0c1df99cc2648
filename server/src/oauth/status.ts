import { z } from 'zod';
import type { CoursePrincipal } from '../identity/principal.js';
import { LmsAuthorizationRequiredError } from '../lms/errors.js';
import type { SessionData } from '../security/session.js';
import type { AccessTokenService } from './access-tokens.js';
import { reauthorizeUrl } from './reauthorize.js';

const statusQuerySchema = z.object({ user_id: z.string().max(64).optional() });

/**
 * `GET /api/oauth2status`: `true` only when a valid, non-expired access token is stored for the instructor. It answers
 * from what is stored and never calls the LMS (an expired token counts as `false` even if its refresh would work; the
 * teacher view refreshes through {@link ensureAuthorization}). Every other case, including malformed input and an
 * unreadable record or database trouble, is `false` rather than an error status.
 */
export async function authorizationStatus(accessTokens: AccessTokenService, session: SessionData | null, rawQuery: unknown): Promise<boolean> {
  const principal = session?.principal;
  if (!principal || principal.kind !== 'instructor') return false;
  const query = statusQuerySchema.safeParse(rawQuery ?? {});
  if (!query.success) return false;
  if (query.data.user_id !== undefined && query.data.user_id !== principal.lmsUserId) return false;
  try {
    return await accessTokens.hasStoredAccessToken(principal);
  } catch {
    return false;
  }
}

/**
 * Whether the user must authorize the LMS: `authUrl` is set when a grant existed but the LMS no longer accepts it
 * (the re-authorization start), and absent when there never was one.
 */
export type AuthorizationCheck = { readonly authorized: true } | { readonly authorized: false; readonly authUrl?: string };

/**
 * Makes sure the instructor's LMS grant is usable now: a stored unexpired token answers at once; an expired one is
 * refreshed through the stored refresh token (the same single refresh every LMS call shares). Only a refresh the LMS
 * refuses, or no grant at all, means authorizing. LMS outages are thrown: authorizing again would not help with them.
 */
export async function ensureAuthorization(
  accessTokens: AccessTokenService,
  principal: Pick<CoursePrincipal, 'courseId' | 'lmsUserId' | 'issuer' | 'ltiSubject'>,
): Promise<AuthorizationCheck> {
  try {
    await accessTokens.current(principal, 'authorization.ensure');
    return { authorized: true };
  } catch (error) {
    if (!(error instanceof LmsAuthorizationRequiredError)) throw error;
    // No grant, or none for this signed identity yet (one stored before identity binding): a first connection.
    const firstConnection = error.reason === 'no-grant' || error.reason === 'identity-unproven';
    return firstConnection ? { authorized: false } : { authorized: false, authUrl: reauthorizeUrl(principal) };
  }
}
