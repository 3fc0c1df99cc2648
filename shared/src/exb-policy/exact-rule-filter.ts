/** What the exam browser's URL filter makes of an exact URL, and the save-time refusals that follow from it. */
import { policyMessage, type PolicyMessage } from './messages.js';
import type { ExbUrlRule } from './schemas.js';

/**
 * How strictly a policy is checked. `save` (the default) applies every rule, for a policy someone is saving. `stored`
 * re-reads a policy saved earlier and leaves out the rules added since ({@link exactRuleMismatch}), so stored data
 * still loads and still builds configurations; it is refused only when someone saves it again.
 */
export type PolicyCheck = 'save' | 'stored';

/** A canonical exact URL the exam browser does not treat as that one page. */
export type ExactRuleMismatch = 'whole-host' | 'never-matches';

const DECODED_BEFORE_MATCHING = /\+|%(?:2f|2b|26|3d|3f|23)/i;

/**
 * Where the exam browser's URL filter parts from "this exact page" for an exact rule (a canonical URL from
 * {@link normalizeExactHttpsUrl}), as running the Windows client's own filter (`RequestFilter`, `SimplifiedRule`) on
 * the rules this service writes shows:
 * - `whole-host`: the path `/` adds no path condition, so `https://tool.example/?lang=en` allows every page of the host;
 * - `never-matches`: the filter decodes the requested URL before matching while the rule keeps its encoded form, so a
 *   rule containing `+` or an encoded reserved character (`%2F %2B %26 %3D %3F %23`) never matches its own URL and the
 *   student stays blocked from what the instructor allowed.
 * Both are refused at save time. A third difference cannot be refused, only told (the policy editor's help text does):
 * paths and queries match case-insensitively, so `/Reserves` also allows `/reserves`.
 */
export function exactRuleMismatch(href: string): ExactRuleMismatch | null {
  const url = new URL(href);
  if (DECODED_BEFORE_MATCHING.test(`${url.pathname}${url.search}`)) return 'never-matches';
  if (url.pathname === '/') return 'whole-host';
  return null;
}

// Messages name what the person saving sees ("a whole site", "the websites this tool needs"), never field names.
export const MISMATCH_MESSAGES: Readonly<Record<ExactRuleMismatch, PolicyMessage>> = {
  'whole-host': policyMessage('rule.wholeHost'),
  'never-matches': policyMessage('rule.neverMatches'),
};

export const LAUNCH_WHOLE_HOST_MESSAGE = policyMessage('tool.launchWholeHost');

/** The save-time refusal of an exact URL the filter would read differently, or `null` when it means that one page. */
export function exactRuleRefusal(href: string, check: PolicyCheck): PolicyMessage | null {
  if (check === 'stored') return null;
  const mismatch = exactRuleMismatch(href);
  return mismatch === null ? null : MISMATCH_MESSAGES[mismatch];
}

/** True when a domain rule among `rules` allows `host` (the host itself or one of its parent domains). */
export function domainRuleCovers(rules: readonly ExbUrlRule[], host: string): boolean {
  return rules.some((rule) => rule.match === 'domain' && (host === rule.value || host.endsWith(`.${rule.value}`)));
}
