import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Frame, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { DEVELOPMENT_CERTIFICATE_FILE, DEVELOPMENT_CERTIFICATE_KEY_FILE } from '../../server/src/config/dev-secrets.js';
import { openDatabase, type Database } from '../../server/src/db/orm.js';
import { freePort } from '../../server/src/free-port.js';
import { createLogger } from '../../server/src/logger.js';
import { createTestDatabase } from '../../server/test/support/database.js';
import { startDevelopment, type DevelopmentEnvironment } from '../src/dev.js';
import { downloadConfiguration, openConfiguration, SIMULATOR_USER_AGENT, SimulatedExamBrowser } from '../src/exb-simulator/index.js';
import { BLOCK_THIRD_PARTY_COOKIES_ARGS, browserAvailable, launchBrowser, type LaunchedBrowser } from '../src/support/browser.js';
import { seriousViolations } from '../src/support/axe.js';
import { localhostTlsCertificate } from '../src/support/tls-certificate.js';
import {
  approveLmsAuthorization,
  launchIntoToolFrame,
  PAGE_TIMEOUT_MS,
  waitForView,
  watchServiceProblems,
} from '../src/support/tool-frame.js';
import { screenshotFolder, type ScreenshotFolder } from './screenshot-folder.js';

const BUNDLES = ['../../client/dist/.vite/manifest.json', '../../detector/dist/lms-exb-detector.js'].map((bundle) =>
  fileURLToPath(new URL(bundle, import.meta.url)),
);

const COURSE = '101';
const QUIZ_ID = 201;
const CONTENT_ID = `classicquiz_${QUIZ_ID}`;
const EXIT_PASSWORD = 'leave-the-exam-browser';

/** What the LMS's frame keeps of the service's cookies (`newBrowser`). */
type FrameCookies = 'partitioned' | 'none';

/**
 * The three roles' walks in Chromium with third-party cookies blocked (`--test-third-party-cookie-phaseout`), the tool
 * on `http://localhost` framed by the development LMS on `https://localhost` (another site). Chromium then stores no
 * cookie a cross-site frame sets unless it is `Partitioned`; the first test shows that. Browsers that refuse even
 * partitioned cookies in frames (Safari) keep no login transaction cookie at all: the walks model that by dropping
 * the transaction cookie from the login's answer inside the LMS's frame, so every launch proves its browser through
 * the LMS's platform storage (the development LMS's `post_message_forwarding` frame), as such a browser's must.
 */
