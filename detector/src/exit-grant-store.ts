/**
 * The classic quiz result page is not an assessment page, so no proof can be made there; the exit grant redeemed on
 * the take page is kept in this tab's session storage until the result page shows the exit link. A value planted by
 * the page can only produce a link the service rejects: the grant is checked for syntax and expiry here and for
 * validity by the exit route.
 */
import { isBase64UrlToken } from '@exb/shared/base64url-token.js';
import type { AssessmentTarget } from './service-urls.js';

const KEY_PREFIX = 'exb-exit-grant:';

function key(target: AssessmentTarget): string {
  return `${KEY_PREFIX}${target.courseId}:${target.contentId}`;
}

export function saveExitGrant(
  storage: Storage | null,
  target: AssessmentTarget,
  grant: string,
  expiresInSeconds: number,
  now: number,
): void {
  if (storage === null) return;
  try {
    storage.setItem(key(target), JSON.stringify({ grant, expiresAt: now + expiresInSeconds * 1000 }));
  } catch {
    // Storage can be full or disabled; the exit link then only appears on pages that make their own proof.
  }
}

export function loadExitGrant(storage: Storage | null, target: AssessmentTarget, now: number): string | null {
  if (storage === null) return null;
  try {
    const raw = storage.getItem(key(target));
    if (raw === null) return null;
    const value: unknown = JSON.parse(raw);
    if (typeof value !== 'object' || value === null) return null;
    const { grant, expiresAt } = value as { grant?: unknown; expiresAt?: unknown };
    if (!isBase64UrlToken(grant) || typeof expiresAt !== 'number' || !(expiresAt > now)) return null;
    return grant;
  } catch {
    return null;
  }
}
