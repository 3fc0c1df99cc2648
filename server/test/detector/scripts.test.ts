import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DETECTOR_SCRIPT_ALIAS_ROUTE, DETECTOR_SCRIPT_ROUTE, THEME_LOADER_ROUTE } from '@exb/shared/service-paths.js';
import { parseDetectorConfig } from '@exb/shared/detector-config.js';
import { CATALOGUES } from '@exb/shared/i18n/catalogues.js';
import { DetectorBundlesMissingError, DetectorScripts } from '../../src/lms-scripts/script-cache.js';
import {
  CLIENT_ID,
  DEPLOYMENT_IDS,
  FAKE_BUNDLES,
  LMS,
  SERVICE,
  detectorApp,
  fakeDistDir,
  injectedConfig,
  routeContext,
  stableHeaders,
  type DetectorApp,
} from './harness.js';

const VARY = 'Origin, X-Forwarded-Host, X-Forwarded-Proto, X-Forwarded-Port';
const SCRIPT_ROUTES = [
  { path: DETECTOR_SCRIPT_ROUTE.path, bundle: 'lms-exb-detector' },
  { path: DETECTOR_SCRIPT_ALIAS_ROUTE.path, bundle: 'lms-exb-detector' },
  { path: THEME_LOADER_ROUTE.path, bundle: 'lms-exb-theme-loader' },
] as const;

const dist = fakeDistDir();
afterAll(() => dist.remove());
afterEach(() => vi.restoreAllMocks());

/** Every language's detector prompts, as the catalogues hold them. */
const MESSAGES = { en: CATALOGUES.en.detector, de: CATALOGUES.de.detector };

/** The configuration a script carries: the detector also gets the prompts, the theme loader never. */
function expectedConfig(
  overrides: { baseUrl?: string; debug?: boolean; diagnostics?: boolean } = {},
  bundle: (typeof SCRIPT_ROUTES)[number]['bundle'] = 'lms-exb-detector',
) {
  return {
    baseUrl: overrides.baseUrl ?? SERVICE,
    ltiClientId: CLIENT_ID,
    deploymentIds: DEPLOYMENT_IDS,
    debug: overrides.debug ?? false,
    diagnostics: overrides.diagnostics ?? false,
    ...(bundle === 'lms-exb-detector' ? { messages: MESSAGES } : {}),
  };
}

