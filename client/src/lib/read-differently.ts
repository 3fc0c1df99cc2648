import { exactRuleMismatch, MISMATCH_MESSAGES, normalizeExactHttpsUrl } from '@exb/shared/exb-policy.js';
import { translatePolicyMessage } from './trpc';

/**
 * Why the exam browser reads an exact address differently than "this page", in the page's language, or `null`: the
 * reason a save would give, shown at the field at once, so a rule saved before today's save-time checks is seen before
 * the exam. A tool's launch address at the site root is the tool's own decision (`withSiteRoot`).
 */
export function readDifferentlyReason(value: string, { withSiteRoot = false }: { withSiteRoot?: boolean } = {}): string | null {
  const url = normalizeExactHttpsUrl(value);
  if (!url.ok) return null;
  const mismatch = exactRuleMismatch(url.value);
  if (mismatch === null || (withSiteRoot && mismatch === 'whole-host')) return null;
  return translatePolicyMessage(MISMATCH_MESSAGES[mismatch]);
}
