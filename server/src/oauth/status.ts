import { z } from 'zod';
import type { SessionData } from '../security/session.js';
import type { AccessTokenService } from './access-tokens.js';

const statusQuerySchema = z.object({ user_id: z.string().max(64).optional() });

/**
 * `GET /api/oauth2status`: `true` only when a valid, non-expired access token is stored for the instructor. An
 * expired token with a working refresh token is refreshed first (so the answer describes the token that is stored
 * afterwards); every other case, including malformed input and LMS or database trouble, is `false` rather than an
 * error status.
 */
export async function authorizationStatus(accessTokens: AccessTokenService, session: SessionData | null, rawQuery: unknown): Promise<boolean> {
  const principal = session?.principal;
  if (!principal || principal.kind !== 'instructor') return false;
  const query = statusQuerySchema.safeParse(rawQuery ?? {});
  if (!query.success) return false;
  if (query.data.user_id !== undefined && query.data.user_id !== principal.lmsUserId) return false;
  try {
    await accessTokens.current(principal.lmsUserId, 'oauth2status');
    return true;
  } catch {
    return false;
  }
}
