import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../server/src/db/orm.js';
import { freePort } from '../../server/src/free-port.js';
import { createLogger } from '../../server/src/logger.js';
import { createTestDatabase } from '../../server/test/support/database.js';
import { startDevelopment, type DevelopmentEnvironment } from '../src/dev.js';
import { browserAvailable, launchBrowser, type LaunchedBrowser } from '../src/support/browser.js';

const CLIENT_MANIFEST = fileURLToPath(new URL('../../client/dist/.vite/manifest.json', import.meta.url));
const AUTHORIZE_BUTTON = 'Authorize administrator access in the LMS';
const ADMIN_START = '/api/admin/oauth2authorize';

interface Environment {
  dev: DevelopmentEnvironment;
  db: Database;
  /** A browser profile of its own, closed before the servers so no idle browser connection holds them open. */
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * The development LMS and the service; the session cookie is `SameSite=None; Secure; Partitioned` on both (Chromium
 * counts `localhost` and all of 127.0.0.0/8 as secure contexts). `local`: both on `localhost`, one site, so the tool
 * frame and a popup share one partition. `cross-site`: the service on `http://127.0.0.2` and the LMS on `localhost`,
 * another site: the tool frame is a third-party context with its own cookie partition, exactly as under a real LMS.
 */
async function startEnvironment(kind: 'local' | 'cross-site', browser: Browser): Promise<Environment> {
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'exb-oauth-popup-e2e-'));
  const db = await openDatabase({ databaseUrl: database.url, dataDir, logger: createLogger('silent'), poolSize: 1 });
  await db.migrate();
  const [port, lmsPort] = [await freePort(), await freePort()];
  const dev = await startDevelopment({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PORT: String(port),
    LMS_PORT: String(lmsPort),
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    // `0.0.0.0` so the service answers at 127.0.0.2 too; the development LMS is still addressed as `localhost`.
    ...(kind === 'local' ? { HOST: '127.0.0.1' } : { HOST: '0.0.0.0', BASE_URL: `http://127.0.0.2:${port}` }),
  });
  const context = await browser.newContext();
  return {
    dev,
    db,
    context,
    async close() {
      await context.close();
      await dev.close();
      await db.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function bootstrapOf(page: Page | Frame): Promise<Record<string, unknown>> {
  return JSON.parse((await page.locator('#exb-bootstrap').textContent()) ?? 'null') as Record<string, unknown>;
}

/** The root-account administrator's launch from the LMS's account navigation; returns the tool frame. */
async function launchAdministrator(page: Page, dev: DevelopmentEnvironment): Promise<Frame> {
  await page.goto(dev.launchPageUrl);
  await page.getByRole('button', { name: /^Account navigation \(.+\) as administrator$/ }).first().click();
  await expect.poll(() => page.frame({ name: 'tool_content' })?.url() ?? '', { timeout: 15_000 }).toContain(`${dev.serviceUrl}/lti/launch`);
  const tool = page.frame({ name: 'tool_content' })!;
  await tool.getByRole('button', { name: AUTHORIZE_BUTTON }).waitFor({ timeout: 15_000 });
  expect((await bootstrapOf(tool)).view).toBe('admin');
  return tool;
}

async function storedGrants(db: Database): Promise<{ lms_user_id: string; grant_type: string; account_id: string | null }[]> {
  return db.orm.em.getConnection().execute('select lms_user_id, grant_type, account_id from lms_oauth_token order by lms_user_id');
}

/**
 * The button in the tool frame → ticket → popup at the start with the ticket → LMS approval → callback in the popup →
 * completion signal → the tool frame, without reloading, checks the grant again and opens the dashboard.
 */
async function authorizeThroughPopup(env: Environment, page: Page, tool: Frame): Promise<Page> {
  const { dev } = env;
  await tool.evaluate(() => {
    (window as unknown as Record<string, unknown>).exbBeforeAuthorization = true;
  });
  const startRequest = env.context.waitForEvent('request', {
    predicate: (request) => request.url().startsWith(`${dev.serviceUrl}${ADMIN_START}`),
    timeout: 15_000,
  });
  const [popup] = await Promise.all([page.waitForEvent('popup'), tool.getByRole('button', { name: AUTHORIZE_BUTTON }).click()]);

  // The popup is sent to the start with a fresh ticket, by the tool frame's script: a same-origin navigation.
  const request = await startRequest;
  expect(request.frame().page()).toBe(popup);
  expect(new URL(request.url()).searchParams.get('ticket')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect((await request.allHeaders())['sec-fetch-site']).toBe('same-origin');
  expect((await request.response())?.status()).toBe(302);

  await popup.waitForURL((url) => url.href.startsWith(`${dev.lmsUrl}/login/oauth2/auth`), { timeout: 15_000 });
  await popup.locator('#oauth2_accept').click();
  await popup.waitForURL((url) => url.href.startsWith(`${dev.serviceUrl}/api/oauth2callback`), { timeout: 15_000 });
  await popup.locator('#exb-bootstrap').waitFor({ state: 'attached' });
  expect(await bootstrapOf(popup)).toEqual({ locale: 'en', view: 'lms-oauth-connected', lmsReturnUrl: `${dev.lmsUrl}/accounts/1`, redirectUrl: '/lti/launch' });
  await expect.poll(() => popup.getByText('The tool has been told').count()).toBe(1);

  // The completion signal reached the tool frame, which asked again and now shows the dashboard, in the same page.
  await tool.getByText('Connected courses').first().waitFor({ timeout: 15_000 });
  expect(await tool.getByRole('button', { name: AUTHORIZE_BUTTON }).count()).toBe(0);
  expect(await tool.evaluate(() => (window as unknown as Record<string, unknown>).exbBeforeAuthorization)).toBe(true);
  expect(tool.url()).toBe(`${dev.serviceUrl}/lti/launch`);

  expect(await storedGrants(env.db)).toEqual([{ lms_user_id: '1', grant_type: 'account_admin', account_id: '1' }]);
  return popup;
}

describe.runIf(browserAvailable())('LMS authorization popup opened from the tool frame (Chromium)', () => {
  let browser: LaunchedBrowser;

  beforeAll(async () => {
    if (!existsSync(CLIENT_MANIFEST)) throw new Error('the client bundle is missing: run `npm run build -w client`');
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  describe('service on localhost (one cookie jar for frame and popup)', () => {
    let env: Environment;
    beforeAll(async () => {
      env = await startEnvironment('local', browser.browser);
    });
    afterAll(() => env?.close());

    it('administrator: button → ticket → popup → LMS approval → completion signal opens the dashboard', async () => {
      const page = await env.context.newPage();
      const tool = await launchAdministrator(page, env.dev);
      const popup = await authorizeThroughPopup(env, page, tool);
      await popup.close();
      await page.close();
    });
  });

  describe('service on another site (partitioned session cookie)', () => {
    let env: Environment;
    beforeAll(async () => {
      env = await startEnvironment('cross-site', browser.browser);
    });
    afterAll(() => env?.close());

    it('the tool frame\'s session cookie is partitioned under the LMS site, and a popup without a ticket does not see it', async () => {
      const page = await env.context.newPage();
      const tool = await launchAdministrator(page, env.dev);
      const sessions = (await env.context.cookies(env.dev.serviceUrl)).filter((cookie) => cookie.name === 'exb_session');
      expect(sessions).toHaveLength(1);
      expect(sessions[0]).toMatchObject({ sameSite: 'None', secure: true, httpOnly: true, partitionKey: 'http://localhost' });

      // What the popup faced before the handover: the start, opened plainly, has no session.
      const startResponse = env.context.waitForEvent('response', {
        predicate: (response) => response.url() === `${env.dev.serviceUrl}${ADMIN_START}`,
        timeout: 15_000,
      });
      const [popup] = await Promise.all([
        page.waitForEvent('popup'),
        tool.evaluate((start) => {
          window.open(start, 'exb-plain-start', 'popup,width=720,height=760');
        }, ADMIN_START),
      ]);
      expect((await startResponse).status()).toBe(401);
      await expect.poll(() => popup.getByText('Open the tool from the LMS first').count()).toBe(1);
      await popup.close();
      await page.close();
    });

    it('administrator: the handed-over session completes the authorization and the tool opens the dashboard', async () => {
      const page = await env.context.newPage();
      const tool = await launchAdministrator(page, env.dev);
      const popup = await authorizeThroughPopup(env, page, tool);

      // The popup now has its own session cookie, in the tool's own top-level partition, besides the frame's.
      const partitions = (await env.context.cookies(env.dev.serviceUrl))
        .filter((cookie) => cookie.name === 'exb_session')
        .map((cookie) => cookie.partitionKey)
        .sort();
      expect(partitions).toEqual(['http://127.0.0.2', 'http://localhost']);
      await popup.close();
      await page.close();
    });

    it('instructor: the course view\'s authorize button completes the grant the tool frame then reads', async () => {
      const page = await env.context.newPage();
      await page.goto(env.dev.launchPageUrl);
      await page.getByRole('button', { name: 'Launch as instructor', exact: true }).click();
      await expect.poll(() => page.frame({ name: 'tool_content' })?.url() ?? '', { timeout: 15_000 }).toContain(`${env.dev.serviceUrl}/lti/launch`);
      const tool = page.frame({ name: 'tool_content' })!;
      const oauthStatus = () => tool.evaluate(async () => (await fetch('/api/oauth2status', { credentials: 'same-origin' })).json());
      const connect = tool.getByRole('button', { name: 'Authorize the tool in the LMS' });
      await connect.waitFor({ timeout: 15_000 });
      expect(await oauthStatus()).toEqual({ authorized: false });

      const [popup] = await Promise.all([page.waitForEvent('popup'), connect.click()]);
      await popup.waitForURL((url) => url.href.startsWith(`${env.dev.lmsUrl}/login/oauth2/auth`), { timeout: 15_000 });
      await popup.locator('#oauth2_accept').click();
      await expect.poll(() => popup.getByText('The tool has been told').count(), { timeout: 15_000 }).toBe(1);
      expect(await bootstrapOf(popup)).toMatchObject({ view: 'lms-oauth-connected', lmsReturnUrl: `${env.dev.lmsUrl}/courses/101` });
      expect(await oauthStatus()).toEqual({ authorized: true });
      await popup.close();
      await page.close();
    });
  });
});
