import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POPUP_TICKET_PARAM, POPUP_TICKET_PATH } from '@exb/shared/oauth-popup-ticket.js';
import { DEVELOPMENT_CERTIFICATE_FILE, DEVELOPMENT_CERTIFICATE_KEY_FILE } from '../../server/src/config/dev-secrets.js';
import { isGeneratedAccessCode } from '../../server/src/domain/enforcement/code-generator.js';
import { freePort } from '../../server/src/free-port.js';
import { createTestApp, type TestApp } from '../../server/test/support/app.js';
import {
  ConfigurationDownloadError,
  downloadConfiguration,
  openConfiguration,
  SIMULATOR_USER_AGENT,
  SimulatedExamBrowser,
  type OpenedConfiguration,
} from '../src/exb-simulator/index.js';
import { createMockLms, type MockLms, type RunningLmsServer } from '../src/lms/index.js';
import { browserAvailable, launchBrowser, type LaunchedBrowser } from '../src/support/browser.js';
import {
  approveLmsAuthorization,
  bootstrapOf,
  launchIntoToolFrame,
  PAGE_TIMEOUT_MS,
  waitForView,
  watchServiceProblems,
} from '../src/support/tool-frame.js';

const CLIENT_MANIFEST = fileURLToPath(new URL('../../client/dist/.vite/manifest.json', import.meta.url));
const DETECTOR_BUNDLE = fileURLToPath(new URL('../../detector/dist/lms-exb-detector.js', import.meta.url));

const CLIENT_ID = '10000000000001';
const DEPLOYMENT_ID = '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb';
const ISSUER = 'https://canvas.instructure.com';
const OAUTH_CLIENT_ID = '10000000000002';
const OAUTH_CLIENT_SECRET = 'student-flow-oauth-client-secret';

const COURSE = '101';
const QUIZ_ID = 201;
const CONTENT_ID = `classicquiz_${QUIZ_ID}`;
const QUIZ_TITLE = 'Midterm exam';
const EXIT_PASSWORD = 'leave-the-exam-browser';

const DOWNLOAD_BUTTON = `Download configuration for ${QUIZ_TITLE}`;
const READINESS_HEADING = 'Let the exam browser sign you in';

/** Set `E2E_SCREENSHOT_DIR` to keep screenshots of the student pages for a look. */
const SCREENSHOT_DIR = process.env.E2E_SCREENSHOT_DIR;

