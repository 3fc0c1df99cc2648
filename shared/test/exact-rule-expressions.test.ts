import { describe, expect, it } from 'vitest';
import teacherDe from '../src/i18n/locales/de/teacher.json' with { type: 'json' };
import teacherEn from '../src/i18n/locales/en/teacher.json' with { type: 'json' };
import { exactUrlExpression, normalizeToolUrl, normalizeUrlRules } from '../src/exb-policy/index.js';
import { loadSebDecisionCases } from './support/seb-decisions.js';
import { dotNetUri, sebUrlFilter, webUtilityUrlDecode, type SebDecision } from './support/seb-url-filter-oracle.js';

// Every exact URL the editor accepts is written as a filter expression for which the exam browser (its filter as the
// oracle models it, checked against SEB's own decisions) decides exactly what the editor promises, for the fixture's
// probes and for variants of each rule's own address.

/**
 * The editor's promise for an exact rule: that page (scheme, host without subdomains, port, path, query) and only it,
 * with the freedoms its help text states:
 * - letters A-Z in any case;
 * - the path with or without one trailing `/`;
 * - any query when the rule has none;
 * - the address is decoded before it is compared: an escape and its character are the same (`%27` = `'`), also for
 *   `/ ? # & =` sent encoded (`book=42%26page=7` for `book=42&page=7`), and `+` counts as a space;
 * - an escape of a character the exam browser compares escaped (space, `"`, `<`, `>`, `` ` ``, `^`, `{`, `|`, `}`, `%`,
 *   non-ASCII) also matches sent escaped once more (`%2520` for `%20`).
 * The fragment is never part of the comparison.
 */
function promised(ruleHref: string, probe: string): SebDecision {
  const rule = pageOf(ruleHref);
  const request = pageOf(probe);
  const samePath = withoutTrailingSlash(rule.path) === withoutTrailingSlash(request.path);
  const sameQuery = rule.query === null || rule.query === (request.query ?? '');
  return rule.scheme === request.scheme && rule.host === request.host && rule.port === request.port && samePath && sameQuery
    ? 'ALLOW'
    : 'BLOCK';
}

const withoutTrailingSlash = (path: string) => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path);

/** Characters the exam browser compares escaped: their escape, sent escaped once more (`%2520`), is the same. */
const COMPARED_ESCAPED = /(?:%(?:20|22|25|3C|3E|5C|5E|60|7B|7C|7D|[89A-F][0-9A-F]))+/gi;

const asciiLower = (text: string) => text.replace(/[A-Z]/g, (char) => char.toLowerCase());

