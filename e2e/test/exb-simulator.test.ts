import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVELOPMENT_CERTIFICATE_FILE, DEVELOPMENT_CERTIFICATE_KEY_FILE } from '../../server/src/config/dev-secrets.js';
import { createTestApp, type TestApp } from '../../server/test/support/app.js';
import {
  ConfigurationDownloadError,
  configKeyHashFor,
  downloadConfiguration,
  fetchUrlFor,
  isRegisteredLaunchUrl,
  openConfiguration,
  SimulatedExamBrowser,
  type ExamBrowserPageApi,
} from '../src/exb-simulator/index.js';

function developmentIdentity(dataDir: string) {
  return {
    certificatePem: readFileSync(path.join(dataDir, 'secrets', DEVELOPMENT_CERTIFICATE_FILE), 'utf8'),
    privateKeyPem: readFileSync(path.join(dataDir, 'secrets', DEVELOPMENT_CERTIFICATE_KEY_FILE), 'utf8'),
  };
}

describe('exam-browser simulator against the setup-check routes', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ listen: true });
    base = t.url!;
  });
  afterAll(() => t.close());

  /** A match answers 200; a mismatch 403 INVALID_EXB_SETUP_CHECK_PROOF, naming the failed check (Document 3). */
  async function checkProof(configKeyHash: string, url: string) {
    const response = await fetch(`${base}/api/exb/check-proof`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ configKeyHash, url }),
    });
    const body = (await response.json()) as { success: boolean; error_code?: string; checks: { configKey: boolean; expectedUrl: boolean } };
    expect(response.status).toBe(body.success ? 200 : 403);
    return body;
  }

  it('downloads with HEAD then GET, decrypts with the development key and proves the Config Key', async () => {
    const download = await downloadConfiguration(`${base}/exb/check/config.exb`);
    expect(download.requests).toEqual([
      { method: 'HEAD', status: 200 },
      { method: 'GET', status: 200 },
    ]);
    expect(download.headers.get('content-type')).toBe('application/octet-stream');

    const opened = openConfiguration(download.bytes, developmentIdentity(t.dataDir));
    expect(opened.layers).toEqual(['gzip', 'pkhs', 'plnd', 'gzip']);
    expect(opened.startUrl).toBe(`${base}/exb/check`);
    expect(opened.quitUrl).toBe(`${base}/exb/check/quit`);
    expect(opened.configKey).toMatch(/^[0-9a-f]{64}$/);

    const browser = SimulatedExamBrowser.fromConfiguration(opened);
    const api = browser.pageApi(opened.startUrl!);
    expect(api.security.configKey).toBe(configKeyHashFor(opened.startUrl!, opened.configKey));
    expect(await checkProof(api.security.configKey, opened.startUrl!)).toEqual({
      success: true,
      checks: { configKey: true, expectedUrl: true },
    });
  });

  it('fails the key check for a browser with another Config Key', async () => {
    const wrong = new SimulatedExamBrowser({ configKey: randomBytes(32).toString('hex') });
    const url = `${base}/exb/check`;
    expect(await checkProof(wrong.pageApi(url).security.configKey, url)).toMatchObject({
      success: false,
      error_code: 'INVALID_EXB_SETUP_CHECK_PROOF',
      checks: { configKey: false, expectedUrl: true },
    });
  });

  it('follows the exam-browser scheme of the launch URL the page offers', async () => {
    const page = await (await fetch(`${base}/exb/check`)).text();
    const launchUrl = /"launchUrl":"([^"]+)"/.exec(page)?.[1];
    expect(launchUrl).toBe(`seb://${new URL(base).host}/exb/check/config.seb`);
    const download = await downloadConfiguration(launchUrl!);
    expect(download.url).toBe(`${base}/exb/check/config.seb`);
    expect(download.headers.get('content-type')).toBe('application/seb');
    expect(openConfiguration(download.bytes, developmentIdentity(t.dataDir)).startUrl).toBe(`${base}/exb/check`);
  });

  it('refuses to read an encrypted file without the private key, or with another one', async () => {
    const { bytes } = await downloadConfiguration(`${base}/exb/check/config.exb`);
    expect(() => openConfiguration(bytes)).toThrow(/no certificate matches/);
    const other = await createTestApp();
    try {
      expect(() => openConfiguration(bytes, developmentIdentity(other.dataDir))).toThrow(/no certificate matches/);
    } finally {
      await other.close();
    }
  });

  it('treats an HTML answer as a page, like the real browser', async () => {
    const error = await downloadConfiguration(`${base}/exb/check`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigurationDownloadError);
    expect((error as ConfigurationDownloadError).openedAsPage).toBe(true);
  });

  it('reports a refused download with its status', async () => {
    const error = await downloadConfiguration(`${base}/exb/check/missing.exb`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigurationDownloadError);
    expect((error as ConfigurationDownloadError).status).toBeGreaterThanOrEqual(400);
    expect((error as ConfigurationDownloadError).openedAsPage).toBe(false);
  });
});