describe('script routes, minified build', () => {
  let d: DetectorApp;
  beforeAll(async () => {
    d = await detectorApp(routeContext({ production: true }), { distDir: dist.dir });
  });
  afterAll(() => d.app.close());

  it.each(SCRIPT_ROUTES)('GET $path answers exactly the contract headers', async ({ path, bundle }) => {
    const response = await d.app.inject({ method: 'GET', url: path, headers: { origin: LMS } });
    expect(response.statusCode).toBe(200);
    const { etag, ...rest } = stableHeaders(response.headers);
    expect(rest).toEqual({
      'content-type': 'application/javascript; charset=utf-8',
      'cache-control': 'no-cache, must-revalidate',
      pragma: 'no-cache',
      expires: '0',
      vary: VARY,
      'x-content-type-options': 'nosniff',
      'content-length': String(response.rawPayload.length),
    });
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(injectedConfig(response.body, FAKE_BUNDLES[`${bundle}.js`]!)).toEqual(expectedConfig({}, bundle));
  });

  it('carries a configuration the browser-side parser accepts', async () => {
    const response = await d.app.inject({ method: 'GET', url: DETECTOR_SCRIPT_ROUTE.path });
    const parsed = parseDetectorConfig(injectedConfig(response.body, FAKE_BUNDLES['lms-exb-detector.js']!));
    expect(parsed).toEqual(expectedConfig());
  });

  it('gives the detector its prompts in English and German, in the one cached script, and the theme loader none', async () => {
    const detector = await d.app.inject({ method: 'GET', url: DETECTOR_SCRIPT_ROUTE.path, headers: { 'accept-language': 'de' } });
    const { messages } = injectedConfig(detector.body, FAKE_BUNDLES['lms-exb-detector.js']!) as { messages: Record<string, Record<string, string>> };
    expect(Object.keys(messages).sort()).toEqual(['de', 'en']);
    expect(messages.en!.requiredHeading).toBe('Secure exam browser required');
    expect(messages.de!.requiredHeading).toBe('Sicherer Exam-Browser erforderlich');
    // The request's language changes nothing: one script per configuration tuple, whoever asks.
    const english = await d.app.inject({ method: 'GET', url: DETECTOR_SCRIPT_ROUTE.path, headers: { 'accept-language': 'en' } });
    expect(english.rawPayload.equals(detector.rawPayload)).toBe(true);
    expect(english.headers.etag).toBe(detector.headers.etag);
    const loader = await d.app.inject({ method: 'GET', url: THEME_LOADER_ROUTE.path });
    expect(injectedConfig(loader.body, FAKE_BUNDLES['lms-exb-theme-loader.js']!)).not.toHaveProperty('messages');
  });

  it.each(['GET', 'HEAD'] as const)('%s on the alias answers the same bytes and headers, never a redirect', async (method) => {
    const primary = await d.app.inject({ method, url: DETECTOR_SCRIPT_ROUTE.path });
    const alias = await d.app.inject({ method, url: DETECTOR_SCRIPT_ALIAS_ROUTE.path });
    expect(alias.statusCode).toBe(200);
    expect(alias.headers.location).toBeUndefined();
    expect(alias.rawPayload.equals(primary.rawPayload)).toBe(true);
    expect(stableHeaders(alias.headers)).toEqual(stableHeaders(primary.headers));
  });

  it('the detector and the theme loader are different scripts', async () => {
    const detector = await d.app.inject({ method: 'GET', url: DETECTOR_SCRIPT_ROUTE.path });
    const loader = await d.app.inject({ method: 'GET', url: THEME_LOADER_ROUTE.path });
    expect(detector.body).not.toBe(loader.body);
    expect(detector.headers.etag).not.toBe(loader.headers.etag);
  });

  it('answers a revalidation with the current entity tag with 304 and the same cache headers', async () => {
    const first = await d.app.inject({ method: 'GET', url: DETECTOR_SCRIPT_ROUTE.path });
    const etag = String(first.headers.etag);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const response = await d.app.inject({ method: 'GET', url: DETECTOR_SCRIPT_ALIAS_ROUTE.path, headers: { 'if-none-match': ifNoneMatch } });
      expect(response.statusCode, ifNoneMatch).toBe(304);
      expect(response.rawPayload.length).toBe(0);
      expect(response.headers['cache-control']).toBe('no-cache, must-revalidate');
      expect(response.headers.vary).toBe(VARY);
      expect(response.headers.etag).toBe(etag);
    }
    const stale = await d.app.inject({ method: 'GET', url: DETECTOR_SCRIPT_ROUTE.path, headers: { 'if-none-match': '"stale"' } });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload.equals(first.rawPayload)).toBe(true);
  });

  it('other methods are not routes', async () => {
    const response = await d.app.inject({ method: 'POST', url: DETECTOR_SCRIPT_ROUTE.path });
    expect(response.statusCode).toBe(404);
  });
});

