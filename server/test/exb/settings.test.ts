import { beforeAll, describe, expect, it } from 'vitest';
import { generateSelfSignedCertificate, loadCertificate } from '../../src/exb/certificate.js';
import {
  assertPortableConfigKeyInput,
  computeConfigKey,
  configKeyHashForUrl,
  configKeyHashMatches,
} from '../../src/exb/config-key.js';
import { readContainer, writeContainer, type DecryptionIdentity } from '../../src/exb/container.js';
import { PlistDate, PlistReal, readPlist, writePlist, type PlistDict, type PlistValue } from '../../src/exb/plist.js';
import type { ExbUrlRule } from '@exb/shared/exb-policy.js';
import {
  buildExamSettings,
  examSettingsInputSchema,
  prepareExamSettings,
  type ExamSettingsInput,
  type ExamTool,
} from '../../src/exb/settings.js';

const SALT = Uint8Array.from({ length: 32 }, (_, i) => i);
const START_URL = 'https://canvas.example.edu/login/session_token?session_token=abc123';
const QUIT_URL = 'https://exb.example.org/exb/exit/complete/42/classicquiz_7/tok3n';

function input(overrides: Partial<ExamSettingsInput> = {}): ExamSettingsInput {
  return {
    startUrl: START_URL,
    lmsOrigin: 'https://canvas.example.edu',
    serviceOrigin: 'https://exb.example.org',
    allowedHosts: ['login.microsoftonline.com', 'sso.example.edu'],
    tools: tools('https://www.desmos.com/calculator', 'https://exb.example.org/exb/tool/video/dQw4w9WgXcQ'),
    urlRules: [exact('https://library.example.edu/reserves/exam-sheet.pdf?v=2'), domain('wolframalpha.com')],
    examKeySalt: SALT,
    exitPassword: 'test',
    quitUrl: QUIT_URL,
    ...overrides,
  };
}

const exact = (value: string): ExbUrlRule => ({ match: 'exact', value });
const domain = (value: string): ExbUrlRule => ({ match: 'domain', value, broadDomainConfirmed: true });
const tools = (...urls: string[]): ExamTool[] => urls.map((url) => ({ url, resourceRules: [] }));

const rule = (expression: string): PlistDict =>
  new Map<string, PlistValue>([
    ['action', 1],
    ['active', true],
    ['expression', expression],
    ['regex', false],
  ]);

function expressions(settings: PlistDict): string[] {
  return (settings.get('URLFilterRules') as PlistDict[]).map((item) => item.get('expression') as string);
}

function collectKeys(value: PlistValue, keys: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => collectKeys(item, keys));
  else if (value instanceof Map) {
    for (const [key, item] of value) {
      keys.push(key);
      collectKeys(item, keys);
    }
  }
  return keys;
}

function collectValues(value: PlistValue, values: PlistValue[] = []): PlistValue[] {
  values.push(value);
  if (Array.isArray(value)) value.forEach((item) => collectValues(item, values));
  else if (value instanceof Map) for (const item of value.values()) collectValues(item, values);
  return values;
}

