import type { Frame } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../server/src/free-port.js';
import { createTestApp, type TestApp } from '../../server/test/support/app.js';
import { createMockLms, type MockLms, type RunningLmsServer } from '../src/lms/index.js';
import { browserAvailable, launchBrowser, type LaunchedBrowser } from '../src/support/browser.js';

const CLIENT_ID = '10000000000001';
const DEPLOYMENT_ID = '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb';
const ISSUER = 'https://canvas.instructure.com';

describe.runIf(browserAvailable())('LTI launch from the development LMS in Chromium', () => {
  let t: TestApp;
  let lms: MockLms;
  let lmsServer: RunningLmsServer;
  let browser: LaunchedBrowser;
  const problems: string[] = [];

  beforeAll(async () => {
    const lmsUrl = `http://127.0.0.1:${await freePort()}`;
    t = await createTestApp({
      listen: true,
      env: { LMS_URL: lmsUrl, LTI_ISSUER: ISSUER, LTI_CLIENT_ID: CLIENT_ID, LTI_DEPLOYMENT_ID: DEPLOYMENT_ID },
    });
    lms = createMockLms({
      baseUrl: lmsUrl,
      issuer: ISSUER,
      tool: {
        baseUrl: t.url!,
        clientId: CLIENT_ID,
        deploymentId: DEPLOYMENT_ID,
        oauthClientId: '10000000000002',
        oauthClientSecret: 'secret',
      },
    });
    lmsServer = await lms.startHttpServer();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await lmsServer?.close();
    await t?.close();
  });

  /** Reloads the frame the way a user would and waits until the new document is there. */
  async function reloadFrame(frame: Frame, requests: string[]) {
    const before = requests.length;
    await frame.evaluate(() => {
      (window as unknown as { beforeReload?: boolean }).beforeReload = true;
      window.location.reload();
    });
    await expect
      .poll(() => frame.evaluate(() => (window as unknown as { beforeReload?: boolean }).beforeReload === undefined).catch(() => false), {
        timeout: 15_000,
      })
      .toBe(true);
    return requests.slice(before);
  }

  /** Opens the LMS launch page in a fresh browser profile and clicks a launch button; returns the tool frame. */
  async function launchFromLaunchPage(button: string) {
    const context = await browser.browser.newContext();
    const page = await context.newPage();
    // Only the tool's own pages count; the LMS page may miss a favicon.
    page.on('console', (message) => {
      if (message.type() === 'error' && message.location().url.startsWith(t.url!)) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('response', (response) => {
      if (response.status() >= 400 && response.url().startsWith(t.url!)) problems.push(`${response.status()} ${response.url()}`);
    });
    const requests: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (request.isNavigationRequest() && url.origin === t.url) requests.push(`${request.method()} ${url.pathname}`);
    });
    await page.goto(lms.launchPageUrl);
    await page.getByRole('button', { name: button, exact: true }).click();
    await page.waitForSelector('iframe#tool_content');
    const frame = page.frame({ name: 'tool_content' })!;
    return { context, page, frame, requests };
  }

  it('shows an instructor the teacher view inside the LMS frame, and a reload keeps the session', async () => {
    const { context, page, frame, requests } = await launchFromLaunchPage('Launch as instructor');
    // The LMS page stays on top; the tool renders inside its frame.
    expect(new URL(page.url()).origin).toBe(lmsServer.url);
    await expect.poll(() => frame.getByRole('heading', { level: 1 }).textContent(), { timeout: 15_000 }).toBe('Biology 101');
    await expect.poll(() => frame.getByRole('button', { name: 'Authorize the tool in the LMS' }).count()).toBe(1);
    await expect.poll(() => frame.getByText('Signed in as Ian Instructor', { exact: false }).count()).toBe(1);
    expect(new URL(frame.url()).pathname).toBe('/lti/launch');

    expect(requests).toEqual(['POST /lti/login', 'POST /lti/launch']);

    // The launch was a one-time form post; the reload loads the page again from the session.
    expect(await reloadFrame(frame, requests)).toEqual(['GET /lti/launch']);
    await expect.poll(() => frame.getByRole('heading', { level: 1 }).textContent(), { timeout: 15_000 }).toBe('Biology 101');
    await expect.poll(() => frame.getByRole('button', { name: 'Authorize the tool in the LMS' }).count()).toBe(1);
    await context.close();
  });

  it('shows a student the student view inside the LMS frame', async () => {
    const { context, frame, requests } = await launchFromLaunchPage('Launch as student 1');
    await expect.poll(() => frame.getByRole('heading', { level: 1 }).textContent(), { timeout: 15_000 }).toBe('Biology 101');
    await expect.poll(() => frame.getByRole('heading', { name: 'Before your exam' }).count()).toBe(1);
    await expect.poll(() => frame.getByText('Welcome, Sam Student.', { exact: false }).count()).toBe(1);
    expect(await reloadFrame(frame, requests)).toEqual(['GET /lti/launch']);
    await expect.poll(() => frame.getByRole('heading', { name: 'Before your exam' }).count(), { timeout: 15_000 }).toBe(1);
    await context.close();
  });

  it('renders without console errors under the strict content security policy', () => {
    expect(problems).toEqual([]);
  });
});
