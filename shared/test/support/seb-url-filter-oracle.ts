/**
 * A model of Safe Exam Browser for Windows' URL filter, for tests: given the active `URLFilterRules` of a configuration
 * and a requested URL, what the exam browser decides. Written from seb-win-refactoring (commit 8233d1c) and checked
 * against SEB's own decisions in `server/test/exb/fixtures/seb-url-filter-decisions.json`:
 * - `SafeExamBrowser.Browser/Handlers/RequestHandler.cs` (`Block`): the request URL is passed through
 *   `WebUtility.UrlDecode` first, and only a URL that `Uri.TryCreate` accepts is filtered at all;
 * - `SafeExamBrowser.Browser/Filters/RequestFilter.cs` (`Process`): any matching block rule blocks, else any matching
 *   allow rule allows, else the default (block);
 * - `SafeExamBrowser.Browser/Filters/Rules/SimplifiedRule.cs`: the expression is split into scheme, user info, host,
 *   port, path, query and fragment; each present part becomes an anchored, case-insensitive pattern (`*` = any text)
 *   compared with the matching property of `System.Uri` built from the decoded request;
 * - `SafeExamBrowser.Browser/Filters/Rules/RegexRule.cs`: an unanchored case-insensitive search over the decoded URL.
 *
 * `System.Uri` (the .NET reference source Mono runs) normalises the decoded URL before the parts are compared: the
 * scheme and host are lower-cased, a missing port becomes the scheme's default, backslashes in the path become `/`,
 * dot segments are removed, and the characters a URI may not hold raw are escaped again in the path, query and fragment
 * (space, `"`, `<`, `>`, `` ` ``, `^`, `{`, `|`, `}`, controls, non-ASCII as UTF-8, a `%` that does not start an escape;
 * in the query and fragment also `\`). Every other character stays as the decoding left it, which is why an expression
 * keeping `%3A` or `%27` never matches.
 */

export type SebDecision = 'ALLOW' | 'BLOCK';

export interface SebFilterRule {
  readonly expression: string;
  readonly action: 'allow' | 'block';
  readonly regex: boolean;
}

/** The parts of a request as SEB's rules see them (`System.Uri` properties of the decoded URL). */
export interface SebRequestParts {
  readonly scheme: string;
  readonly userInfo: string;
  readonly host: string;
  readonly port: number;
  readonly absolutePath: string;
  /** `''` or `?` followed by the escaped query. */
  readonly query: string;
  /** `''` or `#` followed by the escaped fragment. */
  readonly fragment: string;
  /** The decoded URL the regex rules search. */
  readonly url: string;
}

// ---- Decoding the request (WebUtility.UrlDecode) ----

const HEX = /^[0-9a-fA-F]{2}$/;

/**
 * `WebUtility.UrlDecode`: `+` becomes a space, every `%XX` becomes the byte XX, and runs of bytes are read as UTF-8
 * (an invalid sequence becomes U+FFFD). A `%` not followed by two hex digits stays as it is.
 */