describe.runIf(browserAvailable())('student exam-browser flow from the development LMS in Chromium', () => {
  let t: TestApp;
  let lms: MockLms;
  let lmsServer: RunningLmsServer;
  let browser: LaunchedBrowser;
  let identity: { certificatePem: string; privateKeyPem: string };
  const problems: string[] = [];
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    for (const bundle of [CLIENT_MANIFEST, DETECTOR_BUNDLE]) {
      if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`npm run build\``);
    }
    const lmsUrl = `http://127.0.0.1:${await freePort()}`;
    t = await createTestApp({
      listen: true,
      env: {
        LMS_URL: lmsUrl,
        LTI_ISSUER: ISSUER,
        LTI_CLIENT_ID: CLIENT_ID,
        LTI_DEPLOYMENT_ID: DEPLOYMENT_ID,
        LMS_OAUTH_CLIENT_ID: OAUTH_CLIENT_ID,
        LMS_OAUTH_CLIENT_SECRET: OAUTH_CLIENT_SECRET,
      },
    });
    lms = createMockLms({
      baseUrl: lmsUrl,
      issuer: ISSUER,
      tool: {
        baseUrl: t.url!,
        clientId: CLIENT_ID,
        deploymentId: DEPLOYMENT_ID,
        oauthClientId: OAUTH_CLIENT_ID,
        oauthClientSecret: OAUTH_CLIENT_SECRET,
        // The LMS theme loads the service's loader on every page, which adds the detector to enforced quiz pages.
        themeJavaScriptUrl: `${t.url}/js/lms-exb-theme-loader.js`,
      },
    });
    lmsServer = await lms.startHttpServer();
    browser = await launchBrowser();
    const secrets = path.join(t.dataDir, 'secrets');
    identity = {
      certificatePem: readFileSync(path.join(secrets, DEVELOPMENT_CERTIFICATE_FILE), 'utf8'),
      privateKeyPem: readFileSync(path.join(secrets, DEVELOPMENT_CERTIFICATE_KEY_FILE), 'utf8'),
    };
    if (SCREENSHOT_DIR) mkdirSync(SCREENSHOT_DIR, { recursive: true });
  });
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await lmsServer?.close();
    await t?.close();
  });

  /** A browser profile of its own (one person's browser), watched for problems on the service's pages. */
  async function newBrowser(options: Parameters<LaunchedBrowser['browser']['newContext']>[0] = {}) {
    const context = await browser.browser.newContext(options);
    contexts.push(context);
    const page = await context.newPage();
    // Refused downloads are part of the flow (a student who must connect first) and of the refusal test.
    watchServiceProblems(page, t.url!, problems, (url) => url.startsWith(`${t.url}/api/exb/config-grant/`));
    return { context, page };
  }

  /** The page as the person sees it, and, for the LMS frame, the tool's whole page (the frame may scroll). */
  async function screenshot(page: Page, name: string, frame?: Frame) {
    if (!SCREENSHOT_DIR) return;
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true, animations: 'disabled' });
    if (frame !== undefined && frame !== page.mainFrame()) {
      await frame.locator('main').screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-tool.png`), animations: 'disabled' });
    }
  }

  /** Text the tool's page shows; alerts are also copied to a hidden live region, which does not count. */
  const shown = (frame: Frame, text: string) => frame.locator('#root').getByText(text);

  /** JSON from a same-origin request in the tool frame, carrying the frame's session as the tool's own pages do. */
  function callInFrame(frame: Frame, method: 'POST' | 'PUT', url: string, body: unknown = {}) {
    return frame.evaluate(
      async ({ method, url, body }) => {
        const response = await fetch(url, {
          method,
          credentials: 'same-origin',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      },
      { method, url, body },
    );
  }

  /** Reads the `exbs://` URL the handoff page hands to the operating system, both from its data and its link. */
  async function handoffLaunchUrl(frame: Frame, purpose: string): Promise<string> {
    const data = await waitForView(frame, 'exb-launch-handoff');
    expect(data).toMatchObject({ available: true, purpose, lmsReturnUrl: `${lms.baseUrl}/courses/${COURSE}` });
    const exbLaunchUrl = data.exbLaunchUrl as string;
    const service = new URL(t.url!);
    expect(exbLaunchUrl).toMatch(new RegExp(`^exb://${service.host}/exb/config/${COURSE}/${CONTENT_ID}\\.exb\\?grant=[A-Za-z0-9_-]{43}$`));
    expect(await frame.getByRole('link', { name: 'Open the exam browser' }).getAttribute('href')).toBe(exbLaunchUrl);
    return exbLaunchUrl;
  }

  /** What the exam browser does with the launch URL: download without cookies (HEAD, then GET), decrypt, key. */
  async function openInSimulator(exbLaunchUrl: string): Promise<OpenedConfiguration> {
    const download = await downloadConfiguration(exbLaunchUrl);
    expect(download.requests).toEqual([
      { method: 'HEAD', status: 200 },
      { method: 'GET', status: 200 },
    ]);
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename=quiz_${COURSE}_${CONTENT_ID}.exb`);
    return openConfiguration(download.bytes, identity);
  }

  it('an instructor enables the exam browser for a classic quiz through the instructor routes', async () => {
    const { page } = await newBrowser();
    const frame = await launchIntoToolFrame(page, lms.launchPageUrl, 'Launch as instructor', t.url!);
    await waitForView(frame, 'teacher');

    // The instructor's LMS authorization: the popup the teacher view opens, with the frame's session handed over.
    const popupOpened = page.waitForEvent('popup');
    const signal = frame.evaluate(
      ({ ticketPath, ticketParam }) =>
        new Promise<unknown>((resolve, reject) => {
          const popup = window.open('about:blank', 'exb-lms-authorization', 'popup,width=720,height=760');
          window.addEventListener('message', (event) => {
            if (event.origin === window.location.origin && event.source === popup) resolve(event.data);
          });
          fetch(ticketPath, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ start: 'oauth2authorize' }),
            credentials: 'same-origin',
          })
            .then((response) => response.json() as Promise<{ ticket: string }>)
            .then(({ ticket }) => popup!.location.replace(`/api/oauth2authorize?${ticketParam}=${ticket}`), reject);
        }),
      { ticketPath: POPUP_TICKET_PATH, ticketParam: POPUP_TICKET_PARAM },
    );
    const popup = await popupOpened;
    await approveLmsAuthorization(popup, lms.baseUrl, t.url!);
    expect(await signal).toMatchObject({ view: 'lms-oauth-connected' });
    await popup.close();

    expect((await callInFrame(frame, 'POST', `/api/quizzes/course/${COURSE}/refresh`)).status).toBe(200);
    const defaults = await callInFrame(frame, 'PUT', `/api/quizzes/course/${COURSE}/defaults`, { quitPassword: EXIT_PASSWORD });
    expect(defaults.status).toBe(200);
    const enabled = await callInFrame(frame, 'POST', `/api/quizzes/${COURSE}/${QUIZ_ID}/exb/enable`);
    expect(enabled).toMatchObject({ status: 200, body: { success: true, setting: { exbRequired: true, enabled: true, hasAccessCode: true } } });
    // The instructor's enabling set a fresh access code on the quiz in the LMS.
    expect(isGeneratedAccessCode(lms.state.quizzes.get(QUIZ_ID)!.accessCode)).toBe(true);
    const required = await fetch(`${t.url}/api/exb/requirement/${COURSE}/${CONTENT_ID}`);
    expect(await required.json()).toEqual({ success: true, exbRequired: true });
  });

  it('the student view lists the quiz, connects the LMS sign-in when the download needs it, and hands off once', async () => {
    const { page } = await newBrowser();
    const frame = await launchIntoToolFrame(page, lms.launchPageUrl, 'Launch as student 1', t.url!);
    const data = await waitForView(frame, 'student');
    expect(data).toMatchObject({
      courseId: COURSE,
      authorizeUrl: '/api/student-session-authorize',
      sessionReadiness: { dismissed: false },
      actionToken: expect.stringMatching(/^v1\.config-grant\./),
    });
    // Only the enforced quiz, with its download entry point.
    expect(data.assessments).toEqual([
      { contentId: CONTENT_ID, kind: 'classic', title: QUIZ_TITLE, configGrantUrl: `/api/exb/config-grant/${COURSE}/${CONTENT_ID}` },
    ]);

    const download = frame.getByRole('button', { name: DOWNLOAD_BUTTON });
    await download.waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await frame.getByRole('heading', { level: 3, name: QUIZ_TITLE }).count()).toBe(1);
    expect(await frame.getByRole('link', { name: 'Run the setup check' }).getAttribute('href')).toBe('/exb/check');
    // Offered before the exam, and dismissible.
    expect(await frame.getByRole('button', { name: 'Check the sign-in' }).count()).toBe(1);
    await screenshot(page, 'student-view-in-lms-frame', frame);

    // Sam has not connected an LMS account: the download asks for it, and the readiness step takes focus.
    await download.click();
    const connect = frame.getByRole('button', { name: 'Connect your LMS account' });
    await connect.waitFor({ timeout: PAGE_TIMEOUT_MS });
    await expect.poll(() => frame.evaluate(() => document.activeElement?.textContent)).toBe(READINESS_HEADING);
    expect(await shown(frame, `the download for “${QUIZ_TITLE}” continues`).count()).toBe(1);
    await screenshot(page, 'student-view-readiness-step', frame);

    // The popup connects the account; its completion signal lets the view check the sign-in and continue the download.
    const [popup] = await Promise.all([page.waitForEvent('popup'), connect.click()]);
    await approveLmsAuthorization(popup, lms.baseUrl, t.url!);
    expect(await waitForView(popup, 'student-session-connected')).toBeTruthy();

    const exbLaunchUrl = await handoffLaunchUrl(frame, 'student-list');
    expect(await frame.getByRole('link', { name: 'Back to the quiz list' }).count()).toBe(1);
    await screenshot(page, 'handoff-page-in-lms-frame', frame);
    // The handoff is consumed: the same page never serves the launch URL again.
    await frame.goto(frame.url());
    expect(await bootstrapOf(frame)).toMatchObject({ view: 'exb-launch-handoff', available: false });
    expect(await frame.content()).not.toContain(exbLaunchUrl);

    const opened = await openInSimulator(exbLaunchUrl);
    expect(opened.layers).toEqual(['gzip', 'pkhs', 'plnd', 'gzip']);
    // The configuration signs the exam browser in as Sam and returns to the quiz.
    expect(opened.startUrl).toMatch(new RegExp(`^${lms.baseUrl}/courses/${COURSE}/quizzes/${QUIZ_ID}\\?session_token=`));
    expect(opened.quitUrl).toMatch(new RegExp(`^${t.url}/exb/exit/complete/${COURSE}/${CONTENT_ID}/[A-Za-z0-9_-]{43}$`));
    // The grant was spent by the download.
    await expect(downloadConfiguration(exbLaunchUrl)).rejects.toBeInstanceOf(ConfigurationDownloadError);

    await takeQuizInExamBrowser(opened);
  });

  /**
   * The exam browser: the page API of the opened configuration in every frame, the start URL first. The LMS theme
   * loads the detector on the take page; it proves the Config Key, redeems the access code and submits the prompt.
   */
  async function takeQuizInExamBrowser(opened: OpenedConfiguration) {
    const examBrowser = SimulatedExamBrowser.fromConfiguration(opened);
    const { context, page } = await newBrowser({ userAgent: SIMULATOR_USER_AGENT });
    await context.addInitScript(examBrowser.initScript());

    await page.goto(opened.startUrl!);
    // The session URL signed the exam browser in and the LMS dropped the token from the address.
    expect(page.url()).toBe(`${lms.baseUrl}/courses/${COURSE}/quizzes/${QUIZ_ID}`);

    const proof = page.waitForResponse((response) => response.url() === `${t.url}/api/exb/access-proof/${COURSE}/${CONTENT_ID}`);
    // The detector submits the access code as soon as it has it, so the page is gone before a response event could be
    // read; the redemption is passed through and recorded on its way instead.
    type Redemption = { accessCode: string; exitGrant: string; exitGrantExpiresInSeconds: number };
    // Every page load of the take page proves and redeems anew (the prompt, then the questions after the code was
    // accepted), each time with a fresh exit grant; all are recorded.
    const redemptions: Redemption[] = [];
    await context.route(`${t.url}/api/exb/access-code/${COURSE}/${CONTENT_ID}`, async (route) => {
      const response = await route.fetch();
      if (route.request().method() === 'POST' && response.ok()) redemptions.push((await response.json()) as Redemption);
      await route.fulfill({ response });
    });
    await page.locator('#take_quiz_link').click();
    expect((await proof).status()).toBe(200);

    // The released code is the LMS's own, and the LMS accepted it: the quiz questions are shown.
    await page.locator('#submit_quiz_form').waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(page.url()).toContain(`/courses/${COURSE}/quizzes/${QUIZ_ID}/take`);
    const lmsCode = lms.state.quizzes.get(QUIZ_ID)!.accessCode;
    expect(redemptions.length).toBeGreaterThan(0);
    for (const released of redemptions) {
      expect(released.accessCode).toBe(lmsCode);
      expect(released.exitGrant).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(released.exitGrantExpiresInSeconds).toBe(43_200);
    }

    await page.locator('#submit_quiz_button').click();
    await page.locator('#quiz_submission_results').waitFor({ timeout: PAGE_TIMEOUT_MS });

    // Exit: on the LMS's result page the detector links to the exit page of a grant released to this exam browser
    // (the one kept by the last take page that finished loading); that page links to the bound quit route, which sends
    // the browser to the configuration's quit URL. Only that completion page tells the exam browser to quit.
    const exit = page.locator('[data-exb-panel]').getByRole('link', { name: 'Exit the exam browser' });
    await exit.waitFor({ timeout: PAGE_TIMEOUT_MS });
    const exitUrl = (await exit.getAttribute('href'))!;
    expect(redemptions.map((released) => `${t.url}/exb/exit/session/${COURSE}/${CONTENT_ID}/${released.exitGrant}`)).toContain(exitUrl);
    const exitPage = page.waitForResponse((response) => response.url() === exitUrl);
    await exit.click();
    expect((await exitPage).status()).toBe(200);
    expect(await waitForView(page, 'exb-exit-session')).toMatchObject({ courseId: COURSE, contentId: CONTENT_ID });
    const quit = page.waitForResponse((response) => response.url().startsWith(`${t.url}/exb/exit/quit/`));
    const complete = page.waitForResponse((response) => response.url().startsWith(`${t.url}/exb/exit/complete/`));
    await page.getByRole('link', { name: 'Leave the exam browser' }).click();
    const quitResponse = await quit;
    expect(quitResponse.status()).toBe(303);
    expect(quitResponse.headers()['x-exb-quit']).toBeUndefined();
    const completion = await complete;
    expect(completion.status()).toBe(200);
    expect(completion.url()).toBe(opened.quitUrl);
    expect(completion.headers()['x-exb-quit']).toBe('true');
    expect(completion.headers()['x-exb-exit']).toBe('submitted');
  }

  it('the exb-required view of an assessment link downloads through the handoff at once for a connected student', async () => {
    const { page } = await newBrowser();
    const frame = await launchIntoToolFrame(page, lms.launchPageUrl, `Open "${QUIZ_TITLE}" as student 1`, t.url!);
    const data = await waitForView(frame, 'exb-required');
    expect(data).toMatchObject({
      contentId: CONTENT_ID,
      assessmentKind: 'classic',
      configGrantUrl: `/api/exb/config-grant/${COURSE}/${CONTENT_ID}`,
      setupCheckUrl: '/exb/check',
    });
    const download = frame.getByRole('button', { name: 'Download the configuration' });
    await download.waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await frame.getByRole('heading', { level: 1 }).textContent()).toBe('This quiz requires the secure exam browser');
    expect(await frame.getByRole('link', { name: 'Check that the exam browser works' }).getAttribute('href')).toBe('/exb/check');
    expect(await frame.getByRole('link', { name: 'Back to the LMS' }).getAttribute('href')).toBe(`${lms.baseUrl}/courses/${COURSE}`);
    expect(await frame.getByRole('link', { name: 'Back to the LMS' }).getAttribute('target')).toBe('_top');
    await screenshot(page, 'exb-required-in-lms-frame', frame);

    await download.click();
    const exbLaunchUrl = await handoffLaunchUrl(frame, 'assessment');
    expect(await frame.getByRole('link', { name: 'Back to the course' }).count()).toBe(1);
    const opened = await openInSimulator(exbLaunchUrl);
    expect(opened.startUrl).toMatch(new RegExp(`^${lms.baseUrl}/courses/${COURSE}/quizzes/${QUIZ_ID}\\?session_token=`));
  });

  it('an ordinary browser on the LMS quiz page is sent to the required-browser page, which downloads too', async () => {
    const { page } = await newBrowser();
    // The course launch gives this browser its LMS login and its session with the tool.
    await launchIntoToolFrame(page, lms.launchPageUrl, 'Launch as student 1', t.url!);
    await page.goto(`${lms.baseUrl}/courses/${COURSE}/quizzes/${QUIZ_ID}/take`);
    // The detector, loaded by the LMS theme, confirms the requirement and links to the required-browser page.
    const link = page.locator('[data-exb-panel]').getByRole('link', { name: 'Get the exam browser configuration' });
    await link.waitFor({ timeout: PAGE_TIMEOUT_MS });
    await link.click();
    const data = await waitForView(page, 'exb-required');
    expect(page.url()).toContain(`${t.url}/exb/quiz/${COURSE}/${CONTENT_ID}?lms_url=`);
    expect(data).toMatchObject({ contentId: CONTENT_ID, lmsReturnUrl: `${lms.baseUrl}/courses/${COURSE}/quizzes/${QUIZ_ID}` });
    const download = page.getByRole('button', { name: 'Download the configuration' });
    await download.waitFor({ timeout: PAGE_TIMEOUT_MS });
    await screenshot(page, 'exb-required-plain-window');

    await download.click();
    const exbLaunchUrl = await handoffLaunchUrl(page.mainFrame(), 'assessment');
    expect((await openInSimulator(exbLaunchUrl)).startUrl).toContain(`/courses/${COURSE}/quizzes/${QUIZ_ID}?session_token=`);
  });

  it('the readiness prompt checks the sign-in and can be dismissed for good', async () => {
    // A phone-sized window: the page must work without the LMS frame and without horizontal scrolling.
    const { page } = await newBrowser({ viewport: { width: 375, height: 812 } });
    const frame = await launchIntoToolFrame(page, `${lms.launchPageUrl}?display=window`, 'Launch as student 1', t.url!);
    // Opened in the whole window rather than the LMS frame: the plain-browser layout.
    expect(frame).toBe(page.mainFrame());
    await waitForView(frame, 'student');
    await frame.getByRole('button', { name: 'Check the sign-in' }).click();
    await shown(frame, 'The exam browser can sign you in to the LMS. You are ready.').waitFor({ timeout: PAGE_TIMEOUT_MS });
    await screenshot(page, 'student-view-plain-window-ready');
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

    await frame.getByRole('button', { name: 'Don’t show this again' }).click();
    await expect.poll(() => frame.getByRole('heading', { name: READINESS_HEADING }).count()).toBe(0);
    await frame.goto(`${t.url}/lti/launch`);
    expect(await waitForView(frame, 'student')).toMatchObject({ sessionReadiness: { dismissed: true } });
    await frame.getByRole('button', { name: DOWNLOAD_BUTTON }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await frame.getByRole('heading', { name: READINESS_HEADING }).count()).toBe(0);
  });

  it('explains refused downloads: rate limit, no configuration, ended session', async () => {
    const { context, page } = await newBrowser();
    const frame = await launchIntoToolFrame(page, lms.launchPageUrl, 'Launch as student 1', t.url!);
    await waitForView(frame, 'student');
    const download = frame.getByRole('button', { name: DOWNLOAD_BUTTON });
    await download.waitFor({ timeout: PAGE_TIMEOUT_MS });

    const refusals: [number, Record<string, unknown>, string][] = [
      [429, { success: false, error_code: 'RATE_LIMITED', message: 'Too many configuration requests.' }, 'Too many downloads in a short time'],
      [404, { success: false, message: 'No exam browser configuration is available for this quiz.' }, 'No exam browser configuration is available'],
      [403, { success: false, error_code: 'LTI_PRINCIPAL_REQUIRED', message: 'x' }, 'Open the tool again from your course in the LMS'],
    ];
    for (const [status, body, text] of refusals) {
      await context.route(`${t.url}/api/exb/config-grant/**`, (route) => route.fulfill({ status, json: body }));
      await download.click();
      await shown(frame, text).waitFor({ timeout: PAGE_TIMEOUT_MS });
      await context.unroute(`${t.url}/api/exb/config-grant/**`);
    }
    await screenshot(page, 'student-view-download-refused', frame);
    // The page stays usable after a refusal.
    expect(await download.isEnabled()).toBe(true);
  });

  it('shows the pages without script errors or content-security-policy violations', () => {
    expect(problems).toEqual([]);
  });
});
