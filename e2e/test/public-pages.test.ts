import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../server/test/support/app.js';
import { browserAvailable, launchBrowser, type LaunchedBrowser } from '../src/support/browser.js';

describe.runIf(browserAvailable())('public pages in Chromium', () => {
  let t: TestApp;
  let browser: LaunchedBrowser;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    t = await createTestApp({ listen: true, env: { TESTBED_ENABLED: 'true' } });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function open(path: string) {
    const page = await browser.context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    page.on('response', (response) => {
      if (response.status() >= 400) consoleErrors.push(`${response.status()} ${response.url()}`);
    });
    await page.goto(`${t.url}${path}`);
    return page;
  }

  it('renders the service status with testbed diagnostics', async () => {
    const page = await open('/');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).first().textContent(), { timeout: 15_000 }).toMatch(/Exam browser enforcement/i);
    await expect.poll(() => page.getByText('Testbed diagnostics').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    await expect.poll(() => page.getByText('http://localhost:3001').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    await page.close();
  });

  it('renders the detailed setup guide with the values to paste and working copy buttons', async () => {
    const page = await open('/setup/guide');
    await expect.poll(() => page.getByText(`${t.url}/lti/config`).count(), { timeout: 15_000 }).toBeGreaterThan(0);
    await expect.poll(() => page.getByText(`${t.url}/api/oauth2callback`).count(), { timeout: 15_000 }).toBeGreaterThan(0);
    await expect.poll(() => page.getByText('url:GET|/api/v1/courses', { exact: true }).count(), { timeout: 15_000 }).toBeGreaterThan(0);
    const copyButtons = page.getByRole('button', { name: /copy/i });
    expect(await copyButtons.count()).toBeGreaterThan(5);
    await page.close();
  });

  it('runs under the strict content security policy without errors', () => {
    expect(consoleErrors).toEqual([]);
  });
});
