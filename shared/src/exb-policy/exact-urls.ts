/** Exact HTTPS URLs, as `exact` rules and tool launch addresses give them. */
import { refuse, type ValueCheck } from './errors.js';
import { checkAsciiHostname } from './hostnames.js';
import { EXB_POLICY_LIMITS } from './limits.js';
import { INVISIBLE_OR_CONTROL, parseUrl } from './text.js';

/**
 * Characters that only make sense as pattern syntax in a URL rule: wildcard, regular-expression anchors, classes,
 * alternation, quantifier braces and escapes. A literal one in a real URL can be percent-encoded.
 */
const PATTERN_SYNTAX = /[*\\^|{}[\]]|\(\?|\$$/;

/**
 * Whether an exact URL can be written as an exam-browser URL filter rule. The filter syntax reads whatever precedes an
 * `@` as user info and the query `.` as "no query", so such URLs would allow something other than what was entered.
 */
export function isFilterExpressible(href: string): boolean {
  return !href.includes('@') && new URL(href).search !== '?.';
}

/**
 * The canonical form of an exact HTTPS URL, or why it is not one. Accepted: `https://` followed by a concrete host
 * name, an optional non-default port, path and query. Refused: other schemes (`http:`, `javascript:`, `data:` ...),
 * credentials, IP addresses, reserved host names, pattern syntax, whitespace and control characters, and the spellings
 * browsers repair silently (`https:host`, backslashes, percent-encoded hosts), so what was reviewed is what is allowed.
 * The fragment is dropped: browsers never send it, so it cannot narrow a rule.
 *
 * This is the canonical form only; what the exam browser's filter makes of the URL is {@link exactRuleMismatch}.
 */
export function normalizeExactHttpsUrl(value: unknown): ValueCheck<string> {
  if (typeof value !== 'string') return refuse('url.expected');
  const raw = value.trim();
  if (raw.length === 0 || raw.length > EXB_POLICY_LIMITS.urlLength) {
    return refuse('url.length', { max: EXB_POLICY_LIMITS.urlLength });
  }
  if (!/^https:\/\//i.test(raw)) return refuse('url.httpsOnly');
  if (INVISIBLE_OR_CONTROL.test(raw)) return refuse('url.invisible');
  if (PATTERN_SYNTAX.test(raw)) {
    return refuse('url.pattern');
  }
  const authority = raw.slice('https://'.length).split(/[/?#]/, 1)[0] as string;
  if (authority.includes('@')) return refuse('url.credentials');
  if (authority.includes('%')) return refuse('url.percentHost');
  if (authority.startsWith('.')) return refuse('host.leadingDot');
  const url = parseUrl(raw);
  if (url === null || url.protocol !== 'https:') return refuse('url.invalid');
  if (url.port === '0') return refuse('url.port');
  const host = checkAsciiHostname(url.hostname);
  if (!host.ok) return host;
  url.hash = '';
  const normalized = url.href;
  if (normalized.length > EXB_POLICY_LIMITS.urlLength) return refuse('url.tooLong');
  if (!isFilterExpressible(normalized)) {
    return refuse('url.notExpressible');
  }
  return { ok: true, value: normalized };
}
