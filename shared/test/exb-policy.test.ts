import { describe, expect, it } from 'vitest';
import {
  EXB_POLICY_LIMITS,
  checkNoQuizToolDefinitions,
  exbPasswordSchema,
  externalToolConfigSchema,
  isEquivalentTool,
  isPublicSuffix,
  mergeInstructorToolCatalog,
  isFilterExpressible,
  normalizeExactHttpsUrl,
  normalizeExternalTool,
  normalizeHostname,
  normalizeQuizOnlyTools,
  normalizeToolCatalog,
  normalizeToolSelection,
  normalizeToolUrl,
  normalizeUrlRules,
  parseVideoId,
  policyErrorFromZod,
  policySchema,
  videoToolUrl,
  type ExternalToolConfig,
  type PolicyResult,
} from '../src/exb-policy/index.js';

const BASE = 'https://exb.example.edu';

function ok<T>(result: PolicyResult<T>): T {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.error)}`);
  return result.value;
}

function err<T>(result: PolicyResult<T>) {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.value)}`);
  return result.error;
}

let counter = 0;
const options = { baseUrl: BASE, assignId: () => `gen-${++counter}` };

describe('normalizeExactHttpsUrl', () => {
  it.each([
    ['https://example.edu/formulae.pdf', 'https://example.edu/formulae.pdf'],
    ['HTTPS://Docs.Example.EDU:443/a?b=1#section', 'https://docs.example.edu/a?b=1'],
    ['https://example.edu', 'https://example.edu/'],
    ['  https://example.edu/x  ', 'https://example.edu/x'],
    ['https://example.edu:8443/x', 'https://example.edu:8443/x'],
    ['https://bücher.de/katalog', 'https://xn--bcher-kva.de/katalog'],
    ['https://example.edu/a/../b', 'https://example.edu/b'],
    ['https://en.wikipedia.org/wiki/Function_(mathematics)', 'https://en.wikipedia.org/wiki/Function_(mathematics)'],
    ['https://example.edu/search?q=a+b&lang=en', 'https://example.edu/search?q=a+b&lang=en'],
  ])('accepts %s', (input, expected) => {
    expect(normalizeExactHttpsUrl(input)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ['plain http', 'http://example.edu/'],
    ['javascript', 'javascript:alert(1)'],
    ['data', 'data:text/html,<script>alert(1)</script>'],
    ['ftp', 'ftp://example.edu/'],
    ['scheme-relative', '//example.edu/'],
    ['no scheme', 'example.edu/page'],
    ['missing slashes', 'https:example.edu'],
    ['one slash', 'https:/example.edu'],
    ['backslashes', 'https:\\\\example.edu\\x'],
    ['user info', 'https://user:pw@example.edu/'],
    ['empty user info', 'https://@example.edu/'],
    ['user info lookalike', 'https://example.edu@evil.example.com/'],
    ['wildcard host', 'https://*.example.edu/'],
    ['wildcard path', 'https://example.edu/*'],
    ['regex anchor', '^https://example\\.edu/'],
    ['regex any', 'https://example.edu/.*'],
    ['regex escape', 'https://example\\.edu/'],
    ['regex class', 'https://example.edu/[a-z]+'],
    ['regex alternation', 'https://example.edu/a|b'],
    ['regex group flag', 'https://example.edu/(?i)x'],
    ['regex quantifier', 'https://example.edu/a{2}'],
    ['regex end anchor', 'https://example.edu/x$'],
    ['IPv4', 'https://192.168.1.10/'],
    ['IPv4 loopback hex', 'https://0x7f.1/'],
    ['IPv4 integer', 'https://2130706433/'],
    ['IPv4 short', 'https://10.1/'],
    ['IPv6', 'https://[::1]/'],
    ['localhost', 'https://localhost/'],
    ['localhost subdomain', 'https://app.localhost/'],
    ['mDNS', 'https://printer.local/'],
    ['private name', 'https://wiki.corp.internal/'],
    ['onion', 'https://abcdefghijklmnop.onion/'],
    ['single label', 'https://intranet/'],
    ['leading dot host', 'https://.example.edu/'],
    ['trailing dot host', 'https://example.edu./'],
    ['percent-encoded host', 'https://exa%6dple.edu/'],
    ['underscore host', 'https://a_b.example.edu/'],
    ['hyphen label', 'https://-a.example.edu/'],
    ['numeric tld', 'https://example.123/'],
    ['space', 'https://example.edu/a b'],
    ['tab', 'https://exam\tple.edu/'],
    ['newline', 'https://example.edu/\nx'],
    ['zero-width', 'https://exam\u200bple.edu/'],
    ['port zero', 'https://example.edu:0/'],
    ['too long', `https://example.edu/${'a'.repeat(EXB_POLICY_LIMITS.urlLength)}`],
    ['empty', ''],
  ])('rejects %s', (_name, input) => {
    expect(normalizeExactHttpsUrl(input).ok).toBe(false);
  });

  it.each([null, undefined, 42, {}, ['https://example.edu/']])('rejects non-strings (%j)', (input) => {
    expect(normalizeExactHttpsUrl(input).ok).toBe(false);
  });
});

describe('normalizeHostname', () => {
  it.each([
    ['example.edu', 'example.edu'],
    ['Sub.Example.EDU', 'sub.example.edu'],
    [' example.edu ', 'example.edu'],
    ['bücher.de', 'xn--bcher-kva.de'],
    ['xn--bcher-kva.de', 'xn--bcher-kva.de'],
    ['a-b.c-d.example.co.uk', 'a-b.c-d.example.co.uk'],
  ])('accepts %s', (input, expected) => {
    expect(normalizeHostname(input)).toEqual({ ok: true, value: expected });
  });

  it.each([
    '*.example.edu',
    'exam*ple.edu',
    '.example.edu',
    'example.edu.',
    'com',
    'https://example.edu',
    'example.edu/path',
    'example.edu:443',
    'user@example.edu',
    '1.2.3.4',
    '[::1]',
    'localhost',
    'foo.localhost',
    'nas.local',
    '-bad.example.edu',
    'bad-.example.edu',
    'exa mple.edu',
    'ex_ample.edu',
    'example.123',
    `${'a'.repeat(64)}.example.edu`,
    `${'a.'.repeat(130)}edu`,
    'xn--a.com',
    '',
    '^example\\.edu$',
  ])('rejects %j', (input) => {
    expect(normalizeHostname(input).ok).toBe(false);
  });

  it('knows public suffixes that must not be a domain rule alone', () => {
    expect(isPublicSuffix('com')).toBe(true);
    expect(isPublicSuffix('co.uk')).toBe(true);
    expect(isPublicSuffix('github.io')).toBe(true);
    expect(isPublicSuffix('example.co.uk')).toBe(false);
    expect(isPublicSuffix('example.edu')).toBe(false);
  });
});

describe('normalizeUrlRules', () => {
  it('normalizes exact and confirmed domain rules, keeping ids and labels', () => {
    const rules = ok(
      normalizeUrlRules([
        { id: 'r1', match: 'exact', value: 'HTTPS://Example.EDU/a#x', label: '  Formulae  ', broadDomainConfirmed: true },
        { match: 'domain', value: 'Library.Example.EDU', broadDomainConfirmed: true, extra: 'dropped' },
      ]),
    );
    expect(rules).toEqual([
      { id: 'r1', match: 'exact', value: 'https://example.edu/a', label: 'Formulae' },
      { match: 'domain', value: 'library.example.edu', broadDomainConfirmed: true },
    ]);
  });

  it('drops repeated rules and empty labels', () => {
    const rules = ok(
      normalizeUrlRules([
        { match: 'exact', value: 'https://example.edu/a', label: ' ' },
        { match: 'exact', value: 'https://EXAMPLE.edu/a#top' },
      ]),
    );
    expect(rules).toEqual([{ match: 'exact', value: 'https://example.edu/a' }]);
  });

  it('reports URL errors as INVALID_EXB_URL_POLICY with the path', () => {
    const error = err(normalizeUrlRules([{ match: 'exact', value: 'https://example.edu/app' }, { match: 'exact', value: 'https://*.x.edu/' }], ['urlRules']));
    expect(error).toMatchObject({ errorCode: 'INVALID_EXB_URL_POLICY', path: ['urlRules', 1, 'value'] });
    expect(error.message).not.toContain('x.edu');
  });

  it('reports shape errors as INVALID_EXB_URL_POLICY', () => {
    expect(err(normalizeUrlRules('https://example.edu/')).errorCode).toBe('INVALID_EXB_URL_POLICY');
    expect(err(normalizeUrlRules([{ match: 'regex', value: '.*' }])).errorCode).toBe('INVALID_EXB_URL_POLICY');
    expect(err(normalizeUrlRules([{ match: 'exact' }])).path).toEqual([0, 'value']);
    expect(err(normalizeUrlRules([null])).errorCode).toBe('INVALID_EXB_URL_POLICY');
    expect(err(normalizeUrlRules([{ match: 'exact', value: 'https://example.edu/app', label: 'a\u202eb' }])).path).toEqual([0, 'label']);
  });

  it('reports domain errors as INVALID_EXB_DOMAIN_POLICY', () => {
    const cases: unknown[] = [
      { match: 'domain', value: '*.example.edu', broadDomainConfirmed: true },
      { match: 'domain', value: '.example.edu', broadDomainConfirmed: true },
      { match: 'domain', value: 'com', broadDomainConfirmed: true },
      { match: 'domain', value: 'co.uk', broadDomainConfirmed: true },
      { match: 'domain', value: 'https://example.edu', broadDomainConfirmed: true },
      { match: 'domain', value: '10.0.0.1', broadDomainConfirmed: true },
    ];
    for (const rule of cases) expect(err(normalizeUrlRules([rule])).errorCode).toBe('INVALID_EXB_DOMAIN_POLICY');
  });

  it('requires broadDomainConfirmed: true on domain rules', () => {
    for (const confirmed of [undefined, false]) {
      const error = err(normalizeUrlRules([{ match: 'domain', value: 'example.edu', broadDomainConfirmed: confirmed }]));
      expect(error).toMatchObject({ errorCode: 'INVALID_EXB_DOMAIN_POLICY', path: [0, 'broadDomainConfirmed'] });
    }
    expect(err(normalizeUrlRules([{ match: 'domain', value: 'example.edu', broadDomainConfirmed: 'yes' }])).errorCode).toBe(
      'INVALID_EXB_URL_POLICY',
    );
  });

  it('bounds the number of rules and the size of each value', () => {
    const many = Array.from({ length: EXB_POLICY_LIMITS.urlRules + 1 }, (_, i) => ({ match: 'exact', value: `https://example.edu/${i}` }));
    expect(err(normalizeUrlRules(many))).toMatchObject({ errorCode: 'INVALID_EXB_URL_POLICY', path: [] });
    expect(ok(normalizeUrlRules(many.slice(1)))).toHaveLength(EXB_POLICY_LIMITS.urlRules);
    expect(err(normalizeUrlRules([{ match: 'exact', value: 'x'.repeat(100_000) }])).errorCode).toBe('INVALID_EXB_URL_POLICY');
  });

  it('ignores prototype keys in hostile input', () => {
    const hostile = JSON.parse('[{"match":"exact","value":"https://example.edu/app","__proto__":{"polluted":true}}]');
    const rules = ok(normalizeUrlRules(hostile));
    expect(rules).toEqual([{ match: 'exact', value: 'https://example.edu/app' }]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('video links', () => {
  const id = 'dQw4w9WgXcQ';
  it.each([
    `https://www.youtube.com/watch?v=${id}`,
    `https://youtube.com/watch?v=${id}&t=42s`,
    `https://m.youtube.com/watch?feature=share&v=${id}`,
    `http://www.youtube.com/watch?v=${id}`,
    `https://youtu.be/${id}`,
    `https://youtu.be/${id}?si=abcdef`,
    `https://www.youtube.com/shorts/${id}`,
    `https://youtube.com/shorts/${id}/`,
    `https://www.youtube.com/embed/${id}?start=10`,
    `https://www.youtube-nocookie.com/embed/${id}`,
    `https://youtube-nocookie.com/embed/${id}`,
    `  https://youtu.be/${id}  `,
  ])('parses %s', (url) => {
    expect(parseVideoId(url)).toBe(id);
  });

  it.each([
    `https://www.youtube.com/watch?v=${id}x`,
    `https://www.youtube.com/watch?v=short`,
    `https://www.youtube.com/watch?v=${id}&v=${id}`,
    `https://www.youtube.com/watch`,
    `https://youtu.be/${id}/extra`,
    `https://www.youtube.com/shorts/${id}/extra`,
    `https://www.youtube.com/embed/${id.slice(0, 10)}!`,
    `https://youtube.com.evil.example/watch?v=${id}`,
    `https://evil.example/watch?v=${id}`,
    `https://www.youtube-nocookie.com/watch?v=${id}`,
    `https://user@youtu.be/${id}`,
    `https://youtu.be:8443/${id}`,
    `javascript:alert('https://youtu.be/${id}')`,
    `https://www.youtube.com/channel/UC${id}`,
    42,
    null,
  ])('does not take %j for a video link', (url) => {
    expect(parseVideoId(url)).toBeNull();
  });

  it('rewrites video links to the player route with the canonical id', () => {
    expect(ok(normalizeToolUrl(`https://youtu.be/${id}?t=1`, BASE))).toBe(`${BASE}/exb/tool/video/${id}`);
    expect(ok(normalizeToolUrl(`https://www.youtube.com/watch?v=${id}`, `${BASE}/`))).toBe(`${BASE}/exb/tool/video/${id}`);
    expect(ok(normalizeToolUrl(`https://www.youtube.com/watch?v=${id}`, 'https://example.edu/exb'))).toBe(
      `https://example.edu/exb/exb/tool/video/${id}`,
    );
    expect(videoToolUrl(BASE, id)).toBe(`${BASE}/exb/tool/video/${id}`);
  });

  it('keeps an existing player route, also on a development base URL', () => {
    const dev = 'http://localhost:3000';
    expect(ok(normalizeToolUrl(`${dev}/exb/tool/video/${id}`, dev))).toBe(`${dev}/exb/tool/video/${id}`);
    expect(ok(normalizeToolUrl(`https://youtu.be/${id}`, dev))).toBe(`${dev}/exb/tool/video/${id}`);
    expect(err(normalizeToolUrl(`${dev}/exb/tool/video/${id}x`, dev)).errorCode).toBe('INVALID_EXB_TOOL_POLICY');
    expect(err(normalizeToolUrl(`${dev}/other`, dev)).errorCode).toBe('INVALID_EXB_TOOL_POLICY');
  });

  it('leaves other tool URLs to the exact-URL rule', () => {
    expect(ok(normalizeToolUrl('https://Calc.Example.EDU/app#x', BASE))).toBe('https://calc.example.edu/app');
    expect(err(normalizeToolUrl('http://calc.example.edu/', BASE))).toMatchObject({ errorCode: 'INVALID_EXB_TOOL_POLICY' });
    expect(() => normalizeToolUrl('https://calc.example.edu/app', 'not a url')).toThrow(TypeError);
    expect(() => videoToolUrl(BASE, 'bad')).toThrow(RangeError);
  });
});

describe('normalizeExternalTool', () => {
  it('normalizes a tool and fills defaults', () => {
    const tool = ok(
      normalizeExternalTool(
        {
          label: '  Calculator ',
          url: 'https://Calc.Example.edu/app',
          resourceRules: [{ match: 'domain', value: 'CDN.example.edu', broadDomainConfirmed: true }],
        },
        { baseUrl: BASE, assignId: () => 'tool-1' },
      ),
    );
    expect(tool).toEqual({
      id: 'tool-1',
      label: 'Calculator',
      url: 'https://calc.example.edu/app',
      resourceRules: [{ match: 'domain', value: 'cdn.example.edu', broadDomainConfirmed: true }],
      managedByAdmin: false,
      enabled: true,
    });
    expect(externalToolConfigSchema.parse(tool)).toEqual(tool);
  });

  it('assigns a random UUID when no id generator is given', () => {
    const tool = ok(normalizeExternalTool({ label: 'A', url: 'https://a.example.edu/app' }, { baseUrl: BASE }));
    expect(tool.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reports every problem as INVALID_EXB_TOOL_POLICY', () => {
    const cases: [unknown, (string | number)[]][] = [
      [{ id: 't', label: 'A', url: 'http://a.example.edu/' }, ['url']],
      [{ id: 't', label: 'A', url: 'https://*.example.edu/' }, ['url']],
      [{ id: 't', label: 'A', url: 'https://a.example.edu/app', resourceRules: [{ match: 'domain', value: 'example.edu' }] }, ['resourceRules', 0, 'broadDomainConfirmed']],
      [{ id: 't', label: 'A', url: 'https://a.example.edu/app', resourceRules: [{ match: 'exact', value: 'https://x.edu/.*' }] }, ['resourceRules', 0, 'value']],
      [{ id: 't', label: 'A', url: 'https://a.example.edu/app', resourceRules: [{ match: 'domain', value: '*.x.edu', broadDomainConfirmed: true }] }, ['resourceRules', 0, 'value']],
      [{ id: 't', label: '   ', url: 'https://a.example.edu/app' }, ['label']],
      [{ id: 't', label: 'a\u0007b', url: 'https://a.example.edu/app' }, ['label']],
      [{ id: 'bad id', label: 'A', url: 'https://a.example.edu/app' }, ['id']],
      [{ id: 't', label: 'A', url: 'https://a.example.edu/app', presetId: 'not-a-uuid' }, ['presetId']],
      [{ id: 't', label: 'A'.repeat(81), url: 'https://a.example.edu/app' }, ['label']],
      [{ id: 't', label: 'A' }, ['url']],
      ['https://a.example.edu/app', []],
    ];
    for (const [input, path] of cases) {
      expect(err(normalizeExternalTool(input, options, ['externalTools', 0]))).toMatchObject({
        errorCode: 'INVALID_EXB_TOOL_POLICY',
        path: ['externalTools', 0, ...path],
      });
    }
    const tooMany = Array.from({ length: EXB_POLICY_LIMITS.resourceRules + 1 }, (_, i) => ({ match: 'exact', value: `https://x.edu/${i}` }));
    expect(err(normalizeExternalTool({ id: 't', label: 'A', url: 'https://a.example.edu/app', resourceRules: tooMany }, options)).errorCode).toBe(
      'INVALID_EXB_TOOL_POLICY',
    );
  });

  it('compares tools by what they allow', () => {
    const a = ok(normalizeExternalTool({ id: 'a', label: 'A', url: 'https://a.example.edu/app', resourceRules: [{ match: 'exact', value: 'https://x.edu/1' }, { match: 'exact', value: 'https://x.edu/2' }] }, options));
    const b = ok(normalizeExternalTool({ id: 'b', label: 'B', url: 'https://A.example.edu/app', resourceRules: [{ match: 'exact', value: 'https://x.edu/2', label: 'two' }, { match: 'exact', value: 'https://x.edu/1' }] }, options));
    const c = ok(normalizeExternalTool({ id: 'c', label: 'A', url: 'https://a.example.edu/app', resourceRules: [{ match: 'exact', value: 'https://x.edu/1' }] }, options));
    expect(isEquivalentTool(a, b)).toBe(true);
    expect(isEquivalentTool(a, c)).toBe(false);
  });
});

describe('normalizeToolCatalog', () => {
  it('keeps administrator fields and refuses duplicate ids', () => {
    const presetId = '3f2b8c1e-4d5a-4b6c-8d7e-9f0a1b2c3d4e';
    const catalog = ok(
      normalizeToolCatalog([{ id: 'm', label: 'M', url: 'https://m.example.edu/app', managedByAdmin: true, presetId: presetId.toUpperCase() }], options),
    );
    expect(catalog[0]).toMatchObject({ managedByAdmin: true, presetId });
    expect(err(normalizeToolCatalog([{ id: 'x', label: 'A', url: 'https://a.example.edu/app' }, { id: 'x', label: 'B', url: 'https://b.example.edu/app' }], options))).toMatchObject({
      errorCode: 'INVALID_EXB_TOOL_POLICY',
      path: [1, 'id'],
    });
    const tooMany = Array.from({ length: EXB_POLICY_LIMITS.catalogTools + 1 }, (_, i) => ({ id: `t${i}`, label: 'T', url: 'https://a.example.edu/app' }));
    expect(err(normalizeToolCatalog(tooMany, options)).errorCode).toBe('INVALID_EXB_TOOL_POLICY');
    expect(err(normalizeToolCatalog({}, options)).errorCode).toBe('INVALID_EXB_TOOL_POLICY');
  });
});

describe('mergeInstructorToolCatalog', () => {
  const presetId = '3f2b8c1e-4d5a-4b6c-8d7e-9f0a1b2c3d4e';
  const managed: ExternalToolConfig = {
    id: 'school-calc',
    label: 'School calculator',
    url: 'https://calc.school.example/',
    resourceRules: [{ match: 'exact', value: 'https://cdn.school.example/calc.js' }],
    managedByAdmin: true,
    presetId,
    enabled: true,
  };
  const own: ExternalToolConfig = {
    id: 'own',
    label: 'Own notes',
    url: 'https://notes.example.edu/app',
    resourceRules: [],
    managedByAdmin: false,
    enabled: true,
  };
  const existing = [managed, own];

  it('switches a school-managed tool off by id alone', () => {
    const merged = ok(mergeInstructorToolCatalog(existing, [{ id: 'school-calc', enabled: false }, own], options));
    expect(merged).toEqual([{ ...managed, enabled: false }, own]);
  });

  it('accepts a school-managed tool echoed back unchanged', () => {
    const echoed = { ...managed, url: 'HTTPS://calc.school.example/', enabled: false };
    expect(ok(mergeInstructorToolCatalog(existing, [echoed], options))[0]).toEqual({ ...managed, enabled: false });
  });

  it.each([
    ['url', { url: 'https://other.example/app' }],
    ['label', { label: 'Renamed' }],
    ['resourceRules', { resourceRules: [] }],
    ['resourceRules', { resourceRules: [{ match: 'domain', value: 'school.example', broadDomainConfirmed: true }] }],
    ['managedByAdmin', { managedByAdmin: false }],
    ['presetId', { presetId: '00000000-0000-4000-8000-000000000000' }],
  ])('refuses an edit of a school-managed tool (%s)', (field, change) => {
    const error = err(mergeInstructorToolCatalog(existing, [{ ...managed, ...change }], options, ['externalTools']));
    expect(error.errorCode).toBe('INVALID_EXB_TOOL_POLICY');
    expect(error.path.slice(0, 2)).toEqual(['externalTools', 0]);
    expect(error.path).toContain(field);
  });

  it('keeps a school-managed tool the submission leaves out', () => {
    const merged = ok(mergeInstructorToolCatalog(existing, [], options));
    expect(merged).toEqual([managed]);
  });

  it('makes every other tool an instructor tool', () => {
    const merged = ok(
      mergeInstructorToolCatalog(existing, [{ id: 'own', label: 'Renamed notes', url: 'https://notes.example.edu/app', presetId }], options),
    );
    expect(merged).toEqual([{ ...own, label: 'Renamed notes' }, managed]);
    expect(merged[0]).not.toHaveProperty('presetId');
    const error = err(mergeInstructorToolCatalog(existing, [{ id: 'new', label: 'N', url: 'https://n.example.edu/app', managedByAdmin: true }], options));
    expect(error).toMatchObject({ errorCode: 'INVALID_EXB_TOOL_POLICY', path: [0, 'managedByAdmin'] });
  });

  it('refuses duplicate ids, invalid tools and oversized catalogs', () => {
    expect(err(mergeInstructorToolCatalog(existing, [own, own], options)).path).toEqual([1, 'id']);
    expect(err(mergeInstructorToolCatalog(existing, [{ id: 'x', label: 'X', url: 'http://x.example.edu/' }], options)).errorCode).toBe(
      'INVALID_EXB_TOOL_POLICY',
    );
    const full = Array.from({ length: EXB_POLICY_LIMITS.catalogTools }, (_, i) => ({ id: `t${i}`, label: 'T', url: 'https://a.example.edu/app' }));
    expect(err(mergeInstructorToolCatalog(existing, full, options)).errorCode).toBe('INVALID_EXB_TOOL_POLICY');
    expect(ok(mergeInstructorToolCatalog(existing, full.slice(1), options))).toHaveLength(EXB_POLICY_LIMITS.catalogTools);
  });
});

describe('normalizeQuizOnlyTools', () => {
  it('normalizes assessment tools and strips preset links', () => {
    const tools = ok(
      normalizeQuizOnlyTools(
        [{ id: 'q1', label: 'Video', url: 'https://youtu.be/dQw4w9WgXcQ', presetId: '3f2b8c1e-4d5a-4b6c-8d7e-9f0a1b2c3d4e' }],
        { ...options, courseToolIds: ['c1'] },
      ),
    );
    expect(tools).toEqual([
      { id: 'q1', label: 'Video', url: `${BASE}/exb/tool/video/dQw4w9WgXcQ`, resourceRules: [], managedByAdmin: false, enabled: true },
    ]);
  });

  it('refuses school-managed, duplicate and colliding tools and too many tools', () => {
    const tool = { id: 'q1', label: 'A', url: 'https://a.example.edu/app' };
    expect(err(normalizeQuizOnlyTools([{ ...tool, managedByAdmin: true }], options)).path).toEqual([0, 'managedByAdmin']);
    expect(err(normalizeQuizOnlyTools([tool, tool], options)).path).toEqual([1, 'id']);
    expect(err(normalizeQuizOnlyTools([tool], { ...options, courseToolIds: ['q1'] })).path).toEqual([0, 'id']);
    const many = Array.from({ length: EXB_POLICY_LIMITS.quizOnlyTools + 1 }, (_, i) => ({ ...tool, id: `q${i}` }));
    expect(err(normalizeQuizOnlyTools(many, options)).errorCode).toBe('INVALID_EXB_TOOL_POLICY');
  });
});

describe('normalizeToolSelection', () => {
  const catalog = [{ id: 'a' }, { id: 'b' }];

  it('takes null as inheriting the catalog and a list of known ids as a selection', () => {
    expect(ok(normalizeToolSelection(null, catalog))).toBeNull();
    expect(ok(normalizeToolSelection([], catalog))).toEqual([]);
    expect(ok(normalizeToolSelection(['b', 'a', 'b'], catalog))).toEqual(['b', 'a']);
  });

  it.each([[['c']], [[1]], ['a'], [{}], [undefined], [Array.from({ length: 51 }, () => 'a')]])(
    'refuses %j with INVALID_EXB_TOOL_SELECTION',
    (input) => {
      expect(err(normalizeToolSelection(input, catalog, ['externalToolIds'])).errorCode).toBe('INVALID_EXB_TOOL_SELECTION');
    },
  );

  it('points at the offending entry', () => {
    expect(err(normalizeToolSelection(['a', 'zzz'], catalog, ['externalToolIds'])).path).toEqual(['externalToolIds', 1]);
  });
});

describe('checkNoQuizToolDefinitions', () => {
  it('refuses course tool definitions on the structured endpoint', () => {
    expect(checkNoQuizToolDefinitions({ externalTools: [] })).toMatchObject({ errorCode: 'QUIZ_TOOL_DEFINITIONS_NOT_ALLOWED' });
    expect(checkNoQuizToolDefinitions({ externalTools: undefined })).not.toBeNull();
    expect(checkNoQuizToolDefinitions({ externalToolIds: null, quizOnlyExternalTools: [] })).toBeNull();
    expect(checkNoQuizToolDefinitions(null)).toBeNull();
  });
});

describe('zod adapters', () => {
  it('carries the error code through a zod schema', () => {
    const schema = policySchema((input) => normalizeUrlRules(input));
    expect(schema.parse([{ match: 'exact', value: 'https://Example.edu/app' }])).toEqual([{ match: 'exact', value: 'https://example.edu/app' }]);
    const result = schema.safeParse([{ match: 'domain', value: 'example.edu' }]);
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(policyErrorFromZod(result.error)).toMatchObject({ errorCode: 'INVALID_EXB_DOMAIN_POLICY', path: [0, 'broadDomainConfirmed'] });
    }
  });

  it('returns null for unrelated zod errors', () => {
    const result = exbPasswordSchema.safeParse('');
    expect(result.success).toBe(false);
    if (!result.success) expect(policyErrorFromZod(result.error)).toBeNull();
  });
});

describe('exbPasswordSchema', () => {
  it('accepts printable ASCII and refuses the rest', () => {
    expect(exbPasswordSchema.safeParse('Quit-2026!').success).toBe(true);
    for (const bad of ['', 'pässword', 'tab\there', 'x'.repeat(EXB_POLICY_LIMITS.passwordLength + 1)]) {
      expect(exbPasswordSchema.safeParse(bad).success).toBe(false);
    }
  });
});

describe('URLs the exam-browser filter cannot express', () => {
  it.each([
    'https://tools.example.org/share@team',
    'https://tools.example.org/page?user=a@b',
    'https://tools.example.org/page?.',
  ])('rejects %s at save time', (value) => {
    const result = normalizeExactHttpsUrl(value);
    expect(result.ok).toBe(false);
    expect(isFilterExpressible(value)).toBe(false);
  });

  it('accepts an ordinary exact URL', () => {
    expect(isFilterExpressible('https://tools.example.org/page?q=1')).toBe(true);
    expect(normalizeExactHttpsUrl('https://tools.example.org/page?q=1').ok).toBe(true);
  });
});