describe('download request sequence', () => {
  function fakeFetch(statuses: Record<'HEAD' | 'GET', number[]>): { fetch: typeof fetch; seen: string[] } {
    const seen: string[] = [];
    const impl = async (_url: string | URL | Request, init?: RequestInit) => {
      const method = (init?.method ?? 'GET') as 'HEAD' | 'GET';
      seen.push(method);
      const status = statuses[method].shift() ?? 500;
      const body = method === 'HEAD' || status === 405 ? null : 'configuration';
      return new Response(body, { status, headers: { 'content-type': 'application/octet-stream' } });
    };
    return { fetch: impl as typeof fetch, seen };
  }

  it('falls back to a GET availability check when HEAD is refused', async () => {
    const { fetch, seen } = fakeFetch({ HEAD: [405], GET: [200, 200] });
    const download = await downloadConfiguration('sebs://tool.example.test/exb/check/config.seb', { fetch });
    expect(seen).toEqual(['HEAD', 'GET', 'GET']);
    expect(download.url).toBe('https://tool.example.test/exb/check/config.seb');
    expect(download.bytes.toString()).toBe('configuration');
  });

  it('stops when neither HEAD nor the availability check succeeds', async () => {
    const { fetch, seen } = fakeFetch({ HEAD: [403], GET: [403] });
    await expect(downloadConfiguration('https://tool.example.test/x.exb', { fetch })).rejects.toMatchObject({ status: 403 });
    expect(seen).toEqual(['HEAD', 'GET']);
  });

  it('refuses other schemes, the contract\'s exbs:// among them, without a request', async () => {
    const { fetch, seen } = fakeFetch({ HEAD: [200], GET: [200] });
    for (const url of ['file:///etc/passwd', 'exbs://tool.example.test/exb/check/config.exb', 'exb://tool.example.test/x.exb']) {
      await expect(downloadConfiguration(url, { fetch }), url).rejects.toThrow(/does not load/);
    }
    expect(seen).toEqual([]);
  });
});

describe('schemes the exam browser registers', () => {
  it('starts only for seb:// and sebs:// and fetches them as http:// and https://, host, path and query unchanged', () => {
    expect(isRegisteredLaunchUrl('sebs://tool.example.test/exb/config/1/q.seb?grant=abc')).toBe(true);
    expect(isRegisteredLaunchUrl('SEB://localhost:3000/exb/check/config.seb')).toBe(true);
    for (const url of ['exbs://tool.example.test/x.exb', 'exb://localhost/x', 'https://tool.example.test/x.seb', 'sebx://a/b']) {
      expect(isRegisteredLaunchUrl(url), url).toBe(false);
    }
    expect(fetchUrlFor('sebs://tool.example.test/exb/config/1/q.seb?grant=abc')).toBe('https://tool.example.test/exb/config/1/q.seb?grant=abc');
    expect(fetchUrlFor('seb://localhost:3000/exb/check/config.seb')).toBe('http://localhost:3000/exb/check/config.seb');
    expect(fetchUrlFor('https://tool.example.test/x')).toBe('https://tool.example.test/x');
  });
});

