/**
 * What the exam browser's URL filter makes of an exact URL: the filter expression that means that one page, and the
 * save-time refusals of the URLs no expression can mean.
 *
 * Safe Exam Browser for Windows URL-decodes every request before its filter compares it with a rule
 * (`RequestHandler.Block`: `WebUtility.UrlDecode`, then `System.Uri`), while a rule's expression is compared as written
 * (`SimplifiedRule`). `System.Uri` then escapes again only the characters a URI may not hold raw. So an expression
 * must spell each character the way the decoded request shows it: decoded where the decoding keeps it (`:` `'` `(`
 * `)` `,` `!` `$` `;` `~` ...), escaped where `System.Uri` escapes it again (space, `"`, `<`, `>`, `` ` ``, `^`, `{`, `|`,
 * `}`, a lone `%` as `%25`, non-ASCII as UTF-8), which SEB's own decisions over 1,548 probes confirm. An expression
 * without a port matches every port of its host, so the default port is written out.
 */
import { policyMessage, type PolicyMessage } from './messages.js';
import type { ExbUrlRule } from './schemas.js';

/**
 * How strictly a policy is checked. `save` (the default) applies every rule, for a policy someone is saving. `stored`
 * re-reads a policy saved earlier and leaves out the rules added since ({@link exactRuleMismatch}), so stored data
 * still loads and still builds configurations; it is refused only when someone saves it again.
 */
export type PolicyCheck = 'save' | 'stored';

/**
 * A canonical exact URL no filter expression means as "this one page":
 * - `whole-host`: the path `/` adds no path condition, so `https://tool.example/?lang=en` would allow every page;
 * - `never-matches`: a `+` or an encoded reserved character (`%2F %2B %26 %3D %3F %23`) is a different character once
 *   decoded (a space, a path or query delimiter), so no expression matches the page and only it;
 * - `at-sign`: an `@` (also `%40`) in the path or query, which the expression syntax reads as the end of a user name;
 * - `wildcard`: a `*` (`%2A`), which an expression can only write as "any text";
 * - `undecodable`: an escape that does not survive the decoding as one character the filter can compare: bytes that
 *   are not UTF-8 (`%FF`), control characters, `%5C` in the path (the filter reads it as `/`), or an escaped `%`
 *   followed by two hex digits (decoded, it looks like an escape again), or a query that decodes to `.` (the syntax's
 *   "no query").
 */
export type ExactRuleMismatch = 'whole-host' | 'never-matches' | 'at-sign' | 'wildcard' | 'undecodable';

export type ExactUrlExpression = { readonly ok: true; readonly expression: string } | { readonly ok: false; readonly mismatch: ExactRuleMismatch };

/** Escapes that decode into a delimiter or another character, refused since the first save-time checks. */
const RESERVED_ESCAPES = new Set(['%2F', '%2B', '%26', '%3D', '%3F', '%23']);
/** Characters `System.Uri` escapes again after the decoding, wherever they appear in a path or query. */
const ESCAPED_AGAIN = new Set([' ', '"', '<', '>', '`', '^', '{', '|', '}']);
const HEX_PAIR = /^[0-9a-fA-F]{2}$/;

function escaped(char: string): string {
  return [...new TextEncoder().encode(char)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/** The text as the filter compares it, spelled as an expression, or why it cannot be. */
function decodedPart(text: string, part: 'path' | 'query'): { ok: true; value: string } | { ok: false; mismatch: ExactRuleMismatch } {
  if (text.includes('+')) return { ok: false, mismatch: 'never-matches' };
  // Split into literal characters and runs of escapes; each run is decoded as UTF-8 like the filter does.
  const pieces: string[] = [];
  for (let i = 0; i < text.length; ) {
    if (text[i] === '%' && HEX_PAIR.test(text.slice(i + 1, i + 3))) {
      const bytes: number[] = [];
      while (text[i] === '%' && HEX_PAIR.test(text.slice(i + 1, i + 3))) {
        if (RESERVED_ESCAPES.has(text.slice(i, i + 3).toUpperCase())) return { ok: false, mismatch: 'never-matches' };
        bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
        i += 3;
      }
      let decoded: string;
      try {
        decoded = new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bytes));
      } catch {
        return { ok: false, mismatch: 'undecodable' };
      }
      pieces.push(...decoded);
    } else {
      const char = String.fromCodePoint(text.codePointAt(i) as number);
      pieces.push(char);
      i += char.length;
    }
  }
  let value = '';
  for (const [index, char] of pieces.entries()) {
    const code = char.codePointAt(0) as number;
    if (char === '@') return { ok: false, mismatch: 'at-sign' };
    if (char === '*') return { ok: false, mismatch: 'wildcard' };
    if (code < 0x20 || code === 0x7f || (char === '\\' && part === 'path')) return { ok: false, mismatch: 'undecodable' };
    if (char === '%') {
      // A `%` the decoding leaves before two hex digits reads as an escape again: no spelling pins it down.
      if (HEX_PAIR.test(pieces.slice(index + 1, index + 3).join(''))) return { ok: false, mismatch: 'undecodable' };
      value += '%25';
    } else if (code >= 0x80 || ESCAPED_AGAIN.has(char) || char === '\\') {
      value += escaped(char);
    } else {
      value += char;
    }
  }
  return { ok: true, value };
}

/**
 * The filter expression of a canonical exact URL (from {@link normalizeExactHttpsUrl}): `https://.host:port/path?query`,
 * the leading `.` for "this host only", the port always written, path and query spelled as the filter compares them.
 * Its promise, which the filter keeps: that page on that host and port, with or without one trailing `/`, letters in
 * any case, and any query when the URL has none. The filter decodes the request first, so a query with one `&` or `=`
 * sent encoded (`%26`, `%3D`) also matches; no expression can exclude that.
 */
export function exactUrlExpression(href: string): ExactUrlExpression {
  const url = new URL(href);
  const path = decodedPart(url.pathname, 'path');
  if (!path.ok) return path;
  const query = decodedPart(url.search.slice(1), 'query');
  if (!query.ok) return query;
  // The query `.` is the expression syntax's "no query".
  if (query.value === '.') return { ok: false, mismatch: 'undecodable' };
  if (url.pathname === '/') return { ok: false, mismatch: 'whole-host' };
  const port = url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port;
  const search = url.search === '' ? '' : `?${query.value}`;
  return { ok: true, expression: `${url.protocol}//.${url.hostname}:${port}${path.value}${search}` };
}

/** Where the exam browser's URL filter parts from "this exact page" for a canonical exact URL, or `null`. */
export function exactRuleMismatch(href: string): ExactRuleMismatch | null {
  const result = exactUrlExpression(href);
  return result.ok ? null : result.mismatch;
}

// Messages name what the person saving sees ("a whole site", "the websites this tool needs"), never field names.
export const MISMATCH_MESSAGES: Readonly<Record<ExactRuleMismatch, PolicyMessage>> = {
  'whole-host': policyMessage('rule.wholeHost'),
  'never-matches': policyMessage('rule.neverMatches'),
  'at-sign': policyMessage('rule.atSign'),
  wildcard: policyMessage('rule.wildcardEscape'),
  undecodable: policyMessage('rule.undecodable'),
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