describe.runIf(browserAvailable())('the tool in an LMS frame with third-party cookies blocked (Chromium)', { timeout: 120_000 }, () => {
  let dataDir: string;
  let dev: DevelopmentEnvironment;
  let browser: LaunchedBrowser;
  let trustedBefore: string[];
  let screenshots: ScreenshotFolder;
  const contexts: BrowserContext[] = [];
  const problems: string[] = [];

  /** A development LMS and service on a database of their own: each walk's people start unauthorized. */
  interface Environment {
    dev: DevelopmentEnvironment;
    dataDir: string;
    close(): Promise<void>;
  }
  let certificate: ReturnType<typeof localhostTlsCertificate>;
  let first: Environment;

  async function startEnvironment(): Promise<Environment> {
    const database = await createTestDatabase();
    const dir = mkdtempSync(path.join(tmpdir(), 'exb-third-party-cookies-e2e-'));
    const db: Database = await openDatabase({ databaseUrl: database.url, dataDir: dir, logger: createLogger('silent'), poolSize: 1 });
    await db.migrate();
    const [port, lmsPort] = [await freePort(), await freePort()];
    const env = await startDevelopment(
      {
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        HOST: '127.0.0.1',
        PORT: String(port),
        LMS_PORT: String(lmsPort),
        DATABASE_URL: database.url,
        DATA_DIR: dir,
      },
      { lmsTls: certificate },
    );
    return {
      dev: env,
      dataDir: dir,
      async close() {
        await env.close();
        await db.close();
        await database.drop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  function use(environment: Environment): void {
    dev = environment.dev;
    dataDir = environment.dataDir;
  }

  beforeAll(async () => {
    for (const bundle of BUNDLES) if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`npm run build\``);
    certificate = localhostTlsCertificate();
    trustedBefore = tls.getCACertificates('default');
    tls.setDefaultCACertificates([...trustedBefore, certificate.cert]);
    screenshots = screenshotFolder('THIRD_PARTY_COOKIES_SCREENSHOTS', 'third-party-cookies');
    first = await startEnvironment();
    use(first);
    // A response the test hands the browser (the login's, without its cookie) has no server address, so Chromium's
    // local network access checks would count it as a public page and refuse its navigation to the LMS on localhost.
    browser = await launchBrowser({ extraArgs: [...BLOCK_THIRD_PARTY_COOKIES_ARGS, '--disable-features=LocalNetworkAccessChecks'] });
  });
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await first?.close();
    if (trustedBefore) tls.setDefaultCACertificates(trustedBefore);
    screenshots?.remove();
  });

  /** Request headers the test's own client cannot or must not send on: the connection's, and the cookies. */
  const NOT_FORWARDED = new Set(['cookie', 'host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'content-length', 'expect', 'te', 'trailer']);

  /**
   * A request of the LMS's frame to the service, fetched outside the browser and answered to it without cookies either
   * way: the frame keeps no cookie of the service, as in a browser that refuses every cookie in a cross-site frame.
   * Requests of top-level pages (the popup, the exam browser) go through the browser as they are.
   */
  async function withoutFrameCookies(route: Route): Promise<void> {
    const request = route.request();
    if (request.frame().parentFrame() === null) return route.continue();
    const headers = Object.fromEntries(
      Object.entries(await request.allHeaders()).filter(([name]) => !name.startsWith(':') && !NOT_FORWARDED.has(name)),
    );
    const body = request.postDataBuffer();
    // The service listens on 127.0.0.1; Node may resolve `localhost` to ::1 first.
    const url = new URL(request.url());
    url.hostname = '127.0.0.1';
    const answer = await fetch(url, { method: request.method(), headers, redirect: 'manual', ...(body ? { body } : {}) });
    const dropped = new Set(['set-cookie', 'content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive']);
    const kept = [...answer.headers].filter(([name]) => !dropped.has(name));
    await route.fulfill({ status: answer.status, headers: Object.fromEntries(kept), body: Buffer.from(await answer.arrayBuffer()) });
  }

  /**
   * One person's browser, with every launch the LMS frame posts recorded. `partitioned`: the frame keeps what Chromium
   * keeps with third-party cookies blocked (partitioned cookies), except the login's transaction cookie; `none`: the
   * frame keeps no cookie at all.
   */
  async function newBrowser(options: { userAgent?: string; frameCookies?: FrameCookies } = {}) {
    const { frameCookies = 'partitioned', ...contextOptions } = options;
    const context = await browser.browser.newContext({ ignoreHTTPSErrors: true, ...contextOptions });
    contexts.push(context);
    await context.route(frameCookies === 'none' ? `${dev.serviceUrl}/**` : `${dev.serviceUrl}/lti/login`, withoutFrameCookies);
    const page = await context.newPage();
    watchServiceProblems(page, dev.serviceUrl, problems, (url, status) => status === 403 && url.startsWith(`${dev.serviceUrl}/api/exb/config-grant/`));
    const launches: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url() === `${dev.serviceUrl}/lti/launch`) launches.push(request.postData() ?? '');
    });
    return { context, page, launches };
  }

  async function shoot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: path.join(screenshots.path, `${name}.png`), fullPage: true });
  }

  /**
   * The launch went through the platform storage: the LMS posted it, the launch page posted it again with the values;
   * the frame kept no transaction cookie (and, without frame cookies, no session cookie either).
   */
  async function expectStoragePath(launches: string[], context: BrowserContext, frameCookies: FrameCookies) {
    expect(launches).toHaveLength(2);
    const second = new URLSearchParams(launches[1]);
    expect(second.get('lti_storage_state')).toMatch(/^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}\.[0-9a-z]+$/);
    expect(second.get('lti_storage_nonce')).toMatch(/^[0-9a-f-]{36}$/);
    // Cookies are kept per host, not per port: the LMS's own on `localhost` are left out.
    const names = (await context.cookies(dev.serviceUrl)).map((cookie) => cookie.name).filter((name) => name.startsWith('exb_'));
    expect(names.filter((name) => name.startsWith('exb_lti_tx_'))).toEqual([]);
    if (frameCookies === 'none') expect(names).toEqual([]);
    else expect(names).toContain('exb_session');
  }

  /** A JSON request of the tool frame as its page makes one: same origin, with the page's session token. */
  function callWithToken(frame: Frame, method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, extraHeaders: Record<string, string> = {}) {
    return frame.evaluate(
      async ({ method, url, body, extraHeaders }) => {
        const { sessionToken } = JSON.parse(document.getElementById('exb-bootstrap')!.textContent!) as { sessionToken: string };
        const response = await fetch(url, {
          method,
          credentials: 'same-origin',
          headers: { accept: 'application/json', 'x-exb-session-token': sessionToken, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...extraHeaders },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      },
      { method, url, body, extraHeaders },
    );
  }

  async function launch(page: Page, button: string): Promise<Frame> {
    return launchIntoToolFrame(page, dev.launchPageUrl, button, dev.serviceUrl);
  }

  it('blocks a cookie a cross-site frame sets, unless it is partitioned', async () => {
    const { context, page } = await newBrowser();
    // A server of its own answers the probe, so that Chromium's network stack, not the test, handles its cookies.
    const probe = http.createServer((request, response) => {
      const cookie = new URL(request.url ?? '/', 'http://probe').searchParams.get('cookie') ?? '';
      response.writeHead(200, { 'content-type': 'text/html', 'set-cookie': cookie }).end('<p>probe</p>');
    });
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const probeUrl = `http://localhost:${(probe.address() as AddressInfo).port}`;
    onTestFinished(() => {
      probe.closeAllConnections();
      probe.close();
    });
    await page.goto(`${dev.lmsUrl}/`);
    for (const cookie of ['plain=1; SameSite=None; Secure; Path=/', 'chips=1; SameSite=None; Secure; Path=/; Partitioned']) {
      await page.evaluate(async (src) => {
        const frame = document.createElement('iframe');
        frame.src = src;
        await new Promise((resolve) => {
          frame.onload = resolve;
          document.body.append(frame);
        });
      }, `${probeUrl}/cookie-probe?${new URLSearchParams({ cookie })}`);
    }
    const names = (await context.cookies(probeUrl)).map((cookie) => cookie.name);
    expect(names).toContain('chips');
    expect(names).not.toContain('plain');
  });

  describe.each([
    ['partitioned cookies kept, no login cookie', 'partitioned', 'a'],
    ['no cookie kept in the frame', 'none', 'b'],
  ] as const)('%s', (_label, frameCookies, prefix) => {
    let own: Environment;
    beforeAll(async () => {
      own = await startEnvironment();
      use(own);
    });
    afterAll(async () => {
      // Pages still open would keep asking the closed service and report refused connections.
      for (const context of contexts.splice(0)) await context.close().catch(() => undefined);
      use(first);
      await own?.close();
    });

    it('an instructor launches, authorizes the LMS in the popup and enables the exam browser for a quiz', async () => {
      const { context, page, launches } = await newBrowser({ frameCookies });
      const frame = await launch(page, 'Launch as instructor');
      await waitForView(frame, 'teacher');
      await expectStoragePath(launches, context, frameCookies);
      const connect = frame.getByRole('button', { name: 'Authorize the tool in the LMS' });
      await connect.waitFor({ timeout: PAGE_TIMEOUT_MS });
      await shoot(page, `${prefix}1-instructor-launched`);

      const [popup] = await Promise.all([page.waitForEvent('popup'), connect.click()]);
      await approveLmsAuthorization(popup, dev.lmsUrl, dev.serviceUrl);
      await waitForView(popup, 'lms-oauth-connected');
      // The tool page opens itself again once the popup reports back (with its token, where it keeps no cookie).
      await frame.getByRole('button', { name: 'Refresh from LMS' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
      if (!popup.isClosed()) await popup.close();
      expect((await callWithToken(frame, 'GET', '/api/oauth2status')).body).toEqual({ authorized: true });

      expect((await callWithToken(frame, 'POST', `/api/quizzes/course/${COURSE}/refresh`, {})).status).toBe(200);
      expect((await callWithToken(frame, 'PUT', `/api/quizzes/course/${COURSE}/defaults`, { quitPassword: EXIT_PASSWORD })).status).toBe(200);
      const enabled = await callWithToken(frame, 'POST', `/api/quizzes/${COURSE}/${QUIZ_ID}/exb/enable`, {});
      expect(enabled).toMatchObject({ status: 200, body: { success: true, setting: { exbRequired: true, enabled: true } } });
      const again = await launch(page, 'Launch as instructor');
      await waitForView(again, 'teacher');
      await again.getByText('Exam browser required').first().waitFor({ timeout: PAGE_TIMEOUT_MS });
      await shoot(page, `${prefix}3-instructor-enforced`);
    });

    it('a student launches, downloads the configuration and opens it in the simulated exam browser', async () => {
      const { context, page, launches } = await newBrowser({ frameCookies });
      const frame = await launch(page, 'Launch as student 1');
      await waitForView(frame, 'student');
      await expectStoragePath(launches, context, frameCookies);
      const download = frame.getByRole('button', { name: /^Download configuration for / });
      await download.first().waitFor({ timeout: PAGE_TIMEOUT_MS });
      await shoot(page, `${prefix}4-student-launched`);

      await download.click();
      const connect = frame.getByRole('button', { name: 'Connect your LMS account' });
      await connect.waitFor({ timeout: PAGE_TIMEOUT_MS });
      const [popup] = await Promise.all([page.waitForEvent('popup'), connect.click()]);
      await approveLmsAuthorization(popup, dev.lmsUrl, dev.serviceUrl);
      await waitForView(popup, 'student-session-connected');

      const handoff = await waitForView(frame, 'exb-launch-handoff');
      await shoot(page, `${prefix}5-student-handoff`);
      const secrets = path.join(dataDir, 'secrets');
      const opened = openConfiguration((await downloadConfiguration(handoff.exbLaunchUrl as string)).bytes, {
        certificatePem: readFileSync(path.join(secrets, DEVELOPMENT_CERTIFICATE_FILE), 'utf8'),
        privateKeyPem: readFileSync(path.join(secrets, DEVELOPMENT_CERTIFICATE_KEY_FILE), 'utf8'),
      });
      expect(opened.startUrl).toMatch(new RegExp(`^${dev.serviceUrl}/exb/session-start/${COURSE}/${CONTENT_ID}\\?key=`));

      const examBrowser = SimulatedExamBrowser.fromConfiguration(opened);
      const exam = await newBrowser({ userAgent: SIMULATOR_USER_AGENT });
      await exam.context.addInitScript(examBrowser.initScript());
      await exam.page.goto(opened.startUrl!);
      const redeemed = exam.page.waitForResponse((response) => response.url() === `${dev.serviceUrl}/api/exb/access-code/${COURSE}/${CONTENT_ID}`);
      await exam.page.locator('#take_quiz_link').click();
      expect((await redeemed).status()).toBe(200);
      await exam.page.locator('#submit_quiz_form').waitFor({ timeout: PAGE_TIMEOUT_MS });
      await shoot(exam.page, `${prefix}6-student-exam-browser-quiz`);
    });

    it('an administrator launches, authorizes, sees the dashboard and connects a course', async () => {
      const { context, page, launches } = await newBrowser({ frameCookies });
      const frame = await launch(page, 'Launch as administrator');
      await waitForView(frame, 'admin');
      await expectStoragePath(launches, context, frameCookies);
      const authorize = frame.getByRole('button', { name: 'Authorize administrator access in the LMS' });
      await authorize.waitFor({ timeout: PAGE_TIMEOUT_MS });
      await shoot(page, `${prefix}7-admin-launched`);
      const [popup] = await Promise.all([page.waitForEvent('popup'), authorize.click()]);
      await approveLmsAuthorization(popup, dev.lmsUrl, dev.serviceUrl);
      await popup.getByRole('heading', { name: 'Connected to the LMS' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
      if (!popup.isClosed()) await popup.close();
      await frame.getByRole('tab', { name: 'Connected courses' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
      const actionToken = await frame.evaluate(() => (JSON.parse(document.getElementById('exb-bootstrap')!.textContent!) as { actionToken: string }).actionToken);
      const connected = await callWithToken(frame, 'POST', '/api/admin/courses/connect', { courseIds: [COURSE] }, { 'x-exb-action-token': actionToken });
      expect(connected.status).toBe(200);
      await shoot(page, `${prefix}8-admin-dashboard`);

      // The audit trail's export is a download link: it opens without a header (and, here, without a cookie).
      await frame.getByRole('tab', { name: 'Audit trail' }).click();
      const csvLink = frame.getByRole('link', { name: /^Download as CSV/ });
      await csvLink.waitFor({ timeout: PAGE_TIMEOUT_MS });
      const csv = await frame.evaluate(async (href) => {
        const response = await fetch(href, { credentials: 'same-origin' });
        return { status: response.status, type: response.headers.get('content-type') ?? '' };
      }, (await csvLink.getAttribute('href'))!);
      expect(csv.status).toBe(200);
      expect(csv.type).toMatch(/^text\/csv/);
    });
  });

  it('shows the storage pages in English and German, at 360 px too, without serious accessibility violations', async () => {
    for (const locale of ['en', 'de'] as const) {
      const context = await browser.browser.newContext({ ignoreHTTPSErrors: true, locale, viewport: { width: 360, height: 640 } });
      contexts.push(context);
      // Without their script the pages stay as they are, to be looked at; with it they are gone within a moment.
      await context.route(`${dev.serviceUrl}/lti/platform-storage.js`, (route) => route.abort());
      const page = await context.newPage();
      const built = dev.lms.platform.buildLaunch({ person: 'instructor', placement: 'course_navigation', courseId: 101 });
      await page.goto(`${dev.serviceUrl}/lti/login?${new URLSearchParams(built.loginParams)}`);
      const heading = locale === 'en' ? 'Opening the tool' : 'Das Tool wird geöffnet';
      await page.getByRole('heading', { name: heading }).waitFor({ timeout: PAGE_TIMEOUT_MS });
      expect(await seriousViolations(page)).toEqual([]);
      await shoot(page, `9-storage-login-page-${locale}-360`);

      // The launch that comes back without the cookie gets the page that reads the storage.
      const config = JSON.parse((await page.locator('#exb-platform-storage').textContent())!) as { next: string };
      const authorized = await fetch(config.next, { headers: { cookie: dev.lms.webSessionCookie('instructor') } });
      const fields: Record<string, string> = Object.fromEntries(
        [...(await authorized.text()).matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]),
      );
      expect(fields).toHaveProperty('id_token');
      await context.clearCookies();
      await page.evaluate(
        ({ action, fields }) => {
          const form = document.createElement('form');
          form.method = 'post';
          form.action = action;
          for (const [name, value] of Object.entries(fields)) form.append(Object.assign(document.createElement('input'), { type: 'hidden', name, value }));
          document.body.append(form);
          form.submit();
        },
        { action: `${dev.serviceUrl}/lti/launch`, fields },
      );
      await page.locator('#exb-launch-form').waitFor({ state: 'attached', timeout: PAGE_TIMEOUT_MS });
      await page.getByRole('heading', { name: heading }).waitFor({ timeout: PAGE_TIMEOUT_MS });
      expect(await seriousViolations(page)).toEqual([]);
      await shoot(page, `10-storage-launch-page-${locale}-360`);
    }
  });

  it('shows the pages without script errors, refused requests or content-security-policy violations', () => {
    expect(problems).toEqual([]);
  });
});