describe('page API', () => {
  const configKey = createHash('sha256').update('config').digest('hex');
  const browserExamKey = createHash('sha256').update('bek').digest('hex');

  interface FakeWindow {
    location: { href: string };
    SafeExamBrowser?: ExamBrowserPageApi;
    [name: string]: unknown;
  }

  /** Runs the init script as a page would, in a bare context with only what the script may use. */
  function inject(script: string, href: string) {
    const errors: string[] = [];
    const timers: (() => void)[] = [];
    const window: FakeWindow = { location: { href } };
    runInNewContext(script, {
      window,
      TextEncoder,
      setTimeout: (fn: () => void) => timers.push(fn),
      console: { error: (message: string) => errors.push(message) },
    });
    const flush = () => timers.splice(0).forEach((fn) => fn());
    return { window, errors, flush };
  }

  it('computes in the page exactly what the Node side computes, for URLs of every length and script', () => {
    const browser = new SimulatedExamBrowser({ configKey, browserExamKey });
    const urls = ['', 'https://a.example/', 'https://lms.example.test/courses/42/quizzes/7/take?user_id=9&x=ä€😀'];
    for (let length = 0; length < 200; length++) urls.push(`https://x.example/${'p'.repeat(length)}`);
    urls.push(`https://x.example/${'長'.repeat(5000)}`);
    for (const url of urls) {
      const { window } = inject(browser.initScript(), url);
      const expected = browser.pageApi(url);
      expect(window.SafeExamBrowser!.security.configKey).toBe(expected.security.configKey);
      expect(window.SafeExamBrowser!.security.browserExamKey).toBe(expected.security.browserExamKey);
    }
  });

  it('matches the published per-URL vector (TV-H)', () => {
    const browser = new SimulatedExamBrowser({
      configKey: '7f28f3870be4e74b346ac1ed0f1a4354641e1d12aed49eb7c231e7839a315edd',
    });
    const url = 'https://canvas.example.edu/courses/42/quizzes/7/take?user_id=9&seb=1';
    const expected = '18fa5c81fa84c2faebf90f6247c3005c337196fca0155a18bbdc0c583fea875c';
    expect(browser.pageApi(url).security.configKey).toBe(expected);
    expect(inject(browser.initScript(), `${url}#fragment`).window.SafeExamBrowser!.security.configKey).toBe(expected);
  });

  it('windows: keys stay those of the load URL and updateKeys calls back at once', () => {
    const browser = new SimulatedExamBrowser({ configKey, platform: 'windows' });
    const { window } = inject(browser.initScript(), 'https://a.example/one');
    window.location.href = 'https://a.example/two';
    let called = 0;
    window.SafeExamBrowser!.security.updateKeys(() => called++);
    expect(called).toBe(1);
    expect(window.SafeExamBrowser!.security.configKey).toBe(configKeyHashFor('https://a.example/one', configKey));
    expect(window.SafeExamBrowser!.version).toMatch(/^SEB_Windows/);
  });

  it('macos: updateKeys recomputes for the current URL and calls back only a named global function', () => {
    const browser = new SimulatedExamBrowser({ configKey, platform: 'macos' });
    const { window, errors, flush } = inject(browser.initScript(), 'https://a.example/one');
    window.location.href = 'https://a.example/two';
    let named = 0;
    const keysUpdated = () => named++;
    window.keysUpdated = keysUpdated;
    window.SafeExamBrowser!.security.updateKeys(keysUpdated);
    expect(named).toBe(0);
    flush();
    expect(named).toBe(1);
    expect(window.SafeExamBrowser!.security.configKey).toBe(configKeyHashFor('https://a.example/two', configKey));

    let anonymous = 0;
    window.SafeExamBrowser!.security.updateKeys(Object.defineProperty(() => anonymous++, 'name', { value: '' }));
    flush();
    expect(anonymous).toBe(0);
    expect(errors).toEqual(['SafeExamBrowser.updateKeys: the callback must be a named global function']);
  });

  it('adds the request headers the browser sends with its keys', () => {
    const browser = new SimulatedExamBrowser({ configKey, browserExamKey });
    const url = 'https://lms.example.test/courses/1/quizzes/2/take';
    expect(browser.requestHeaders(url)).toEqual({
      'x-safeexambrowser-configkeyhash': configKeyHashFor(url, configKey),
      'x-safeexambrowser-requesthash': configKeyHashFor(url, browserExamKey),
    });
  });

  it('refuses keys that are not 64 lowercase hex characters', () => {
    expect(() => new SimulatedExamBrowser({ configKey: 'abc' })).toThrow(/configKey/);
    expect(() => new SimulatedExamBrowser({ configKey: configKey.toUpperCase() })).toThrow(/configKey/);
    expect(() => new SimulatedExamBrowser({ configKey, browserExamKey: 'x' })).toThrow(/browserExamKey/);
  });
});