describe('buildExamSettings', () => {
  it('builds exactly the keys an exam needs', () => {
    expect(buildExamSettings(input())).toEqual(
      new Map<string, PlistValue>([
        ['allowPreferencesWindow', false],
        ['allowQuit', true],
        ['browserWindowAllowReload', true],
        ['browserWindowWebView', 3],
        ['examKeySalt', SALT],
        ['examSessionClearCookiesOnStart', true],
        ['hashedQuitPassword', '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
        ['quitURL', QUIT_URL],
        ['quitURLConfirm', false],
        ['sebConfigPurpose', 0],
        ['sendBrowserExamKey', true],
        ['startURL', START_URL],
        ['URLFilterEnable', true],
        ['URLFilterEnableContentFilter', false],
        [
          'URLFilterRules',
          [
            rule('https://.canvas.example.edu'),
            rule('https://.exb.example.org'),
            rule('https://login.microsoftonline.com'),
            rule('https://sso.example.edu'),
            rule('https://.exb.example.org:443/exb/tool/video/dQw4w9WgXcQ'),
            rule('https://.www.desmos.com:443/calculator'),
            rule('https://.library.example.edu:443/reserves/exam-sheet.pdf?v=2'),
            rule('https://wolframalpha.com'),
          ],
        ],
      ]),
    );
  });

  it('follows the Config Key stability rules: alphanumeric unique keys, no dates, reals or empty dicts', () => {
    for (const settings of [buildExamSettings(input()), buildExamSettings(input({ exitPassword: null, quitUrl: null, tools: [], urlRules: [], allowedHosts: [] }))]) {
      expect(() => assertPortableConfigKeyInput(settings)).not.toThrow();
      for (const key of collectKeys(settings)) expect(key).toMatch(/^[A-Za-z0-9]+$/);
      const topLevel = [...settings.keys()].map((key) => key.toLowerCase());
      expect(new Set(topLevel).size).toBe(topLevel.length);
      for (const value of collectValues(settings)) {
        expect(value).not.toBeInstanceOf(PlistReal);
        expect(value).not.toBeInstanceOf(PlistDate);
        if (value instanceof Map) expect(value.size).toBeGreaterThan(0);
      }
      expect(settings.has('originatorVersion')).toBe(false);
      const xml = writePlist(settings).toString('utf8');
      expect(xml).not.toMatch(/<real>|<date>|<dict\/>/);
    }
  });

  it('sends the Config Key and prefers the modern engine on every client', () => {
    const settings = buildExamSettings(input());
    expect(settings.get('sendBrowserExamKey')).toBe(true);
    expect(settings.get('browserWindowWebView')).toBe(3);
    expect(settings.get('URLFilterEnable')).toBe(true);
    expect(settings.get('URLFilterEnableContentFilter')).toBe(false);
    expect(settings.get('sebConfigPurpose')).toBe(0);
  });

  it('writes only allow rules, so everything else is blocked by the filter default', () => {
    const rules = buildExamSettings(input()).get('URLFilterRules') as PlistDict[];
    for (const item of rules) {
      expect(item.get('action')).toBe(1);
      expect(item.get('active')).toBe(true);
      expect(item.get('regex')).toBe(false);
      expect(item.get('expression')).not.toContain('*');
    }
  });

  it('writes the LMS and service origins as exact hosts, keeping ports and http for development', () => {
    const settings = buildExamSettings(
      input({
        startUrl: 'http://localhost:8080/courses/1/quizzes/2/take',
        lmsOrigin: 'http://localhost:8080',
        serviceOrigin: 'http://127.0.0.1:3000/',
        allowedHosts: [],
        tools: [],
        urlRules: [],
      }),
    );
    expect(expressions(settings)).toEqual(['http://.localhost:8080', 'http://.127.0.0.1:3000']);
  });

  it('hashes the exit password and omits it when there is none', () => {
    expect(buildExamSettings(input({ exitPassword: 'test' })).get('hashedQuitPassword')).toBe(
      '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    );
    const open = buildExamSettings(input({ exitPassword: null }));
    expect(open.has('hashedQuitPassword')).toBe(false);
    expect(open.get('allowQuit')).toBe(true);
  });

  it('writes the quit URL with its confirmation flag, or neither', () => {
    const settings = buildExamSettings(input({ confirmQuitUrl: true }));
    expect(settings.get('quitURL')).toBe(QUIT_URL);
    expect(settings.get('quitURLConfirm')).toBe(true);
    const none = buildExamSettings(input({ quitUrl: null }));
    expect(none.has('quitURL')).toBe(false);
    expect(none.has('quitURLConfirm')).toBe(false);
  });

  it('applies the flags', () => {
    const settings = buildExamSettings(input({ allowQuit: false, allowReload: false, clearCookiesOnStart: false }));
    expect(settings.get('allowQuit')).toBe(false);
    expect(settings.get('browserWindowAllowReload')).toBe(false);
    expect(settings.get('examSessionClearCookiesOnStart')).toBe(false);
  });

  it('keeps the Config Key stable: same policy in any order or spelling gives the same key', () => {
    const reference = computeConfigKey(buildExamSettings(input()));
    expect(computeConfigKey(buildExamSettings(input()))).toBe(reference);
    const shuffled = input({
      allowedHosts: ['SSO.example.edu', 'login.microsoftonline.com', 'sso.example.edu'],
      tools: tools(
        'https://EXB.example.org/exb/tool/video/dQw4w9WgXcQ#t=10',
        'https://www.desmos.com:443/calculator',
        'https://www.desmos.com/calculator',
      ),
      urlRules: [domain('wolframalpha.com'), exact('https://library.example.edu/reserves/exam-sheet.pdf?v=2')],
      examKeySalt: Buffer.from(SALT),
    });
    expect(computeConfigKey(buildExamSettings(shuffled))).toBe(reference);
  });

  it('changes the Config Key with anything the exam depends on', () => {
    const reference = computeConfigKey(buildExamSettings(input()));
    const salt = Uint8Array.from(SALT);
    salt[0] = 255;
    for (const change of [
      { examKeySalt: salt },
      { startUrl: 'https://canvas.example.edu/login/session_token?session_token=other' },
      { exitPassword: 'other' },
      { tools: tools('https://www.desmos.com/calculator') },
      { urlRules: [] },
    ] satisfies Partial<ExamSettingsInput>[]) {
      expect(computeConfigKey(buildExamSettings(input(change)))).not.toBe(reference);
    }
  });

  it('does not keep a reference to the caller’s salt', () => {
    const salt = Uint8Array.from(SALT);
    const settings = buildExamSettings(input({ examKeySalt: salt }));
    salt[0] = 99;
    expect(settings.get('examKeySalt')).toEqual(SALT);
  });

  it('writes exact rules as the exam browser reads them, and a stored rule refused since as it always was', () => {
    const settings = buildExamSettings(
      input({
        allowedHosts: [],
        tools: tools("https://tool.example.edu/app?name=O'Brien"),
        urlRules: [
          exact('https://lib.example.edu/view/Mercury_%28planet%29?t=12%3A30'),
          exact('https://lib.example.edu/100%'),
          exact('https://lib.example.edu:8443/a%20b'),
          exact('https://lib.example.edu/view?mail=ana%40example.edu'),
        ],
      }),
    );
    expect(expressions(settings)).toEqual([
      'https://.canvas.example.edu',
      'https://.exb.example.org',
      "https://.tool.example.edu:443/app?name=O'Brien",
      'https://.lib.example.edu/view?mail=ana%40example.edu',
      'https://.lib.example.edu:443/100%25',
      'https://.lib.example.edu:443/view/Mercury_(planet)?t=12:30',
      'https://.lib.example.edu:8443/a%20b',
    ]);
  });

  it('writes a stored rule refused since in its faithful form where one means the same page', () => {
    const settings = buildExamSettings(
      input({
        allowedHosts: [],
        tools: [],
        urlRules: [exact('https://lib.example.edu/search?q=a+b'), exact('https://lib.example.edu/login?next=%2Fhome'), exact('https://lib.example.edu/a%2Fb')],
      }),
    );
    expect(expressions(settings)).toEqual([
      'https://.canvas.example.edu',
      'https://.exb.example.org',
      'https://.lib.example.edu/a%2Fb',
      'https://.lib.example.edu:443/login?next=/home',
      'https://.lib.example.edu:443/search?q=a%20b',
    ]);
  });

  it('writes host names as punycode and drops duplicates across groups', () => {
    const settings = buildExamSettings(
      input({ allowedHosts: ['bücher.example'], tools: [], urlRules: [domain('xn--bcher-kva.example')] }),
    );
    expect(expressions(settings)).toEqual(['https://.canvas.example.edu', 'https://.exb.example.org', 'https://xn--bcher-kva.example']);
  });

  it.each<[string, Partial<ExamSettingsInput>]>([
    ['an http tool URL', { tools: tools('http://www.desmos.com/calculator') }],
    ['a wildcard tool URL', { tools: tools('https://www.desmos.com/*') }],
    ['a wildcard URL rule', { urlRules: [exact('https://example.com/a*b')] }],
    ['a wildcard domain', { allowedHosts: ['*.example.com'] }],
    ['an "@" in a URL rule path', { urlRules: [exact('https://medium.com/@someone')] }],
    ['an "@" in a tool URL query', { tools: tools('https://tool.example/launch?mail=a@b.example') }],
    ['the query "." that means "no query"', { tools: tools('https://tool.example/launch?.') }],
    ['a domain with a path', { urlRules: [domain('example.com/path')] }],
    ['a domain with a scheme', { allowedHosts: ['https://example.com'] }],
    ['a domain with a port', { allowedHosts: ['example.com:8443'] }],
    ['an empty domain', { allowedHosts: [''] }],
    ['an IPv6 literal', { allowedHosts: ['[::1]'] }],
    ['credentials in a URL', { tools: tools('https://user:pw@example.com/') }],
    ['a domain rule without the broad-domain confirmation', { urlRules: [{ match: 'domain', value: 'example.com' }] }],
    ['a domain rule on a public suffix', { urlRules: [domain('co.uk')] }],
    ['a tool resource rule with a wildcard', { tools: [{ url: 'https://tool.example.com/', resourceRules: [exact('https://cdn.example.com/*')] }] }],
    ['an "@" in a tool resource rule', { tools: [{ url: 'https://tool.example.com/', resourceRules: [exact('https://cdn.example.com/@x')] }] }],
    ['an LMS origin with a path', { lmsOrigin: 'https://canvas.example.edu/courses' }],
    ['a non-http LMS origin', { lmsOrigin: 'ftp://canvas.example.edu' }],
    ['a start URL on another origin', { startUrl: 'https://evil.example/login' }],
    ['a start URL with a fragment', { startUrl: `${START_URL}#x` }],
    ['a relative quit URL', { quitUrl: '/exb/exit' }],
    ['a short salt', { examKeySalt: new Uint8Array(16) }],
    ['an empty exit password', { exitPassword: '' }],
  ])('rejects %s', (_name, overrides) => {
    expect(() => buildExamSettings(input(overrides))).toThrow();
    expect(examSettingsInputSchema.safeParse(input(overrides)).success).toBe(false);
  });

  it('writes tool resource rules beside the tool launch URL', () => {
    const settings = buildExamSettings(
      input({
        allowedHosts: [],
        urlRules: [],
        tools: [{ url: 'https://www.desmos.com/calculator', resourceRules: [exact('https://help.desmos.com/guide'), domain('desmos-cdn.example.com')] }],
      }),
    );
    expect(expressions(settings)).toEqual([
      'https://.canvas.example.edu',
      'https://.exb.example.org',
      'https://.help.desmos.com:443/guide',
      'https://.www.desmos.com:443/calculator',
      'https://desmos-cdn.example.com',
    ]);
  });

  it('prepares a policy once and builds dictionaries that differ only in the start URL', () => {
    const prepared = prepareExamSettings(input());
    const other = 'https://canvas.example.edu/courses/42/quizzes/7?session_token=zzz';
    expect(prepared.build(START_URL)).toEqual(buildExamSettings(input()));
    expect(prepared.build(other)).toEqual(buildExamSettings(input({ startUrl: other })));
    expect(() => prepared.build('https://evil.example/login')).toThrow();
    expect(() => prepared.build(`${START_URL}#x`)).toThrow();
  });

  it('serializes a start URL into the template exactly as a full build writes and hashes it', () => {
    const prepared = prepareExamSettings(input());
    const urls = [
      START_URL,
      'https://canvas.example.edu/login/session_token?session_token=a&b=<c>&return_to=%2Fcourses%2F1',
      'https://canvas.example.edu/courses/42/quizzes/7/take?näme=ü\u2028',
      'https://exb.example.org/exb/check',
      'https://canvas.example.edu',
    ];
    for (const url of urls) {
      const dict = prepared.build(url);
      const serialized = prepared.serialize(url);
      expect(serialized.configKey).toBe(computeConfigKey(dict));
      expect(serialized.xml.equals(writePlist(dict))).toBe(true);
      expect(readPlist(serialized.xml)).toEqual(dict);
    }
    expect(() => prepared.serialize('https://evil.example/login')).toThrow();
    expect(() => prepared.serialize(`${START_URL}#x`)).toThrow();
    expect(() => prepared.serialize('')).toThrow();
  });

  it('accepts the setup-check shape: start on the service, no exit password', () => {
    const settings = buildExamSettings(
      input({ startUrl: 'https://exb.example.org/exb/check', exitPassword: null, quitUrl: 'https://exb.example.org/exb/check/quit' }),
    );
    expect(settings.get('startURL')).toBe('https://exb.example.org/exb/check');
    expect(settings.has('hashedQuitPassword')).toBe(false);
  });
});

describe('settings through the whole file format', () => {
  let identity: DecryptionIdentity;
  beforeAll(() => {
    const { certificatePem, privateKeyPem } = generateSelfSignedCertificate({ commonName: 'exb settings test', days: 1 });
    identity = { certificate: loadCertificate(certificatePem), privateKey: privateKeyPem };
  });

  it('write → encrypt → decrypt → read gives the same dictionary and Config Key, which the proof accepts', () => {
    const settings = buildExamSettings(input());
    const configKey = computeConfigKey(settings);
    const file = writeContainer(writePlist(settings), { certificate: identity.certificate });
    const { xml, layers } = readContainer(file, { identities: [identity] });
    expect(layers).toEqual(['gzip', 'pkhs', 'plnd', 'gzip']);
    const read = readPlist(xml);
    expect(read).toEqual(settings);
    expect(computeConfigKey(read)).toBe(configKey);

    const quizPage = 'https://canvas.example.edu/courses/42/quizzes/7/take';
    const reported = configKeyHashForUrl(`${quizPage}#question_1`, computeConfigKey(read));
    expect(configKeyHashMatches(reported, quizPage, configKey)).toBe(true);
  });
});
