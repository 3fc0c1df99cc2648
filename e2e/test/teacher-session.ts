import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Frame, Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { createSettingsRepository, type SettingsRepository } from '../../server/src/domain/settings/settings-repository.js';
import { freePort } from '../../server/src/free-port.js';
import { createTestApp, type TestApp } from '../../server/test/support/app.js';
import { createMockLms, type MockLms, type RunningLmsServer } from '../src/lms/index.js';
import { launchBrowser, type LaunchedBrowser } from '../src/support/browser.js';
import { screenshotFolder, type ScreenshotFolder } from './screenshot-folder.js';
import { approveLmsAuthorization, launchIntoToolFrame, PAGE_TIMEOUT_MS, watchServiceProblems } from '../src/support/tool-frame.js';

const CLIENT_MANIFEST = fileURLToPath(new URL('../../client/dist/.vite/manifest.json', import.meta.url));
const CLIENT_ID = '10000000000001';
const DEPLOYMENT_ID = '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb';
const ISSUER = 'https://canvas.instructure.com';
const OAUTH_CLIENT_ID = '10000000000002';
const OAUTH_CLIENT_SECRET = 'teacher-session-secret';

export interface TeacherSessionOptions {
  /** The environment variable naming the screenshot folder; a temporary folder, removed on close, without it. */
  readonly screenshotsVariable: string;
  /** Error answers of the service a test provokes on purpose; any other counts as a problem. */
  readonly provokedRefusal?: (url: string, status: number) => boolean;
  /** Further configuration of the service. */
  readonly env?: Record<string, string>;
  /** The instructor's LMS locale, which the launch carries as `launch_presentation.locale`; the seed's 'en' without it. */
  readonly locale?: string;
}

/** The words of the tool that {@link TeacherSession.connect} acts on, in the page's language. */
export interface ConnectWords {
  readonly authorize: string;
  readonly refresh: string;
  /** The LMS status beside the course's name once connected. */
  readonly connected: RegExp;
  /**
   * The heading of the popup's completion page, waited for before the popup is closed; without it, the tool frame
   * showing the refresh button (which it does once the popup told it) is waited for instead.
   */
  readonly popupHeading?: string;
}

/** The words of the tool's question before unsaved changes are left behind. */
export interface LeaveWords {
  readonly title: string;
  /** The start of what the question says is lost. */
  readonly text: string;
  readonly stay: string;
}

export const ENGLISH_WORDS: ConnectWords = {
  authorize: 'Authorize the tool in the LMS',
  refresh: 'Refresh from LMS',
  connected: /^LMS:\s*Connected$/,
  popupHeading: 'Connected to the LMS',
};

/**
 * The teacher view of the development LMS's course 101 in headless Chromium: the service on its own database, the
 * development LMS as an HTTP server, an instructor launched into the LMS's tool frame. {@link connect} approves the
 * LMS authorization in its popup and reads the assessments, as a new instructor does first.
 */
export class TeacherSession {
  readonly problems: string[] = [];
  tool!: Frame;

  private constructor(
    readonly app: TestApp,
    readonly lms: MockLms,
    private readonly lmsServer: RunningLmsServer,
    private readonly browser: LaunchedBrowser,
    readonly context: BrowserContext,
    readonly page: Page,
    readonly settings: SettingsRepository,
    private readonly folder: ScreenshotFolder,
  ) {}

  static async start(options: TeacherSessionOptions): Promise<TeacherSession> {
    if (!existsSync(CLIENT_MANIFEST)) throw new Error('the client bundle is missing: run `npm run build -w client`');
    const lmsUrl = `http://127.0.0.1:${await freePort()}`;
    const app = await createTestApp({
      listen: true,
      env: {
        LMS_URL: lmsUrl,
        LTI_ISSUER: ISSUER,
        LTI_CLIENT_ID: CLIENT_ID,
        LTI_DEPLOYMENT_ID: DEPLOYMENT_ID,
        LMS_OAUTH_CLIENT_ID: OAUTH_CLIENT_ID,
        LMS_OAUTH_CLIENT_SECRET: OAUTH_CLIENT_SECRET,
        ...options.env,
      },
    });
    const lms = createMockLms({
      baseUrl: lmsUrl,
      issuer: ISSUER,
      tool: {
        baseUrl: app.url!,
        clientId: CLIENT_ID,
        deploymentId: DEPLOYMENT_ID,
        oauthClientId: OAUTH_CLIENT_ID,
        oauthClientSecret: OAUTH_CLIENT_SECRET,
      },
    });
    // The seed's instructor (user 2), speaking the language this session asks for; other sessions keep the seed.
    if (options.locale !== undefined) lms.state.users.get(2)!.locale = options.locale;
    const lmsServer = await lms.startHttpServer();
    const browser = await launchBrowser();
    const context = await browser.browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    const shots = screenshotFolder(options.screenshotsVariable, 'teacher');
    const session = new TeacherSession(
      app,
      lms,
      lmsServer,
      browser,
      context,
      page,
      createSettingsRepository(app.db, app.config.secrets.appSecret),
      shots,
    );
    watchServiceProblems(page, app.url!, session.problems, options.provokedRefusal);
    return session;
  }

