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
    // The session scope the key editor does not offer: added with one developer keys API call, include parameters on.
    await expect.poll(() => page.getByRole('heading', { name: 'Add the session scope through the developer keys API' }).count()).toBe(1);
    const call = page.locator('code, pre').filter({ hasText: "curl -X PUT 'http://localhost:3001/api/v1/developer_keys/KEY_ID'" }).first();
    const text = (await call.textContent())!;
    expect(text).toContain('"allow_includes":true');
    expect(text).toContain('"require_scopes":true');
    expect(text).toContain('url:GET|/api/v1/login/session_token');
    // The exam-day board's read scopes are listed, and the call puts them on the key too.
    await expect.poll(() => page.getByRole('heading', { name: 'Exam-day scopes' }).count()).toBe(1);
    expect(text).toContain('url:GET|/api/v1/courses/:course_id/enrollments');
    await expect.poll(() => page.getByRole('button', { name: /Developer keys API call/ }).count()).toBe(1);
    await page.close();
  });

  it('shows an LMS error description from the callback URL as short plain text', async () => {
    // Anyone can send a user to the callback with a description of their choosing.
    const description = `<img src=x onerror="window.injected=1"><b>Your account is locked.</b> ${'Call 555-0100 to restore it. '.repeat(20)}`;
    const page = await browser.context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    const response = await page.goto(`${t.url}/api/oauth2callback?error=access_denied&error_description=${encodeURIComponent(description)}`);
    expect(response?.status()).toBe(400);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).first().textContent(), { timeout: 15_000 }).toBe('LMS authorization did not complete');
    const shown = page.locator('dd').filter({ hasText: 'Your account is locked' });
    const text = (await shown.textContent())!;
    expect(text.startsWith('<img src=x onerror="window.injected=1"><b>Your account is locked.</b> Call 555-0100')).toBe(true);
    expect([...text]).toHaveLength(160);
    expect(text.endsWith('…')).toBe(true);
    expect(await page.locator('#root img, #root b').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { injected?: number }).injected)).toBeUndefined();
    expect(dialogs).toEqual([]);
    await page.close();
  });

  it('runs under the strict content security policy without errors', () => {
    expect(consoleErrors).toEqual([]);
  });
});
