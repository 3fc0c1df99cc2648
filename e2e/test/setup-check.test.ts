import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVELOPMENT_CERTIFICATE_FILE, DEVELOPMENT_CERTIFICATE_KEY_FILE } from '../../server/src/config/dev-secrets.js';
import { createTestApp, type TestApp } from '../../server/test/support/app.js';
import {
  downloadConfiguration,
  isRegisteredLaunchUrl,
  openConfiguration,
  SimulatedExamBrowser,
  type ExamBrowserPlatform,
} from '../src/exb-simulator/index.js';
import { browserAvailable, launchBrowser, type LaunchedBrowser } from '../src/support/browser.js';

const CLIENT_MANIFEST = fileURLToPath(new URL('../../client/dist/.vite/manifest.json', import.meta.url));

describe.runIf(browserAvailable())('setup-check page in Chromium', () => {
  let t: TestApp;
  let browser: LaunchedBrowser;
  let configKey: string;

  beforeAll(async () => {
    if (!existsSync(CLIENT_MANIFEST)) throw new Error('the client bundle is missing: run `npm run build -w client`');
    t = await createTestApp({ listen: true });
    browser = await launchBrowser();
    const download = await downloadConfiguration(`${t.url}/exb/check/config.exb`);
    const secrets = path.join(t.dataDir, 'secrets');
    configKey = openConfiguration(download.bytes, {
      certificatePem: readFileSync(path.join(secrets, DEVELOPMENT_CERTIFICATE_FILE), 'utf8'),
      privateKeyPem: readFileSync(path.join(secrets, DEVELOPMENT_CERTIFICATE_KEY_FILE), 'utf8'),
    }).configKey;
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Opens the check page in a fresh context, with the exam browser's page API when one is given. */
  async function openCheck(examBrowser: SimulatedExamBrowser | undefined, pagePath = '/exb/check') {
    const context = await browser.browser.newContext();
    if (examBrowser !== undefined) await context.addInitScript(examBrowser.initScript());
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() !== 'error' || /favicon/.test(message.text())) return;
      // A failed check is the proof route's 403 by contract; the browser logs every error status a fetch receives.
      if (message.location().url.endsWith('/api/exb/check-proof') && /status of 403/.test(message.text())) return;
      problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${t.url}${pagePath}`);
    return { page, problems, close: () => context.close() };
  }

  const phase = (page: Page) => page.locator('[data-setup-check-phase]').getAttribute('data-setup-check-phase');
  const status = (page: Page, check: string) => page.locator(`[data-check="${check}"]`).getAttribute('data-status');

  it.each<ExamBrowserPlatform>(['windows', 'macos'])(
    'shows both checks as passed in the exam browser (%s page API)',
    async (platform) => {
      const { page, problems, close } = await openCheck(new SimulatedExamBrowser({ configKey, platform }));
      await expect.poll(() => phase(page), { timeout: 10_000 }).toBe('done');
      expect(await status(page, 'configKey')).toBe('passed');
      expect(await status(page, 'expectedUrl')).toBe('passed');
      expect(await page.getByText('Your exam browser is ready').count()).toBeGreaterThan(0);
      expect(await page.getByRole('link', { name: 'Quit the exam browser' }).getAttribute('href')).toBe(
        `${t.url}/exb/check/quit`,
      );
      // No violation of the page's content security policy, and no script errors.
      expect(problems).toEqual([]);
      await close();
    },
  );

  it('shows the key check as failed for another configuration', async () => {
    const other = new SimulatedExamBrowser({ configKey: 'f'.repeat(64) });
    const { page, problems, close } = await openCheck(other);
    await expect.poll(() => phase(page), { timeout: 10_000 }).toBe('done');
    expect(await status(page, 'configKey')).toBe('failed');
    expect(await status(page, 'expectedUrl')).toBe('passed');
    expect(await page.getByText('not set up correctly').count()).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    await close();
  });

  it('shows the URL check as failed when the page was opened at another address', async () => {
    const { page, close } = await openCheck(new SimulatedExamBrowser({ configKey }), '/exb/check?opened=elsewhere');
    await expect.poll(() => phase(page), { timeout: 10_000 }).toBe('done');
    expect(await status(page, 'configKey')).toBe('passed');
    expect(await status(page, 'expectedUrl')).toBe('failed');
    await close();
  });

  it('says clearly that an ordinary browser is not the exam browser and offers the launch', async () => {
    const { page, problems, close } = await openCheck(undefined);
    await expect.poll(() => phase(page), { timeout: 10_000 }).toBe('no-page-api');
    expect(await page.getByText(/You are not in the exam browser/).count()).toBeGreaterThan(0);
    const launch = page.getByRole('link', { name: 'Open the setup check in the exam browser' });
    expect(await launch.getAttribute('href')).toBe(`seb://${new URL(t.url!).host}/exb/check/config.seb`);
    const download = page.getByRole('link', { name: 'download the setup-check configuration' });
    expect(await download.getAttribute('href')).toBe(`${t.url}/exb/check/config.seb`);
    expect(await page.locator('[data-check]').count()).toBe(0);
    expect(problems).toEqual([]);
    await close();
  });

  it('starts the exam browser through the page\'s seb:// link, which then passes both checks', async () => {
    const ordinary = await openCheck(undefined);
    await expect.poll(() => phase(ordinary.page), { timeout: 10_000 }).toBe('no-page-api');
    const href = await ordinary.page.getByRole('link', { name: 'Open the setup check in the exam browser' }).getAttribute('href');
    await ordinary.close();
    // What the operating system does with the link: it starts the exam browser only for a scheme it registered.
    expect(isRegisteredLaunchUrl(href!)).toBe(true);
    const download = await downloadConfiguration(href!);
    expect(download.headers.get('content-type')).toBe('application/seb');
    const secrets = path.join(t.dataDir, 'secrets');
    const opened = openConfiguration(download.bytes, {
      certificatePem: readFileSync(path.join(secrets, DEVELOPMENT_CERTIFICATE_FILE), 'utf8'),
      privateKeyPem: readFileSync(path.join(secrets, DEVELOPMENT_CERTIFICATE_KEY_FILE), 'utf8'),
    });
    expect(opened.startUrl).toBe(`${t.url}/exb/check`);
    const { page, problems, close } = await openCheck(SimulatedExamBrowser.fromConfiguration(opened), new URL(opened.startUrl!).pathname);
    await expect.poll(() => phase(page), { timeout: 10_000 }).toBe('done');
    expect(await status(page, 'configKey')).toBe('passed');
    expect(await status(page, 'expectedUrl')).toBe('passed');
    expect(problems).toEqual([]);
    await close();
  });
});
