import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/src/db/orm.js';
import { freePort } from '../../server/src/free-port.js';
import { createLogger } from '../../server/src/logger.js';
import { createTestDatabase } from '../../server/test/support/database.js';
import { startDevelopment, type DevelopmentEnvironment } from '../src/dev.js';
import { browserAvailable, launchBrowser, type LaunchedBrowser } from '../src/support/browser.js';

const CLIENT_MANIFEST = fileURLToPath(new URL('../../client/dist/.vite/manifest.json', import.meta.url));

async function bootstrapOf(page: Page | Frame): Promise<Record<string, unknown>> {
  return JSON.parse((await page.locator('#exb-bootstrap').textContent()) ?? 'null') as Record<string, unknown>;
}

async function oauthStatus(frame: Frame): Promise<unknown> {
  return frame.evaluate(async () => (await fetch('/api/oauth2status', { credentials: 'same-origin' })).json());
}

describe.runIf(browserAvailable())('LMS authorization in Chromium', () => {
  let dev: DevelopmentEnvironment;
  let browser: LaunchedBrowser;
  let dataDir: string;
  let dropDatabase: () => Promise<void>;

  beforeAll(async () => {
    if (!existsSync(CLIENT_MANIFEST)) throw new Error('the client bundle is missing: run `npm run build -w client`');
    const database = await createTestDatabase();
    dropDatabase = database.drop;
    dataDir = mkdtempSync(path.join(tmpdir(), 'exb-oauth-e2e-'));
    const db = await openDatabase({ databaseUrl: database.url, dataDir, logger: createLogger('silent'), poolSize: 1 });
    await db.migrate();
    await db.close();
    const [port, lmsPort] = [await freePort(), await freePort()];
    dev = await startDevelopment({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      HOST: '127.0.0.1',
      PORT: String(port),
      LMS_PORT: String(lmsPort),
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await dev?.close();
    await dropDatabase?.();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('instructor launch → connect → LMS approval → completion view, and oauth2status turns true', async () => {
    const page = await browser.context.newPage();
    await page.goto(dev.launchPageUrl);
    await page.getByRole('button', { name: 'Launch as instructor', exact: true }).click();

    // The tool renders the course shell inside the LMS's tool frame.
    await expect.poll(() => page.frame({ name: 'tool_content' })?.url() ?? '', { timeout: 15_000 }).toContain(`${dev.serviceUrl}/lti/launch`);
    const tool = page.frame({ name: 'tool_content' })!;
    const connect = tool.getByRole('button', { name: 'Authorize the tool in the LMS' });
    await connect.waitFor({ timeout: 15_000 });
    expect((await bootstrapOf(tool)).view).toBe('teacher');
    expect(await oauthStatus(tool)).toEqual({ authorized: false });

    // "Connect" opens a popup at the authorization start (with the session handed over), which sends it to the LMS.
    const [popup] = await Promise.all([page.waitForEvent('popup'), connect.click()]);
    await popup.waitForURL((url) => url.href.startsWith(`${dev.lmsUrl}/login/oauth2/auth`), { timeout: 15_000 });
    const requested = new URL(popup.url());
    expect(requested.searchParams.get('redirect_uri')).toBe(`${dev.serviceUrl}/api/oauth2callback`);
    expect(requested.searchParams.get('response_type')).toBe('code');
    expect(await popup.locator('#oauth_scopes li').allTextContents()).toContain('url:GET|/api/v1/courses');

    // The LMS approval page.
    await popup.locator('#oauth2_accept').click();
    await popup.waitForURL((url) => url.href.startsWith(`${dev.serviceUrl}/api/oauth2callback`), { timeout: 15_000 });
    await popup.locator('#exb-bootstrap').waitFor({ state: 'attached' });
    const completion = await bootstrapOf(popup);
    expect(completion).toEqual({
      locale: 'en',
      view: 'lms-oauth-connected',
      lmsReturnUrl: `${dev.lmsUrl}/courses/101`,
      redirectUrl: '/lti/launch',
    });
    // The code never stays in the page the user sees, only in the callback URL the service consumed.
    expect(await popup.content()).not.toContain(new URL(popup.url()).searchParams.get('code')!);

    await expect.poll(() => popup.getByRole('heading', { name: 'Connected to the LMS' }).count()).toBe(1);

    expect(await oauthStatus(tool)).toEqual({ authorized: true });
    await popup.close();
    await page.close();
  });

  it('the completion page signals the tool window that opened it, from the same origin and that popup', async () => {
    const page = await browser.context.newPage();
    await page.goto(dev.launchPageUrl);
    await page.getByRole('button', { name: 'Launch as instructor', exact: true }).click();
    await expect.poll(() => page.frame({ name: 'tool_content' })?.url() ?? '', { timeout: 15_000 }).toContain(`${dev.serviceUrl}/lti/launch`);
    const tool = page.frame({ name: 'tool_content' })!;
    await tool.locator('#exb-bootstrap').waitFor({ state: 'attached' });

    // The tool window opens the reauthorization in a popup and waits for the completion signal as the client does:
    // a blank popup first, then the start with a one-time ticket that hands the tool window's session over.
    const popupEvent = page.waitForEvent('popup');
    const signal = tool.evaluate(
      () =>
        new Promise<unknown>((resolve, reject) => {
          const popup = window.open('about:blank', 'exb-lms-authorization', 'popup,width=720,height=760');
          window.addEventListener('message', (event) => {
            if (event.origin === window.location.origin && event.source === popup) resolve(event.data);
          });
          fetch('/api/oauth2/popup-ticket', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ start: 'oauth2reauthorize' }),
            credentials: 'same-origin',
          })
            .then((response) => response.json() as Promise<{ ticket: string }>)
            .then(({ ticket }) => popup!.location.replace(`/api/oauth2reauthorize?ticket=${ticket}`), reject);
        }),
    );
    const popup = await popupEvent;
    await popup.waitForURL((url) => url.href.startsWith(`${dev.lmsUrl}/login/oauth2/auth`), { timeout: 15_000 });
    await popup.locator('#oauth2_accept').click();
    expect(await signal).toEqual({ type: 'exb:lms-authorization-completed', view: 'lms-oauth-connected' });
    await expect.poll(() => popup.getByText('The tool has been told').count()).toBe(1);
    await popup.close();
    await page.close();
  });
});