describe('in-process caching per configuration tuple', () => {
  it('production injects each script once and serves the same bytes object from then on', async () => {
    const build = vi.spyOn(DetectorScripts.prototype as unknown as { build: () => unknown }, 'build');
    const d = await detectorApp(routeContext({ production: true }), { distDir: dist.dir });
    try {
      const builtAtStart = build.mock.calls.length;
      expect(builtAtStart).toBe(2);
      const responses = [];
      for (let i = 0; i < 5; i += 1) {
        for (const { path } of SCRIPT_ROUTES) responses.push(await d.app.inject({ method: 'GET', url: path }));
      }
      expect(build.mock.calls.length).toBe(builtAtStart);
      const detectorBodies = new Set(responses.filter((r) => r.body.includes('exbDetector')).map((r) => r.body));
      expect(detectorBodies.size).toBe(1);
    } finally {
      await d.app.close();
    }
  });

  it('hands out the identical body and headers objects for the same tuple', () => {
    const scripts = DetectorScripts.load(scriptSettings({ production: true }), dist.dir);
    const first = scripts.script('lms-exb-detector');
    expect(scripts.script('lms-exb-detector')).toBe(first);
    expect(scripts.script('lms-exb-detector').body).toBe(first.body);
    expect(Object.isFrozen(first.headers)).toBe(true);
  });

  it('outside production every request injects afresh (equal bytes, new buffer)', async () => {
    const scripts = DetectorScripts.load(scriptSettings({ production: false }), dist.dir);
    expect(scripts.cached).toBe(false);
    const first = scripts.script('lms-exb-detector');
    const second = scripts.script('lms-exb-detector');
    expect(second).not.toBe(first);
    expect(second.body.equals(first.body)).toBe(true);
    expect(second.etag).toBe(first.etag);
  });

  it('two apps with different tuples serve different bytes; equal tuples equal bytes', async () => {
    const variants = [
      routeContext({ production: true }),
      routeContext({ production: true, baseUrl: 'https://other.example.test' }),
      routeContext({ production: true, clientId: '999' }),
      routeContext({ production: true, deploymentIds: ['1:abc'] }),
      routeContext({ production: true, debugEnabled: true }),
      routeContext({ production: true, detectorDiagnosticsEnabled: true }),
    ];
    const bodies: string[] = [];
    for (const ctx of [...variants, routeContext({ production: true })]) {
      const d = await detectorApp(ctx, { distDir: dist.dir });
      bodies.push((await d.app.inject({ method: 'GET', url: DETECTOR_SCRIPT_ROUTE.path })).body);
      await d.app.close();
    }
    expect(new Set(bodies.slice(0, variants.length)).size).toBe(variants.length);
    expect(bodies[variants.length]).toBe(bodies[0]);
  });
});

describe('debug and diagnostics modes', () => {
  it.each([
    { mode: 'debug', overrides: { debugEnabled: true }, config: { debug: true } },
    { mode: 'diagnostics', overrides: { detectorDiagnosticsEnabled: true }, config: { diagnostics: true } },
  ])('$mode serves the readable build, uncached and never stored', async ({ overrides, config }) => {
    const build = vi.spyOn(DetectorScripts.prototype as unknown as { build: () => unknown }, 'build');
    const d = await detectorApp(routeContext({ production: true, ...overrides }), { distDir: dist.dir });
    try {
      const before = build.mock.calls.length;
      for (const { path, bundle } of SCRIPT_ROUTES) {
        const response = await d.app.inject({ method: 'GET', url: path });
        expect(response.statusCode).toBe(200);
        expect(stableHeaders(response.headers)).toEqual({
          'content-type': 'application/javascript; charset=utf-8',
          'cache-control': 'no-cache, no-store, must-revalidate',
          pragma: 'no-cache',
          expires: '0',
          vary: VARY,
          'x-content-type-options': 'nosniff',
          'content-length': String(response.rawPayload.length),
        });
        expect(injectedConfig(response.body, FAKE_BUNDLES[`${bundle}.debug.js`]!)).toEqual(expectedConfig(config, bundle));
      }
      expect(build.mock.calls.length).toBe(before + SCRIPT_ROUTES.length);
      const revalidation = await d.app.inject({ method: 'GET', url: DETECTOR_SCRIPT_ROUTE.path, headers: { 'if-none-match': '*' } });
      expect(revalidation.statusCode).toBe(200);
      const primary = await d.app.inject({ method: 'GET', url: DETECTOR_SCRIPT_ROUTE.path });
      const alias = await d.app.inject({ method: 'GET', url: DETECTOR_SCRIPT_ALIAS_ROUTE.path });
      expect(alias.body).toBe(primary.body);
      expect(stableHeaders(alias.headers)).toEqual(stableHeaders(primary.headers));
    } finally {
      await d.app.close();
    }
  });
});

