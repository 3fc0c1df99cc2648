import type { Frame } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../server/src/free-port.js';
import { createTestApp, type TestApp } from '../../../server/test/support/app.js';
import { createMockLms, type MockLms, type RunningLmsServer } from '../../src/lms/index.js';
import { browserAvailable, launchBrowser, type LaunchedBrowser } from '../../src/support/browser.js';

const CLIENT_ID = '10000000000001';
const DEPLOYMENT_ID = '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb';
const ISSUER = 'https://canvas.instructure.com';

/** The launch page's administrator buttons against the real service, in Chromium. */
describe.runIf(browserAvailable())('launch page administrator buttons (Chromium, real service)', () => {
  let t: TestApp;
  let lms: MockLms;
  let lmsServer: RunningLmsServer;
  let browser: LaunchedBrowser;

  beforeAll(async () => {
    const lmsUrl = `http://127.0.0.1:${await freePort()}`;
    t = await createTestApp({
      listen: true,
      env: { LMS_URL: lmsUrl, LTI_ISSUER: ISSUER, LTI_CLIENT_ID: CLIENT_ID, LTI_DEPLOYMENT_ID: DEPLOYMENT_ID },
    });
    lms = createMockLms({
      baseUrl: lmsUrl,
      issuer: ISSUER,
      tool: { baseUrl: t.url!, clientId: CLIENT_ID, deploymentId: DEPLOYMENT_ID, oauthClientId: '10000000000002', oauthClientSecret: 'secret' },
    });
    lmsServer = await lms.startHttpServer();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await lmsServer?.close();
    await t?.close();
  });

  /** Clicks a launch-page button in a fresh profile; returns the LMS page's URL and the tool's bootstrap view. */
  async function launch(button: string): Promise<{ lmsPath: string; view: unknown; frame: Frame; close(): Promise<void> }> {
    const context = await browser.browser.newContext();
    const page = await context.newPage();
    await page.goto(lms.launchPageUrl);
    await page.getByRole('button', { name: button, exact: true }).click();
    await expect.poll(() => page.frame({ name: 'tool_content' })?.url() ?? '', { timeout: 15_000 }).toBe(`${t.url}/lti/launch`);
    const frame = page.frame({ name: 'tool_content' })!;
    await frame.locator('#exb-bootstrap').waitFor({ state: 'attached', timeout: 15_000 });
    const bootstrap = JSON.parse((await frame.locator('#exb-bootstrap').textContent()) ?? 'null') as { view?: unknown };
    return { lmsPath: new URL(page.url()).pathname, view: bootstrap.view, frame, close: () => context.close() };
  }

  it('opens the root administrator’s account navigation, where the tool shows its administration', async () => {
    const opened = await launch('Launch as administrator');
    expect(opened.lmsPath).toBe('/accounts/1/external_tools/1');
    expect(opened.view).toBe('admin');
    await opened.close();
  });

  it('opens the sub-account administrator’s own account navigation, where the tool answers not authorized', async () => {
    const opened = await launch('Launch as sub-account administrator');
    expect(opened.lmsPath).toBe('/accounts/2/external_tools/1');
    expect(opened.view).toBe('role-not-authorized');
    await opened.close();
  });
});
