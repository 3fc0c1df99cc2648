import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { expect } from 'vitest';
import { POPUP_TICKET_PARAM, POPUP_TICKET_PATH } from '@exb/shared/oauth-popup-ticket.js';
import { DEVELOPMENT_CERTIFICATE_FILE, DEVELOPMENT_CERTIFICATE_KEY_FILE } from '../../server/src/config/dev-secrets.js';
import { isGeneratedAccessCode } from '../../server/src/domain/enforcement/code-generator.js';
import { freePort } from '../../server/src/free-port.js';
import { createTestApp, type TestApp } from '../../server/test/support/app.js';
import {
  downloadConfiguration,
  openConfiguration,
  SIMULATOR_USER_AGENT,
  SimulatedExamBrowser,
  type OpenedConfiguration,
} from '../src/exb-simulator/index.js';
import { createMockLms, type LmsSeed, type MockLms, type RunningLmsServer } from '../src/lms/index.js';
import { launchBrowser, type LaunchedBrowser } from '../src/support/browser.js';
import { approveLmsAuthorization, callInFrame, launchIntoToolFrame, PAGE_TIMEOUT_MS, waitForView, watchServiceProblems } from '../src/support/tool-frame.js';

const CLIENT_MANIFEST = fileURLToPath(new URL('../../client/dist/.vite/manifest.json', import.meta.url));
const DETECTOR_BUNDLE = fileURLToPath(new URL('../../detector/dist/lms-exb-detector.js', import.meta.url));

const CLIENT_ID = '10000000000001';
const DEPLOYMENT_ID = '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb';
const ISSUER = 'https://canvas.instructure.com';
const OAUTH_CLIENT_ID = '10000000000002';
/** The service's side of the LMS registration: the LTI key and the API key's client id. */
const REGISTRATION = { LTI_ISSUER: ISSUER, LTI_CLIENT_ID: CLIENT_ID, LTI_DEPLOYMENT_ID: DEPLOYMENT_ID, LMS_OAUTH_CLIENT_ID: OAUTH_CLIENT_ID };

/** The demo course and its classic quiz the student walks take. */
export const COURSE = '101';
export const QUIZ_ID = 201;
export const CONTENT_ID = `classicquiz_${QUIZ_ID}`;
export const QUIZ_TITLE = 'Midterm exam';
const EXIT_PASSWORD = 'leave-the-exam-browser';

/** What the exam browser's take page released: the LMS's access code and an exit grant, once per page load. */
export type Redemption = { accessCode: string; exitGrant: string; exitGrantExpiresInSeconds: number };

export interface StudentSessionOptions {
  readonly oauthClientSecret: string;
  /** The development LMS's people, courses and quizzes; its demo school without it. */
  readonly seed?: LmsSeed;
  /** The environment variable naming the screenshot folder; no screenshots without it. */
  readonly screenshotsVariable: string;
}

/**
 * The student flow's world in headless Chromium: the service on its own database, the development LMS as an HTTP
 * server whose theme loads the detector, and the service's configuration identity the exam-browser simulator decrypts
 * with. Each person gets a browser profile of their own ({@link newBrowser}), watched for problems on the service's
 * pages.
 */
export class StudentSession {
  readonly problems: string[] = [];
  private readonly contexts: BrowserContext[] = [];

  private constructor(
    readonly app: TestApp,
    readonly lms: MockLms,
    private readonly lmsServer: RunningLmsServer,
    readonly browser: LaunchedBrowser,
    readonly identity: { certificatePem: string; privateKeyPem: string },
    private readonly screenshots: string | undefined,
  ) {}