describe('base URL', () => {
  it.each([
    { 'x-forwarded-host': 'exam.school.example', 'x-forwarded-proto': 'https' },
    { host: 'evil.example', 'x-forwarded-host': 'evil.example, exam.school.example', 'x-forwarded-port': '8443' },
    { origin: 'https://evil.example' },
  ])('is BASE_URL whatever the request headers say: %j', async (headers) => {
    for (const production of [true, false]) {
      const d = await detectorApp(routeContext({ production }), { distDir: dist.dir });
      try {
        for (const url of [DETECTOR_SCRIPT_ROUTE.path, DETECTOR_SCRIPT_ALIAS_ROUTE.path]) {
          const response = await d.app.inject({ method: 'GET', url, headers, remoteAddress: '127.0.0.1' });
          expect(injectedConfig(response.body, FAKE_BUNDLES['lms-exb-detector.js']!)).toEqual(expectedConfig());
        }
      } finally {
        await d.app.close();
      }
    }
  });
});

describe('missing bundles', () => {
  const empty = fakeDistDir({});
  afterAll(() => empty.remove());

  it('stop a production start with a message naming the build', async () => {
    const promise = detectorApp(routeContext({ production: true }), { distDir: empty.dir });
    await expect(promise).rejects.toBeInstanceOf(DetectorBundlesMissingError);
    await expect(detectorApp(routeContext({ production: true }), { distDir: empty.dir })).rejects.toThrow(/run `npm run build`/);
  });

  it('name the readable files the debug mode needs', () => {
    const partial = fakeDistDir({ 'lms-exb-detector.js': FAKE_BUNDLES['lms-exb-detector.js']!, 'lms-exb-theme-loader.js': FAKE_BUNDLES['lms-exb-theme-loader.js']! });
    try {
      expect(() => DetectorScripts.load(scriptSettings({ debug: true }), partial.dir)).toThrow(/lms-exb-detector\.debug\.js.*lms-exb-theme-loader\.debug\.js/);
    } finally {
      partial.remove();
    }
  });

  it('outside production leave the service running and say what to do on the script routes', async () => {
    const d = await detectorApp(routeContext({ production: false }), { distDir: empty.dir });
    const response = await d.app.inject({ method: 'GET', url: DETECTOR_SCRIPT_ROUTE.path });
    expect(response.statusCode).toBe(503);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toContain('npm run build');
    expect(d.logText()).toContain('detector bundles not found');
    await d.app.close();
  });

  it('a bundle without the marker exactly once is refused at start', () => {
    const broken = fakeDistDir({ ...FAKE_BUNDLES, 'lms-exb-detector.js': '(()=>{})();' });
    try {
      expect(() => DetectorScripts.load(scriptSettings({ production: true }), broken.dir)).toThrow(/exactly once/);
    } finally {
      broken.remove();
    }
  });

  it('a configuration the scripts cannot carry is refused at start', () => {
    expect(() => DetectorScripts.load(scriptSettings({ ltiClientId: 'x'.repeat(300) }), dist.dir)).toThrow(/invalid detector configuration/);
  });
});

function scriptSettings(overrides: Partial<Parameters<typeof DetectorScripts.load>[0]> = {}): Parameters<typeof DetectorScripts.load>[0] {
  return {
    baseUrl: SERVICE,
    ltiClientId: CLIENT_ID,
    deploymentIds: DEPLOYMENT_IDS,
    debug: false,
    diagnostics: false,
    production: false,
    ...overrides,
  };
}
