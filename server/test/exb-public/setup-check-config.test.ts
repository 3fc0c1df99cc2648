import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CertificateStore } from '../../src/exb/certificate-store.js';
import { SETUP_CHECK_BUDGET_PER_IP, SETUP_CHECK_BUDGET_PER_PROCESS } from '../../src/http/routes/session/exb-public.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { developmentIdentity, LMS, openWith, SERVICE } from './helpers.js';

const CONFIG_PATH = '/exb/check/config.exb';

describe('GET /exb/check/config.exb', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { BASE_URL: SERVICE, LMS_URL: LMS } });
  });
  afterAll(() => t.close());
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  // Each test uses its own client address, so the per-address budget never interferes.
  let address = 0;
  const download = (method: 'GET' | 'HEAD' = 'GET') =>
    t.app.inject({ method, url: CONFIG_PATH, remoteAddress: `198.51.100.${++address}` });

  it('serves the configuration as a binary attachment', async () => {
    const response = await download();
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/octet-stream');
    expect(response.headers['content-disposition']).toBe('attachment; filename=exb-setup-check.exb');
    expect(response.headers['content-description']).toBeTruthy();
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.rawPayload.length).toBeGreaterThan(256);
  });

  it('encrypts for the certificate and starts at the check page, quits without password, redeems nothing', async () => {
    const response = await download();
    expect(() => openWith(response.rawPayload)).toThrow(/no certificate matches/);
    const { settings, layers } = openWith(response.rawPayload, developmentIdentity(t.dataDir));
    expect(layers).toEqual(['gzip', 'pkhs', 'plnd', 'gzip']);
    expect(settings.get('startURL')).toBe(`${SERVICE}/exb/check`);
    expect(settings.get('allowQuit')).toBe(true);
    expect(settings.has('hashedQuitPassword')).toBe(false);
    expect(settings.get('quitURL')).toBe(`${SERVICE}/exb/check/quit`);
    expect(settings.get('sebConfigPurpose')).toBe(0);
    expect(settings.get('sendBrowserExamKey')).toBe(true);
    const expressions = (settings.get('URLFilterRules') as Map<string, unknown>[]).map((rule) => rule.get('expression'));
    expect(expressions).toContain('https://.tool.example.test');
  });

  it('HEAD answers like GET without a body', async () => {
    const response = await download('HEAD');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/octet-stream');
    expect(response.body).toBe('');
  });

  it('serves the same file as config.seb, named and typed as Safe Exam Browser registers it', async () => {
    const exb = await download();
    for (const method of ['GET', 'HEAD'] as const) {
      const response = await t.app.inject({ method, url: '/exb/check/config.seb', remoteAddress: `198.51.100.${++address}` });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/seb');
      expect(response.headers['content-disposition']).toBe('attachment; filename=exb-setup-check.seb');
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      if (method === 'GET') expect(response.rawPayload.equals(exb.rawPayload)).toBe(true);
      else expect(response.body).toBe('');
    }
  });

  it('serves the same encrypted bytes every time and re-checks the certificate on every response', async () => {
    const readiness = vi.spyOn(CertificateStore.prototype, 'unavailableReason');
    const first = await download();
    const second = await download();
    expect(readiness).toHaveBeenCalledTimes(2);
    // RSA padding is random, so equal bytes mean one encryption, cached.
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
  });

  it('refuses to serve the cached bytes once the certificate has expired, and serves them again when valid', async () => {
    const before = await download();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 20 * 365 * 86_400_000);
    const expired = await download();
    expect(expired.statusCode).toBe(503);
    expect(expired.headers['content-type']).toMatch(/^application\/json/);
    expect(expired.json()).toMatchObject({ success: false, error_code: 'EXB_CERTIFICATE_UNAVAILABLE' });
    expect(expired.rawPayload.includes(before.rawPayload.subarray(0, 64))).toBe(false);
    vi.useRealTimers();
    const after = await download();
    expect(after.statusCode).toBe(200);
    expect(after.rawPayload.equals(before.rawPayload)).toBe(true);
  });

  it('yields a Config Key that does not depend on the instance', async () => {
    const other = await createTestApp({ env: { BASE_URL: SERVICE, LMS_URL: LMS } });
    try {
      const mine = openWith((await download()).rawPayload, developmentIdentity(t.dataDir));
      const response = await other.app.inject({ method: 'GET', url: CONFIG_PATH });
      const theirs = openWith(response.rawPayload, developmentIdentity(other.dataDir));
      expect(theirs.configKey).toBe(mine.configKey);
    } finally {
      await other.close();
    }
  });
});

describe('GET /exb/check/config.exb rate limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { BASE_URL: SERVICE, LMS_URL: LMS } });
  });
  afterAll(() => t.close());

  const from = (remoteAddress: string, method: 'GET' | 'HEAD' = 'GET') =>
    t.app.inject({ method, url: CONFIG_PATH, remoteAddress });

  it('limits one address, counting HEAD and GET, and leaves other addresses alone', async () => {
    for (let i = 0; i < SETUP_CHECK_BUDGET_PER_IP; i++) {
      expect((await from('203.0.113.7', i % 2 === 0 ? 'HEAD' : 'GET')).statusCode).toBe(200);
    }
    const refused = await from('203.0.113.7');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.json()).toEqual({ success: false, error_code: 'RATE_LIMITED', message: expect.any(String) });
    expect((await from('203.0.113.8')).statusCode).toBe(200);
  });

  it('counts an IPv6 /64 as one address', async () => {
    for (let i = 0; i < SETUP_CHECK_BUDGET_PER_IP; i++) {
      expect((await from(`2001:db8:1:2::${(i + 1).toString(16)}`)).statusCode).toBe(200);
    }
    expect((await from('2001:db8:1:2:ffff::1')).statusCode).toBe(429);
  });

  it('limits the whole process across addresses', async () => {
    // Both tests above consumed from the process budget too.
    let served = 2 * SETUP_CHECK_BUDGET_PER_IP + 1;
    let host = 0;
    while (served < SETUP_CHECK_BUDGET_PER_PROCESS) {
      host++;
      for (let i = 0; i < SETUP_CHECK_BUDGET_PER_IP && served < SETUP_CHECK_BUDGET_PER_PROCESS; i++, served++) {
        expect((await from(`10.0.${host}.1`)).statusCode).toBe(200);
      }
    }
    const refused = await from('192.0.2.200');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error_code: 'RATE_LIMITED' });
  });
});

describe('GET /exb/check/config.exb with encryption disabled', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { BASE_URL: SERVICE, LMS_URL: LMS, EXB_CONFIG_ENCRYPTION_ENABLED: 'false' } });
  });
  afterAll(() => t.close());

  it('serves the same settings unencrypted', async () => {
    const response = await t.app.inject({ method: 'GET', url: CONFIG_PATH });
    expect(response.statusCode).toBe(200);
    const { settings, layers } = openWith(response.rawPayload);
    expect(layers).toEqual(['gzip', 'plnd', 'gzip']);
    expect(settings.get('startURL')).toBe(`${SERVICE}/exb/check`);
  });
});