  static async start(options: StudentSessionOptions): Promise<StudentSession> {
    for (const bundle of [CLIENT_MANIFEST, DETECTOR_BUNDLE]) {
      if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`npm run build\``);
    }
    const lmsUrl = `http://127.0.0.1:${await freePort()}`;
    const app = await createTestApp({
      listen: true,
      env: { ...REGISTRATION, LMS_URL: lmsUrl, LMS_OAUTH_CLIENT_SECRET: options.oauthClientSecret },
    });
    const lms = createMockLms({
      baseUrl: lmsUrl,
      issuer: ISSUER,
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      tool: {
        baseUrl: app.url!,
        clientId: CLIENT_ID,
        deploymentId: DEPLOYMENT_ID,
        oauthClientId: OAUTH_CLIENT_ID,
        oauthClientSecret: options.oauthClientSecret,
        // The LMS theme loads the service's loader on every page, which adds the detector to enforced quiz pages.
        themeJavaScriptUrl: `${app.url}/js/lms-exb-theme-loader.js`,
      },
    });
    const lmsServer = await lms.startHttpServer();
    const browser = await launchBrowser();
    const secrets = path.join(app.dataDir, 'secrets');
    const identity = {
      certificatePem: readFileSync(path.join(secrets, DEVELOPMENT_CERTIFICATE_FILE), 'utf8'),
      privateKeyPem: readFileSync(path.join(secrets, DEVELOPMENT_CERTIFICATE_KEY_FILE), 'utf8'),
    };
    const screenshots = process.env[options.screenshotsVariable];
    if (screenshots) mkdirSync(screenshots, { recursive: true });
    return new StudentSession(app, lms, lmsServer, browser, identity, screenshots);
  }

  get serviceUrl(): string {
    return this.app.url!;
  }

  async close(): Promise<void> {
    for (const context of this.contexts) await context.close().catch(() => undefined);
    await this.browser.close();
    await this.lmsServer.close();
    await this.app.close();
  }

  /** A browser profile of its own (one person's browser), watched for problems on the service's pages. */
  async newBrowser(options: Parameters<LaunchedBrowser['browser']['newContext']>[0] = {}): Promise<{ context: BrowserContext; page: Page }> {
    const context = await this.browser.browser.newContext(options);
    this.contexts.push(context);
    const page = await context.newPage();
    // Refused downloads are part of the flow (a student who must connect first) and of the refusal tests.
    watchServiceProblems(page, this.serviceUrl, this.problems, (url) => url.startsWith(`${this.serviceUrl}/api/exb/config-grant/`));
    return { context, page };
  }

  /** The page as the person sees it, and, for the LMS frame, the tool's whole page (the frame may scroll). */
  async screenshot(page: Page, name: string, frame?: Frame): Promise<void> {
    if (!this.screenshots) return;
    await page.screenshot({ path: path.join(this.screenshots, `${name}.png`), fullPage: true, animations: 'disabled' });
    if (frame !== undefined && frame !== page.mainFrame()) {
      await frame.locator('main').screenshot({ path: path.join(this.screenshots, `${name}-tool.png`), animations: 'disabled' });
    }
  }

  /**
   * The instructor's part, through the instructor routes: the LMS authorization in the popup the teacher view opens
   * (with the frame's session handed over), then the course's exit password and the exam browser for the quiz.
   */
  async requireExamBrowserForQuiz(): Promise<void> {
    const { page } = await this.newBrowser();
    const frame = await launchIntoToolFrame(page, this.lms.launchPageUrl, 'Launch as instructor', this.serviceUrl);
    await waitForView(frame, 'teacher');

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
    await approveLmsAuthorization(popup, this.lms.baseUrl, this.serviceUrl);
    expect(await signal).toMatchObject({ view: 'lms-oauth-connected' });
    await popup.close();

    expect((await callInFrame(frame, 'POST', `/api/quizzes/course/${COURSE}/refresh`)).status).toBe(200);
    const defaults = await callInFrame(frame, 'PUT', `/api/quizzes/course/${COURSE}/defaults`, { quitPassword: EXIT_PASSWORD });
    expect(defaults.status).toBe(200);
    const enabled = await callInFrame(frame, 'POST', `/api/quizzes/${COURSE}/${QUIZ_ID}/exb/enable`);
    expect(enabled).toMatchObject({ status: 200, body: { success: true, setting: { exbRequired: true, enabled: true, hasAccessCode: true } } });
    // The instructor's enabling set a fresh access code on the quiz in the LMS.
    expect(isGeneratedAccessCode(this.lms.state.quizzes.get(QUIZ_ID)!.accessCode)).toBe(true);
    const required = await fetch(`${this.serviceUrl}/api/exb/requirement/${COURSE}/${CONTENT_ID}`);
    expect(await required.json()).toEqual({ success: true, exbRequired: true });
    await page.close();
  }

  /** Reads the `seb://` URL (plain http here) the handoff page hands to the operating system, from its data and its link. */
  async handoffLaunchUrl(frame: Frame, purpose: string): Promise<string> {
    const data = await waitForView(frame, 'exb-launch-handoff');
    expect(data).toMatchObject({ available: true, purpose, lmsReturnUrl: `${this.lms.baseUrl}/courses/${COURSE}` });
    const exbLaunchUrl = data.exbLaunchUrl as string;
    const service = new URL(this.serviceUrl);
    expect(exbLaunchUrl).toMatch(new RegExp(`^seb://${service.host}/exb/config/${COURSE}/${CONTENT_ID}\\.seb\\?grant=[A-Za-z0-9_-]{43}$`));
    expect(await frame.locator(`a[href="${exbLaunchUrl}"]`).count()).toBe(1);
    return exbLaunchUrl;
  }

  /** What the exam browser does with the launch URL: download without cookies (HEAD, then GET), decrypt, key. */
  async openInSimulator(exbLaunchUrl: string): Promise<OpenedConfiguration> {
    const download = await downloadConfiguration(exbLaunchUrl);
    expect(download.requests).toEqual([
      { method: 'HEAD', status: 200 },
      { method: 'GET', status: 200 },
    ]);
    // The file type Safe Exam Browser registers, so its own browser, too, would open this download as a configuration.
    expect(download.headers.get('content-type')).toBe('application/seb');
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename=quiz_${COURSE}_${CONTENT_ID}.seb`);
    return openConfiguration(download.bytes, this.identity);
  }

  /**
   * The exam browser opens the configuration's start URL with the page API of that configuration in every frame; on the
   * take page the detector the LMS theme loads proves the Config Key and redeems the access code, which the LMS accepts:
   * the quiz questions are shown. Returns the exam browser's page and every redemption its take pages received.
   */
  async proveAndRedeem(opened: OpenedConfiguration): Promise<{ context: BrowserContext; page: Page; redemptions: Redemption[] }> {
    const examBrowser = SimulatedExamBrowser.fromConfiguration(opened);
    const { context, page } = await this.newBrowser({ userAgent: SIMULATOR_USER_AGENT });
    await context.addInitScript(examBrowser.initScript());

    await page.goto(opened.startUrl!);
    // The session URL signed the exam browser in and the LMS dropped the token from the address.
    expect(page.url()).toBe(`${this.lms.baseUrl}/courses/${COURSE}/quizzes/${QUIZ_ID}`);

    const proof = page.waitForResponse((response) => response.url() === `${this.serviceUrl}/api/exb/access-proof/${COURSE}/${CONTENT_ID}`);
    // The detector submits the access code as soon as it has it, so the page is gone before a response event could be
    // read; the redemption is passed through and recorded on its way instead. Every page load of the take page proves
    // and redeems anew (the prompt, then the questions after the code was accepted), each time with a fresh exit grant.
    const redemptions: Redemption[] = [];
    await context.route(`${this.serviceUrl}/api/exb/access-code/${COURSE}/${CONTENT_ID}`, async (route) => {
      const response = await route.fetch();
      if (route.request().method() === 'POST' && response.ok()) redemptions.push((await response.json()) as Redemption);
      await route.fulfill({ response });
    });
    await page.locator('#take_quiz_link').click();
    expect((await proof).status()).toBe(200);

    // The released code is the LMS's own, and the LMS accepted it: the quiz questions are shown.
    await page.locator('#submit_quiz_form').waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(page.url()).toContain(`/courses/${COURSE}/quizzes/${QUIZ_ID}/take`);
    const lmsCode = this.lms.state.quizzes.get(QUIZ_ID)!.accessCode;
    expect(redemptions.length).toBeGreaterThan(0);
    for (const released of redemptions) {
      expect(released.accessCode).toBe(lmsCode);
      expect(released.exitGrant).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(released.exitGrantExpiresInSeconds).toBe(43_200);
    }
    return { context, page, redemptions };
  }
}