  /** Launches as the instructor, authorizes the tool in the LMS popup and reads the course's assessments. */
  async connect(words: ConnectWords = ENGLISH_WORDS): Promise<void> {
    await this.launch();
    await this.authorize(words);
    await this.tool.getByRole('button', { name: words.refresh }).click();
    await this.visible(this.tool.getByRole('rowheader', { name: 'Midterm exam' }));
  }

  /** Opens the tool from the LMS as the instructor. */
  async launch(): Promise<void> {
    this.tool = await launchIntoToolFrame(this.page, this.lms.launchPageUrl, 'Launch as instructor', this.app.url!);
  }

  /** Approves the tool's LMS authorization in its popup, and waits until the tool frame shows the connection. */
  async authorize(words: ConnectWords = ENGLISH_WORDS): Promise<void> {
    const [popup] = await Promise.all([
      this.page.waitForEvent('popup'),
      this.tool.getByRole('button', { name: words.authorize }).click({ timeout: PAGE_TIMEOUT_MS }),
    ]);
    await approveLmsAuthorization(popup, this.lms.baseUrl, this.app.url!);
    const refresh = this.tool.getByRole('button', { name: words.refresh });
    // The popup's page tells the tool frame that the connection is made; closing it earlier would cut that short.
    if (words.popupHeading !== undefined) await this.visible(popup.getByRole('heading', { name: words.popupHeading }));
    else await refresh.waitFor({ state: 'visible', timeout: PAGE_TIMEOUT_MS });
    await popup.close();
    await refresh.waitFor({ state: 'visible', timeout: PAGE_TIMEOUT_MS });
    await this.visible(this.tool.getByText(words.connected), PAGE_TIMEOUT_MS);
  }

  /**
   * Presses `control` while the form holds unsaved changes: the tool asks first, saying what would be lost, with the
   * focus on staying (the safe answer). `whileAsked` looks at the question; then the teacher stays.
   */
  async stayOnLeaveQuestion(control: Locator, words: LeaveWords, whileAsked: () => Promise<void>): Promise<void> {
    await control.click();
    const dialog = this.tool.getByRole('dialog', { name: words.title });
    await this.visible(dialog);
    await this.visible(dialog.getByText(words.text, { exact: false }));
    const stay = dialog.getByRole('button', { name: words.stay });
    await expect.poll(() => stay.evaluate((element) => element === document.activeElement)).toBe(true);
    await whileAsked();
    await stay.click();
    await expect.poll(() => dialog.count()).toBe(0);
  }

  async visible(locator: Locator, timeout = 10_000): Promise<void> {
    await locator.first().waitFor({ state: 'visible', timeout });
  }

  /** The folder this session's screenshots go to. */
  get shots(): string {
    return this.folder.path;
  }

  /** The whole tool as the LMS shows it: the frame is stretched to its content so nothing is cut off. */
  async screenshot(name: string): Promise<void> {
    const height = await this.tool.evaluate(() => document.documentElement.scrollHeight);
    await this.page.evaluate((h) => {
      const frame = document.querySelector<HTMLIFrameElement>('iframe#tool_content');
      if (frame) frame.style.height = `${h + 4}px`;
    }, height);
    await this.page.screenshot({ path: path.join(this.folder.path, `${name}.png`), fullPage: true });
    await this.page.evaluate(() => {
      const frame = document.querySelector<HTMLIFrameElement>('iframe#tool_content');
      if (frame) frame.style.height = '';
    });
  }

  /** One element of the tool, for a close look at a field and its message. */
  async screenshotOf(locator: Locator, name: string): Promise<void> {
    await locator.screenshot({ path: path.join(this.folder.path, `${name}.png`) });
  }

  async close(): Promise<void> {
    await this.context.close();
    await this.browser.close();
    await this.lmsServer.close();
    await this.app.close();
    this.folder.remove();
  }
}