/** A URL as the promise compares it: decoded (UTF-8, `+` as space), split where the decoded text has `?` and `#`. */
function pageOf(href: string) {
  const head = /^(https?):\/\/([^/?#]*)(.*)$/i.exec(href);
  if (head === null) throw new Error(`not an http(s) URL: ${href}`);
  const [, scheme = '', authority = '', rest = ''] = head;
  const [host = '', port] = authority.split(':');
  const decoded = webUtilityUrlDecode(rest).replace(COMPARED_ESCAPED, (run) => webUtilityUrlDecode(run));
  const withoutFragment = decoded.split('#', 1)[0] as string;
  const queryAt = withoutFragment.indexOf('?');
  const path = queryAt < 0 ? withoutFragment : withoutFragment.slice(0, queryAt);
  const query = queryAt < 0 ? null : withoutFragment.slice(queryAt + 1);
  return {
    scheme: asciiLower(scheme),
    host: asciiLower(host),
    port: port === undefined || port === '' ? (asciiLower(scheme) === 'https' ? 443 : 80) : Number(port),
    path: asciiLower(path === '' ? '/' : path),
    query: query === null || query === '' ? null : asciiLower(query),
  };
}

const hex = (char: string) => [...new TextEncoder().encode(char)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');

/** Variants of a page's own address: case, slash, ports, hosts, paths, queries, and each character sent (de)coded. */
function variants(href: string): string[] {
  const url = new URL(href);
  const origin = `https://${url.host}`;
  const path = url.pathname;
  const search = url.search;
  const out = new Set<string>([
    href,
    `${origin}${path}/${search}`,
    `${origin}${path.replace(/\/$/, '')}${search}`,
    `${origin}${path.toUpperCase()}${search.toUpperCase()}`,
    `${origin}${path.toLowerCase()}${search.toLowerCase()}`,
    `${origin}${path}${search}#frag`,
    `https://${url.hostname}:8443${path}${search}`,
    `https://${url.hostname}:443${path}${search}`,
    `https://${url.hostname}:80${path}${search}`,
    `http://${url.hostname}${path}${search}`,
    `https://www.${url.host}${path}${search}`,
    `https://${url.hostname}.evil.example${path}${search}`,
    `https://${url.host.split('.').slice(1).join('.')}${path}${search}`,
    `${origin}/${search}`,
    `${origin}${path}/zz-child${search}`,
    `${origin}${path}zz${search}`,
    `${origin}${path}`,
    `${origin}${path}?zz=0`,
    `${origin}${path}${search === '' ? '?x=1' : `${search}&x=1`}`,
    `${origin}${path}${search}x`,
  ]);
  // Each character of the path and query sent encoded, and each escape sent as its character.
  const tail = `${path}${search}`;
  // From the second character: the first `/` sent encoded would end up in the host, which browsers refuse.
  for (let i = 1; i < tail.length; i += 1) {
    const char = tail[i] as string;
    if (char === '%') {
      out.add(`${origin}${tail.slice(0, i)}${webUtilityUrlDecode(tail.slice(i, i + 3))}${tail.slice(i + 3)}`);
      out.add(`${origin}${tail.slice(0, i)}%25${tail.slice(i + 1)}`);
    } else {
      out.add(`${origin}${tail.slice(0, i)}${hex(char)}${tail.slice(i + 1)}`);
      out.add(`${origin}${tail.slice(0, i)}${char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase()}${tail.slice(i + 1)}`);
    }
  }
  // Only addresses the exam browser filters at all (System.Uri accepts them after decoding).
  return [...out].filter((probe) => dotNetUri(webUtilityUrlDecode(probe)) !== null);
}

const cases = loadSebDecisionCases();

/** The fixture's exact rules as the addresses a teacher would have entered, and its probes per host. */
function fixtureAddresses(): string[] {
  const addresses = new Set<string>();
  for (const decisionCase of cases) {
    for (const rule of decisionCase.URLFilterRules) {
      const match = /^https:\/\/\.([^/]+)(\/.*)$/.exec(rule.expression);
      if (match !== null) addresses.add(`https://${match[1]}${match[2]}`);
    }
  }
  return [...addresses];
}

const probesByHost = new Map<string, string[]>();
for (const decisionCase of cases) {
  for (const probe of decisionCase.probes) {
    const host = new URL(probe.url).host;
    probesByHost.set(host, [...(probesByHost.get(host) ?? []), probe.url]);
  }
}

const CHARACTERS = [...'!"$&\'(),-.:;<=>_`~', '%20', '%25', 'ü', '€'];
const ESCAPES = [...Array.from({ length: 0x5f }, (_, index) => index + 0x20).map((code) => hex(String.fromCharCode(code))), '%C3%BC', '%FF', '%E2%82%AC'];

function ownAddresses(): string[] {
  const addresses: string[] = [];
  for (const char of CHARACTERS) {
    addresses.push(`https://own.example.org/p${char}q`, `https://own.example.org/p?v=a${char}b`);
  }
  for (const escape of ESCAPES) {
    addresses.push(`https://own.example.org/p${escape}q`, `https://own.example.org/p?v=a${escape}b`);
  }
  addresses.push(
    'https://own.example.org/find?q=O%27Brien',
    "https://own.example.org/find?q=O'Brien",
    'https://own.example.org/view?t=12%3A30',
    'https://own.example.org/Mercury_%28planet%29',
    'https://own.example.org/100%',
    'https://own.example.org/view?p=100%',
    'https://own.example.org/view?p=100%25',
    'https://own.example.org/a%2541',
    'https://own.example.org/a@b',
    'https://own.example.org/a%40b',
    'https://own.example.org/a%2Ab',
    'https://own.example.org/a%5Cb',
    'https://own.example.org/a?v=%5C',
    'https://own.example.org/?lang=en',
    'https://own.example.org:8443/app',
    'https://own.example.org:443/app',
    'https://own.example.org/a/b/',
    'https://own.example.org/a//b',
    'https://own.example.org/reader?book=42&page=7',
    'https://own.example.org/view?a',
    'https://own.example.org/view?%2E',
    'https://own.example.org/M%C3%BCller/Stra%C3%9Fe',
    'https://own.example.org/%E3%83%91',
    'https://xn--bcher-kva.example/katalog',
    'https://own.example.org/a+b',
    'https://own.example.org/a%0Ab',
  );
  return addresses;
}

describe('exact rules in the exam browser', () => {
  const candidates = [...new Set([...fixtureAddresses(), ...ownAddresses()])];

  it('decide for every probe what the editor promises, for every exact rule the editor accepts', () => {
    const disagreements: string[] = [];
    let accepted = 0;
    let probes = 0;
    for (const candidate of candidates) {
      const saved = normalizeUrlRules([{ match: 'exact', value: candidate }]);
      if (!saved.ok) continue;
      accepted += 1;
      const href = (saved.value[0] as { value: string }).value;
      const written = exactUrlExpression(href);
      if (!written.ok) {
        disagreements.push(`${href}: accepted but no expression (${written.mismatch})`);
        continue;
      }
      const filter = sebUrlFilter([{ expression: written.expression, action: 'allow', regex: false }]);
      const host = new URL(href).host;
      for (const probe of new Set([...variants(href), ...(probesByHost.get(host) ?? [])])) {
        if (dotNetUri(webUtilityUrlDecode(probe)) === null) continue;
        probes += 1;
        const seb = filter.decide(probe);
        const promise = promised(href, probe);
        if (seb !== promise) disagreements.push(`${href} as ${written.expression}: ${probe} SEB ${seb}, promised ${promise}`);
      }
    }
    expect(disagreements).toEqual([]);
    expect(accepted).toBeGreaterThan(150);
    expect(probes).toBeGreaterThan(10_000);
  });

  it('writes the decoded character where the exam browser keeps it, and the port', () => {
    const expression = (href: string) => exactUrlExpression(href);
    expect(expression('https://lib.example.org/find?q=O%27Brien')).toEqual({ ok: true, expression: "https://.lib.example.org:443/find?q=O'Brien" });
    expect(expression('https://lib.example.org/view?t=12%3A30')).toEqual({ ok: true, expression: 'https://.lib.example.org:443/view?t=12:30' });
    expect(expression('https://lib.example.org/Mercury_%28planet%29')).toEqual({ ok: true, expression: 'https://.lib.example.org:443/Mercury_(planet)' });
    expect(expression('https://lib.example.org/100%')).toEqual({ ok: true, expression: 'https://.lib.example.org:443/100%25' });
    expect(expression('https://lib.example.org/a%60b%7e')).toEqual({ ok: true, expression: 'https://.lib.example.org:443/a%60b~' });
    expect(expression('https://lib.example.org:8443/app')).toEqual({ ok: true, expression: 'https://.lib.example.org:8443/app' });
  });

  it('refuses at save time, at the field, what no expression can express', () => {
    for (const [address, messageKey] of [
      ['https://own.example.org/a%40b', 'rule.atSign'],
      ['https://own.example.org/p?mail=ana%40school.example.org', 'rule.atSign'],
      ['https://own.example.org/a%2Ab', 'rule.wildcardEscape'],
      ['https://own.example.org/p?v=%FF', 'rule.undecodable'],
      ['https://own.example.org/a%5Cb', 'rule.undecodable'],
      ['https://own.example.org/a%2541', 'rule.undecodable'],
      ['https://own.example.org/p?%2E', 'rule.undecodable'],
      ['https://own.example.org/a%2Fb', 'rule.neverMatches'],
    ] as const) {
      const saved = normalizeUrlRules([{ match: 'exact', value: address }], ['urlRules']);
      expect(saved.ok, address).toBe(false);
      if (!saved.ok) expect([saved.error.messageKey, saved.error.path, saved.error.errorCode]).toEqual([messageKey, ['urlRules', 0, 'value'], 'INVALID_EXB_URL_POLICY']);
      const tool = normalizeToolUrl(address, 'https://exb.example.org', ['url']);
      expect(tool.ok, address).toBe(false);
      if (!tool.ok) expect(tool.error.errorCode).toBe('INVALID_EXB_TOOL_POLICY');
    }
  });

  it('makes the launch addresses of the issue openable', () => {
    for (const address of ["https://tool.school.example.org/app?name=O'Brien", 'https://tool.school.example.org/app?t=12%3A30']) {
      const url = normalizeToolUrl(address, 'https://exb.example.org');
      expect(url.ok).toBe(true);
      if (!url.ok) continue;
      const written = exactUrlExpression(url.value);
      expect(written.ok).toBe(true);
      if (!written.ok) continue;
      const filter = sebUrlFilter([{ expression: written.expression, action: 'allow', regex: false }]);
      expect(filter.decide(url.value)).toBe('ALLOW');
    }
  });

  it('has the editor state each freedom of the promise in both languages', () => {
    for (const help of [teacherEn.rules.help, teacherDe.rules.help]) {
      expect(help).toContain('/Reserves'); // case
      expect(help).toContain('/exam/'); // trailing slash
      expect(help).toContain('?page=2'); // any query when none is given
      expect(help).toContain('?book=42%26page=7'); // an encoded & or = in the request
      expect(help).toContain('%2F'); // enter addresses decoded
    }
  });
});
