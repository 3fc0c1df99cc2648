import { randomBytes } from 'node:crypto';
import { TESTBED_QUIT_NOTICE_ROUTE } from '@exb/shared/service-paths.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configKeyHashForUrl } from '../../src/exb/index.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { bootstrapOf, developmentIdentity, LMS, openWith, SERVICE } from './helpers.js';

const CHECK_URL = `${SERVICE}/exb/check`;

describe('setup-check page, proof and quit page', () => {
  let t: TestApp;
  let configKey: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { BASE_URL: SERVICE, LMS_URL: LMS } });
    const download = await t.app.inject({ method: 'GET', url: '/exb/check/config.exb' });
    configKey = openWith(download.rawPayload, developmentIdentity(t.dataDir)).configKey;
  });
  afterAll(() => t.close());

  const prove = (payload: unknown) => t.app.inject({ method: 'POST', url: '/api/exb/check-proof', payload: payload as object });

  describe('GET /exb/check', () => {
    it('renders the exb-setup-check view through the shell with the page CSP', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/exb/check' });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(String(response.headers['content-security-policy'])).toContain("script-src 'self'");
      expect(response.headers['cache-control']).toBe('no-store');
      expect(bootstrapOf(response.body)).toEqual({
        locale: 'en',
        view: 'exb-setup-check',
        proofUrl: '/api/exb/check-proof',
        expectedUrl: CHECK_URL,
        configUrl: `${SERVICE}/exb/check/config.seb`,
        launchUrl: 'sebs://tool.example.test/exb/check/config.seb',
        quitUrl: `${SERVICE}/exb/check/quit`,
      });
    });
  });

  describe('POST /api/exb/check-proof', () => {
    it('passes both checks for the hash of the Config Key at the check page', async () => {
      const response = await prove({ configKeyHash: configKeyHashForUrl(CHECK_URL, configKey), url: CHECK_URL });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.json()).toEqual({ success: true, checks: { configKey: true, expectedUrl: true } });
    });

    it('ignores a fragment, as the browser does when hashing', async () => {
      const url = `${CHECK_URL}#results`;
      const response = await prove({ configKeyHash: configKeyHashForUrl(url, configKey), url });
      expect(response.json()).toEqual({ success: true, checks: { configKey: true, expectedUrl: true } });
    });

    it('refuses a wrong hash with 403 INVALID_EXB_SETUP_CHECK_PROOF, reporting the URL check on its own', async () => {
      for (const configKeyHash of [
        randomBytes(32).toString('hex'),
        configKeyHashForUrl(CHECK_URL, randomBytes(32).toString('hex')),
        configKeyHashForUrl(`${SERVICE}/elsewhere`, configKey),
        'not-hex',
      ]) {
        const response = await prove({ configKeyHash, url: CHECK_URL });
        expect(response.statusCode).toBe(403);
        expect(response.headers['cache-control']).toBe('no-store');
        expect(response.json()).toEqual({
          success: false,
          error_code: 'INVALID_EXB_SETUP_CHECK_PROOF',
          message: expect.any(String),
          checks: { configKey: false, expectedUrl: true },
        });
      }
    });

    it('refuses any other page with 403, even with a matching hash, naming the failed check', async () => {
      for (const url of [
        `${CHECK_URL}?from=elsewhere`,
        `${CHECK_URL}/`,
        'https://other.example.test/exb/check',
        'http://tool.example.test/exb/check',
        `${LMS}/exb/check`,
        'not a url',
      ]) {
        const response = await prove({ configKeyHash: configKeyHashForUrl(url, configKey), url });
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual({
          success: false,
          error_code: 'INVALID_EXB_SETUP_CHECK_PROOF',
          message: expect.any(String),
          checks: { configKey: true, expectedUrl: false },
        });
      }
    });

    it.each([
      ['an empty object', {}],
      ['a missing url', { configKeyHash: 'a'.repeat(64) }],
      ['a missing hash', { url: CHECK_URL }],
      ['a numeric hash', { configKeyHash: 1, url: CHECK_URL }],
      ['an empty hash', { configKeyHash: '', url: CHECK_URL }],
      ['an oversized hash', { configKeyHash: 'a'.repeat(257), url: CHECK_URL }],
      ['an oversized url', { configKeyHash: 'a'.repeat(64), url: `${CHECK_URL}?${'x'.repeat(5000)}` }],
      ['an object url', { configKeyHash: 'a'.repeat(64), url: { href: CHECK_URL } }],
      ['an array', [CHECK_URL]],
    ])('answers 400 INVALID_REQUEST for %s', async (_name, payload) => {
      const response = await prove(payload);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ success: false, error_code: 'INVALID_REQUEST', message: expect.any(String) });
    });

    it.each([
      ['JSON null', 'null'],
      ['malformed JSON', '{"configKeyHash":'],
      ['a JSON string', '"text"'],
    ])('answers 400 for %s', async (_name, payload) => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/exb/check-proof',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error_code: 'INVALID_REQUEST' });
    });

    it('answers 400 without a body and a client error for a non-JSON body', async () => {
      const empty = await t.app.inject({ method: 'POST', url: '/api/exb/check-proof' });
      expect(empty.statusCode).toBe(400);
      const text = await t.app.inject({
        method: 'POST',
        url: '/api/exb/check-proof',
        headers: { 'content-type': 'text/plain' },
        payload: 'configKeyHash=x',
      });
      expect(text.statusCode).toBeGreaterThanOrEqual(400);
      expect(text.statusCode).toBeLessThan(500);
    });
  });

  describe('GET /exb/check/quit', () => {
    it('renders the quit page with the quit headers', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/exb/check/quit' });
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-exb-quit']).toBe('true');
      expect(response.headers['x-exb-exit']).toBe('setup-check');
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-store');
      expect(String(response.headers['content-security-policy'])).toContain("default-src 'none'");
      expect(response.body).toContain('Setup check finished');
    });
  });
});

describe('the setup check’s quit page in the development LMS’s simulated exam browser', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      env: { BASE_URL: SERVICE, LMS_URL: LMS, TESTBED_ENABLED: 'true' },
      configOptions: { developmentLms: { examBrowserUrl: `${LMS}/testbed/exam-browser` } },
    });
  });
  afterAll(() => t.close());

  it('tells the simulated window that the quit URL was reached, as the exam quit page does', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/exb/check/quit' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain(`<script src="${TESTBED_QUIT_NOTICE_ROUTE.path}" defer></script>`);
    expect((await t.app.inject({ method: 'GET', url: TESTBED_QUIT_NOTICE_ROUTE.path })).statusCode).toBe(200);
  });

  it('loads no script without the testbed', async () => {
    const plain = await createTestApp({ env: { BASE_URL: SERVICE, LMS_URL: LMS } });
    try {
      expect((await plain.app.inject({ method: 'GET', url: '/exb/check/quit' })).body).not.toContain('<script');
    } finally {
      await plain.close();
    }
  });
});

describe('setup check on an http development origin', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ listen: true });
  });
  afterAll(() => t.close());

  it('launches through seb:// and expects the check page on that origin', async () => {
    const response = await fetch(`${t.url}/exb/check`);
    const bootstrap = bootstrapOf(await response.text());
    const host = new URL(t.url!).host;
    expect(bootstrap.launchUrl).toBe(`seb://${host}/exb/check/config.seb`);
    expect(bootstrap.expectedUrl).toBe(`${t.url}/exb/check`);
  });
});
