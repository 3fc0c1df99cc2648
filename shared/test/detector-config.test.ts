import { describe, expect, it } from 'vitest';
import {
  DETECTOR_CONFIG_MARKER,
  detectorConfigSchema,
  injectDetectorConfig,
  normalizeServiceBaseUrl,
  parseDetectorConfig,
  serializeDetectorConfig,
  type DetectorConfig,
  type DetectorMessages,
} from '../src/detector-config.js';

const VALID: DetectorConfig = {
  baseUrl: 'https://exb.example.edu',
  ltiClientId: '10000000000001',
  deploymentIds: ['5:d3a2504bba5184799a38f141e8df2335cfa8206d'],
  debug: false,
  diagnostics: false,
};

const MESSAGES = { en: { exitLink: 'Exit the exam browser' }, de: { exitLink: 'Exam-Browser beenden' } } as unknown as DetectorMessages;

const INVALID: unknown[] = [
  null,
  undefined,
  'config',
  [],
  {},
  { ...VALID, extra: true },
  { ...VALID, baseUrl: 'https://exb.example.edu/' },
  { ...VALID, baseUrl: 'https://exb.example.edu?x=1' },
  { ...VALID, baseUrl: 'https://exb.example.edu#x' },
  { ...VALID, baseUrl: 'https://user:pw@exb.example.edu' },
  { ...VALID, baseUrl: 'javascript:alert(1)' },
  { ...VALID, baseUrl: 'ftp://exb.example.edu' },
  { ...VALID, baseUrl: 'HTTPS://EXB.example.edu' },
  { ...VALID, baseUrl: '/relative' },
  { ...VALID, ltiClientId: '' },
  { ...VALID, ltiClientId: 'a\nb' },
  { ...VALID, ltiClientId: 'x'.repeat(256) },
  { ...VALID, ltiClientId: 1 },
  { ...VALID, deploymentIds: 'a,b' },
  { ...VALID, deploymentIds: [''] },
  { ...VALID, deploymentIds: [1] },
  { ...VALID, deploymentIds: Array.from({ length: 257 }, (_, i) => String(i + 1)) },
  { ...VALID, debug: 'false' },
  { ...VALID, diagnostics: 0 },
  (({ diagnostics: _omit, ...rest }) => rest)(VALID),
  { ...VALID, messages: null },
  { ...VALID, messages: [] },
  { ...VALID, messages: { en: MESSAGES.en } },
  { ...VALID, messages: { ...MESSAGES, fr: MESSAGES.en } },
  { ...VALID, messages: { ...MESSAGES, de: {} } },
  { ...VALID, messages: { ...MESSAGES, de: { exitLink: '' } } },
  { ...VALID, messages: { ...MESSAGES, de: { exitLink: 7 } } },
  { ...VALID, messages: { ...MESSAGES, de: { exitLink: 'x'.repeat(1001) } } },
  { ...VALID, messages: { ...MESSAGES, de: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'x'])) } },
];

describe('normalizeServiceBaseUrl', () => {
  it('gives origin plus path without trailing slash', () => {
    expect(normalizeServiceBaseUrl('https://exb.example.edu/')).toBe('https://exb.example.edu');
    expect(normalizeServiceBaseUrl('https://EXB.example.edu:443')).toBe('https://exb.example.edu');
    expect(normalizeServiceBaseUrl('http://localhost:3000')).toBe('http://localhost:3000');
    expect(normalizeServiceBaseUrl('https://example.edu/exb/')).toBe('https://example.edu/exb');
  });

  it('rejects other schemes, credentials, queries and fragments', () => {
    for (const value of ['ftp://x.example', 'javascript:alert(1)', 'https://u:p@x.example', 'https://x.example/?', 'https://x.example/#', 'x.example', 42]) {
      expect(normalizeServiceBaseUrl(value), String(value)).toBeNull();
    }
  });
});

describe('detector configuration', () => {
  it('accepts a valid configuration in both validators', () => {
    expect(parseDetectorConfig(VALID)).toEqual(VALID);
    expect(detectorConfigSchema.parse(VALID)).toEqual(VALID);
    const withPath = { ...VALID, baseUrl: 'http://localhost:3000/exb', deploymentIds: [], debug: true, diagnostics: true };
    expect(parseDetectorConfig(withPath)).toEqual(withPath);
    expect(detectorConfigSchema.safeParse(withPath).success).toBe(true);
  });

  it('accepts the detector’s prompts in every supported language', () => {
    const withMessages = { ...VALID, messages: MESSAGES };
    expect(parseDetectorConfig(withMessages)).toEqual(withMessages);
    expect(detectorConfigSchema.parse(withMessages)).toEqual(withMessages);
    const injected = injectDetectorConfig(`(()=>{window.out=${DETECTOR_CONFIG_MARKER}})();`, { ...withMessages, messages: { ...MESSAGES, de: { exitLink: '</script>&' } } as unknown as DetectorMessages });
    expect(injected).not.toMatch(/<\/script>/);
    const sandbox: { out?: DetectorConfig } = {};
    new Function('window', injected)(sandbox);
    expect(sandbox.out?.messages?.de.exitLink).toBe('</script>&');
  });

  it('the zod schema and the browser validator reject the same inputs', () => {
    for (const value of INVALID) {
      expect(parseDetectorConfig(value), JSON.stringify(value)).toBeNull();
      expect(detectorConfigSchema.safeParse(value).success, JSON.stringify(value)).toBe(false);
    }
  });

  it('serializes to an inert JSON expression', () => {
    const hostile = { ...VALID, ltiClientId: '</script><script>alert(1)</script>&\u2028\u2029' };
    const text = serializeDetectorConfig(hostile);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(hostile);
  });
});

describe('injectDetectorConfig', () => {
  const bundle = `(()=>{var c;try{c=${DETECTOR_CONFIG_MARKER}}catch(e){}window.out=c})();`;

  it('replaces the single marker with the configuration', () => {
    const out = injectDetectorConfig(bundle, VALID);
    expect(out).not.toContain(DETECTOR_CONFIG_MARKER);
    const sandbox: { out?: unknown } = {};
    new Function('window', out)(sandbox);
    expect(sandbox.out).toEqual(VALID);
  });

  it('inserts dollar patterns literally', () => {
    const tricky = { ...VALID, ltiClientId: "$& $' $` $$ $1" };
    const out = injectDetectorConfig(bundle, tricky);
    const sandbox: { out?: DetectorConfig } = {};
    new Function('window', out)(sandbox);
    expect(sandbox.out?.ltiClientId).toBe(tricky.ltiClientId);
  });

  it('refuses a bundle without the marker or with more than one', () => {
    expect(() => injectDetectorConfig('(()=>{})()', VALID)).toThrow(/exactly once/);
    expect(() => injectDetectorConfig(`${bundle}${bundle}`, VALID)).toThrow(/exactly once/);
  });

  it('refuses an invalid configuration', () => {
    expect(() => injectDetectorConfig(bundle, { ...VALID, baseUrl: 'https://x.example/' })).toThrow(TypeError);
  });
});
