import { authorizationStartPath } from '@exb/shared/oauth-popup-ticket.js';
import type { CoursePrincipal } from '../identity/principal.js';

/**
 * Where an instructor route sends the user when the LMS no longer accepts their grant (Document 2: `authUrl` starts
 * with `/api/oauth2reauthorize`). The ids repeat the principal's own, which the start endpoint checks again.
 */
export function reauthorizeUrl(principal: Pick<CoursePrincipal, 'courseId' | 'lmsUserId'>, redirectUrl?: string): string {
  const query = new URLSearchParams({ course_id: principal.courseId, user_id: principal.lmsUserId });
  if (redirectUrl !== undefined) query.set('redirect_url', redirectUrl);
  return `${authorizationStartPath('oauth2reauthorize')}?${query.toString()}`;
}

export interface AuthorizationRequiredBody {
  success: false;
  requiresAuth: true;
  message: string;
  authUrl: string;
}

/** The instructor routes' answer to an authorization-required LMS error. */
export function authorizationRequiredBody(
  principal: Pick<CoursePrincipal, 'courseId' | 'lmsUserId'>,
  message = 'The LMS authorization has expired or was revoked. Authorize the tool again to continue.',
): AuthorizationRequiredBody {
  return { success: false, requiresAuth: true, message, authUrl: reauthorizeUrl(principal) };
}
