import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUES } from '@exb/shared/i18n/catalogues.js';
import { DEFAULT_DETECTOR_DIST_DIR } from '../../src/lms-scripts/script-cache.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { injectedConfig, LMS, SERVICE, stableHeaders } from './harness.js';

const bundle = (file: string) => path.join(DEFAULT_DETECTOR_DIST_DIR, file);
const built = existsSync(bundle('lms-exb-detector.js')) && existsSync(bundle('lms-exb-theme-loader.js'));
if (!built) process.stderr.write('\n[notice] detector wiring tests skipped: detector/dist not built (npm run build)\n');

describe.skipIf(!built)('detector routes in the full application, real bundles', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      env: {
        BASE_URL: SERVICE,
        LMS_URL: LMS,
        LTI_CLIENT_ID: '170000000000001',
        LTI_DEPLOYMENT_ID: '7:first, 8:second',
        TESTBED_ENABLED: 'true',
        EXB_DETECTOR_DIAGNOSTICS_ENABLED: 'false',
        TRUST_PROXY: '10.0.0.5',
      },
    });
  });
  afterAll(() => t.close());

  it.each([
    ['/js/lms-exb-detector.js', 'lms-exb-detector.js'],
    ['/api/exb/lms-detector.js', 'lms-exb-detector.js'],
    ['/js/lms-exb-theme-loader.js', 'lms-exb-theme-loader.js'],
  ])('GET %s serves the built bundle with the configuration injected', async (url, file) => {
    const response = await t.app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache, must-revalidate');
    expect(injectedConfig(response.body, readFileSync(bundle(file), 'utf8'))).toEqual({
      baseUrl: SERVICE,
      ltiClientId: '170000000000001',
      deploymentIds: ['7:first', '8:second'],
      debug: false,
      diagnostics: false,
      ...(file === 'lms-exb-detector.js' ? { messages: { en: CATALOGUES.en.detector, de: CATALOGUES.de.detector } } : {}),
    });
  });

  it('injects BASE_URL even when the trusted proxy forwards another host', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/js/lms-exb-detector.js',
      headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', 'x-forwarded-for': '192.0.2.1' },
      remoteAddress: '10.0.0.5',
    });
    expect(injectedConfig(response.body, readFileSync(bundle('lms-exb-detector.js'), 'utf8'))).toMatchObject({ baseUrl: SERVICE });
    expect(response.body).not.toContain('evil.example');
  });

  it('the alias is the same response', async () => {
    const primary = await t.app.inject({ method: 'GET', url: '/js/lms-exb-detector.js' });
    const alias = await t.app.inject({ method: 'GET', url: '/api/exb/lms-detector.js' });
    expect(alias.rawPayload.equals(primary.rawPayload)).toBe(true);
    expect(stableHeaders(alias.headers)).toEqual(stableHeaders(primary.headers));
  });

  it('diagnostics stay off while neither debug nor diagnostics is configured', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/debug/lms-detector-trace',
      headers: { origin: LMS, 'content-type': 'application/json' },
      payload: { step: 'x' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ enabled: false });
  });
});