export function webUtilityUrlDecode(value: string): string {
  const decoder = new TextDecoder('utf-8', { fatal: false });
  let out = '';
  let bytes: number[] = [];
  const flush = () => {
    if (bytes.length > 0) out += decoder.decode(new Uint8Array(bytes));
    bytes = [];
  };
  for (let i = 0; i < value.length; i += 1) {
    const ch = value[i] as string;
    if (ch === '+') {
      bytes.push(0x20);
    } else if (ch === '%' && HEX.test(value.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(value.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (ch.charCodeAt(0) < 0x80) {
      bytes.push(ch.charCodeAt(0));
    } else {
      flush();
      out += ch;
    }
  }
  flush();
  return out;
}

// ---- The decoded URL as System.Uri gives it ----

const DEFAULT_PORTS: Readonly<Record<string, number>> = { http: 80, https: 443 };
/** Characters System.Uri escapes wherever they appear in the path, query or fragment. */
const ALWAYS_ESCAPED = new Set([' ', '"', '<', '>', '`', '^', '{', '|', '}']);

function escapeUriPart(part: string, escapeBackslash: boolean): string {
  let out = '';
  for (let i = 0; i < part.length; i += 1) {
    const ch = part[i] as string;
    const code = ch.codePointAt(0) as number;
    if (ch === '%') {
      // An escape the decoding produced (from `%25XX`) stays an escape; a lone `%` is escaped.
      out += HEX.test(part.slice(i + 1, i + 3)) ? '%' : '%25';
    } else if (code < 0x20 || code === 0x7f || ALWAYS_ESCAPED.has(ch) || (escapeBackslash && ch === '\\')) {
      out += `%${code.toString(16).toUpperCase().padStart(2, '0')}`;
    } else if (code >= 0x80) {
      const full = String.fromCodePoint(code);
      for (const byte of new TextEncoder().encode(full)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
      if (full.length === 2) i += 1;
    } else {
      out += ch;
    }
  }
  return out;
}

/** RFC 3986 remove_dot_segments, as System.Uri compresses hierarchical paths. */
function removeDotSegments(path: string): string {
  const output: string[] = [];
  const segments = path.split('/').slice(1);
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1;
    if (segment === '.' || segment === '..') {
      if (segment === '..' && output.length > 0) output.pop();
      if (last) output.push('');
    } else {
      output.push(segment);
    }
  }
  return `/${output.join('/')}`;
}

const HOST = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.?$/;

/**
 * The `System.Uri` view of a decoded absolute http(s) URL, or `null` when `Uri.TryCreate` would refuse it (SEB then
 * does not filter the request). Only the http(s) URLs the tests probe are modelled; anything else throws, so a test
 * cannot silently rely on an unmodelled case.
 */
export function dotNetUri(decoded: string): SebRequestParts | null {
  const head = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(decoded);
  if (head === null) throw new Error(`oracle: unmodelled URL ${decoded}`);
  const scheme = (head[1] as string).toLowerCase();
  const defaultPort = DEFAULT_PORTS[scheme];
  if (defaultPort === undefined) throw new Error(`oracle: unmodelled scheme ${scheme}`);
  const rest = decoded.slice(head[0].length);
  const authorityEnd = rest.search(/[/\\?#]/);
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  let tail = authorityEnd < 0 ? '' : rest.slice(authorityEnd);
  const at = authority.lastIndexOf('@');
  const userInfo = at < 0 ? '' : authority.slice(0, at);
  const hostPort = at < 0 ? authority : authority.slice(at + 1);
  const portMatch = /^(.*?)(?::(\d*))?$/.exec(hostPort) as RegExpExecArray;
  const host = (portMatch[1] as string).toLowerCase();
  if (!HOST.test(host)) return null;
  const portText = portMatch[2];
  const port = portText === undefined || portText === '' ? defaultPort : Number(portText);
  if (port > 65535) return null;

  const hashAt = tail.indexOf('#');
  const rawFragment = hashAt < 0 ? null : tail.slice(hashAt + 1);
  if (hashAt >= 0) tail = tail.slice(0, hashAt);
  const queryAt = tail.indexOf('?');
  const rawQuery = queryAt < 0 ? null : tail.slice(queryAt + 1);
  const rawPath = queryAt < 0 ? tail : tail.slice(0, queryAt);

  const path = removeDotSegments(rawPath === '' ? '/' : rawPath.replaceAll('\\', '/'));
  const absolutePath = escapeUriPart(path, false);
  const query = rawQuery === null || rawQuery === '' ? '' : `?${escapeUriPart(rawQuery, true)}`;
  const fragment = rawFragment === null || rawFragment === '' ? '' : `#${escapeUriPart(rawFragment, true)}`;
  return { scheme, userInfo, host, port, absolutePath, query, fragment, url: decoded };
}

// ---- The rules ----

/** A literal for a JavaScript pattern; with `*` turned into "any text" it is what `Regex.Escape` + `ReplaceWildcard` give. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\#\s/-]/g, (ch) => `\\${ch}`);
}

function withWildcards(text: string): string {
  return text.split('*').map(literal).join('.*');
}

function anchored(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`, 'i');
}

/**
 * How a simplified expression splits into its parts: `[scheme://][user[:password]@][host][:port][path][?query][#fragment]`,
 * every part optional, each one stopping at the delimiter that starts the next, the same grammar `SimplifiedRule` reads.
 * The port takes digits and `*` only; anything else after `:` falls into the path.
 */
const EXPRESSION_PARTS = new RegExp(
  [
    '^(?:([^:]*)://)?', // scheme
    '(?:([^:@]*)(?::([^@]*))?@)?', // user info
    '([^/:?#]*)?', // host
    '(?::([0-9*]*))?', // port
    '([^?#]*)?', // path
    '(?:\\?([^#]*))?', // query
    '(?:#(.*))?', // fragment
  ].join(''),
);

interface SimplifiedMatcher {
  readonly scheme?: RegExp;
  readonly userInfo?: RegExp;
  readonly host: RegExp;
  readonly port?: number;
  readonly path?: RegExp;
  readonly query?: RegExp;
  readonly fragment?: RegExp;
}

const isBlank = (text: string) => text.trim() === '';

export function compileSimplified(expression: string): SimplifiedMatcher {
  if (!/[a-zA-Z0-9*]/.test(expression)) throw new Error(`SEB refuses the expression ${expression}`);
  const parts = EXPRESSION_PARTS.exec(expression) as RegExpExecArray;
  const [scheme = '', user = '', password = '', host = '', port = '', path = '', query = '', fragment = ''] = parts.slice(1);
  const matcher: {
    -readonly [K in keyof SimplifiedMatcher]: SimplifiedMatcher[K];
  } = { host: /$^/ };
  if (scheme !== '') matcher.scheme = anchored(withWildcards(scheme));
  if (user !== '') {
    matcher.userInfo = anchored(
      password === '' ? `${withWildcards(user)}(?::.*)?` : `${withWildcards(user)}:${withWildcards(password)}`,
    );
  }
  // A leading `.` means "this host only"; a name of letters and digits only is taken as it is; any other name also
  // matches its subdomains.
  const exactHost = host.startsWith('.');
  const alphanumericHost = /^[a-zA-Z0-9]+$/.test(host);
  const hostPattern = withWildcards(exactHost ? host.slice(1) : host);
  matcher.host = anchored(!exactHost && !alphanumericHost ? `(?:.+?\\.)*${hostPattern}` : hostPattern);
  // Only a whole number is a port condition; without one, every port matches.
  if (/^\d+$/.test(port) && Number(port) <= 2147483647) matcher.port = Number(port);
  // The path `/` is no condition; any other path also matches with (or without) one trailing `/`.
  if (!isBlank(path) && path !== '/') {
    const pattern = withWildcards(path);
    matcher.path = anchored(path.endsWith('/') ? `${pattern}?` : `${pattern}/?`);
  }
  // The query `.` means "no query"; the request's query is compared with or without its leading `?`.
  if (!isBlank(query)) matcher.query = anchored(query === '.' ? '\\??' : `\\??${withWildcards(query)}`);
  if (!isBlank(fragment)) matcher.fragment = anchored(`#?${withWildcards(fragment)}`);
  return matcher;
}

function simplifiedMatches(matcher: SimplifiedMatcher, request: SebRequestParts): boolean {
  return (
    (matcher.scheme === undefined || matcher.scheme.test(request.scheme)) &&
    (matcher.userInfo === undefined || matcher.userInfo.test(request.userInfo)) &&
    matcher.host.test(request.host) &&
    (matcher.port === undefined || matcher.port === request.port) &&
    (matcher.path === undefined || matcher.path.test(request.absolutePath)) &&
    (matcher.query === undefined || matcher.query.test(request.query)) &&
    (matcher.fragment === undefined || matcher.fragment.test(request.fragment))
  );
}

export interface SebUrlFilter {
  decide(url: string): SebDecision;
}

/** A loaded filter: the rules of one configuration. */
export function sebUrlFilter(rules: readonly SebFilterRule[]): SebUrlFilter {
  const compiled = rules.map((rule) => {
    if (rule.regex) {
      const pattern = new RegExp(rule.expression, 'i');
      return { action: rule.action, matches: (request: SebRequestParts) => pattern.test(request.url) };
    }
    const matcher = compileSimplified(rule.expression);
    return { action: rule.action, matches: (request: SebRequestParts) => simplifiedMatches(matcher, request) };
  });
  const blocks = compiled.filter((rule) => rule.action === 'block');
  const allows = compiled.filter((rule) => rule.action === 'allow');
  return {
    decide(url) {
      const request = dotNetUri(webUtilityUrlDecode(url));
      // A URL System.Uri refuses is not filtered.
      if (request === null) return 'ALLOW';
      if (blocks.some((rule) => rule.matches(request))) return 'BLOCK';
      return allows.some((rule) => rule.matches(request)) ? 'ALLOW' : 'BLOCK';
    },
  };
}
