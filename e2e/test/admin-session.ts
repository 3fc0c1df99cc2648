import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import type { BrowserContext, Frame, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { freePort } from '../../server/src/free-port.js';
import { createTestApp, type TestApp } from '../../server/test/support/app.js';
import { createMockLms, type LmsSeed, type MockLms, type RunningLmsServer } from '../src/lms/index.js';
import { launchBrowser, type LaunchedBrowser } from '../src/support/browser.js';
import { screenshotFolder, type ScreenshotFolder } from './screenshot-folder.js';
import { approveLmsAuthorization, launchIntoToolFrame, PAGE_TIMEOUT_MS, watchServiceProblems } from '../src/support/tool-frame.js';

const CLIENT_MANIFEST = fileURLToPath(new URL('../../client/dist/.vite/manifest.json', import.meta.url));

/** The tool as the development LMS has it registered: LTI client, deployment and the OAuth client of the LMS's API. */
const REGISTRATION = {
  issuer: 'https://canvas.instructure.com',
  clientId: '10000000000001',
  deploymentId: '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb',
  oauthClientId: '10000000000002',
} as const;

export interface AdminSessionOptions {
  /** Names the walk: its OAuth client secret and its screenshot folder's prefix. */
  readonly name: string;
  /** The environment variable naming the screenshot folder; a fresh temporary folder without it. */
  readonly screenshotsVariable: string;
  /** Error answers of the service the walk provokes on purpose; any other counts as a problem. */
  readonly provokedRefusal?: (url: string, status: number) => boolean;
  /** Further configuration of the service. */
  readonly env?: Record<string, string>;
  /** The development LMS's people, courses and quizzes; its demo school without it. */
  readonly seed?: LmsSeed;
  /** A controllable clock in the browser, so countdowns and renewals can be run out without waiting. */
  readonly clock?: boolean;
  /** Lets the page's transitions finish before each screenshot (an alert fading in, a dialog opening). */
  readonly settleBeforeScreenshots?: boolean;
}

/**
 * An administrator's walk through the dashboard in headless Chromium: the service on its own database, the development
 * LMS as an HTTP server, and the LMS page the tool's frame sits in. `useAdminSession` starts it before the walk's
 * first step and stops it after the last; a failed step leaves a screenshot of itself.
 */
export class AdminSession {
  readonly problems: string[] = [];
  app!: TestApp;
  lms!: MockLms;
  context!: BrowserContext;
  page!: Page;
  /** The tool's frame in the LMS page, once launched. */
  tool!: Frame;
  shots = '';
  private folder: ScreenshotFolder | undefined;
  private lmsServer: RunningLmsServer | undefined;
  private browser: LaunchedBrowser | undefined;

  constructor(private readonly options: AdminSessionOptions) {}

  async start(): Promise<void> {
    if (!existsSync(CLIENT_MANIFEST)) throw new Error('the client bundle is missing: run `npm run build -w client`');
    const secret = `${this.options.name}-secret`;
    const lmsUrl = `http://127.0.0.1:${await freePort()}`;
    const { issuer, clientId, deploymentId, oauthClientId } = REGISTRATION;
    this.app = await createTestApp({
      listen: true,
      env: {
        LMS_URL: lmsUrl,
        LTI_ISSUER: issuer,
        LTI_CLIENT_ID: clientId,
        LTI_DEPLOYMENT_ID: deploymentId,
        LMS_OAUTH_CLIENT_ID: oauthClientId,
        LMS_OAUTH_CLIENT_SECRET: secret,
        ...this.options.env,
      },
    });
    const tool = { baseUrl: this.app.url!, clientId, deploymentId, oauthClientId, oauthClientSecret: secret };
    this.lms = createMockLms({ baseUrl: lmsUrl, issuer, tool, ...(this.options.seed ? { seed: this.options.seed } : {}) });
    this.lmsServer = await this.lms.startHttpServer();
    this.browser = await launchBrowser();
    this.context = await this.browser.browser.newContext({ viewport: { width: 1100, height: 900 } });
    if (this.options.clock) await this.context.clock.install();
    this.page = await this.context.newPage();
    watchServiceProblems(this.page, this.app.url!, this.problems, this.options.provokedRefusal);
    this.folder = screenshotFolder(this.options.screenshotsVariable, this.options.name);
    this.shots = this.folder.path;
  }

  async stop(): Promise<void> {
    await this.context?.close();
    await this.browser?.close();
    await this.lmsServer?.close();
    await this.app?.close();
    this.folder?.remove();
  }

  /** Opens the LMS's launch page and launches with one of its buttons; the tool's frame is {@link tool}. */
  async launch(button = 'Launch as administrator'): Promise<Frame> {
    this.tool = await launchIntoToolFrame(this.page, this.lms.launchPageUrl, button, this.app.url!);
    return this.tool;
  }

  /**
   * Grants the administrator authorization: the tool's button opens the LMS's approval in a popup, which is approved;
   * `ready`, something of the tool's that shows once the popup told it, is awaited before the popup is closed.
   */
  async authorize(ready: Locator, button = this.tool.getByRole('button', { name: 'Authorize administrator access in the LMS' })): Promise<void> {
    await this.visible(button, PAGE_TIMEOUT_MS);
    const [popup] = await Promise.all([this.page.waitForEvent('popup'), button.click()]);
    await approveLmsAuthorization(popup, this.lms.baseUrl, this.app.url!);
    await this.visible(ready, PAGE_TIMEOUT_MS);
    if (!popup.isClosed()) await popup.close();
  }

  async visible(locator: Locator, timeout = 10_000): Promise<void> {
    await locator.first().waitFor({ state: 'visible', timeout });
  }

  /**
   * Waits until nothing `locator` matches is on screen (also when nothing matched to begin with). Playwright's own
   * wait, so a loaded machine only makes it take longer; a count polled for a second would fail there.
   */
  async gone(locator: Locator, timeout = PAGE_TIMEOUT_MS): Promise<void> {
    await locator.first().waitFor({ state: 'hidden', timeout });
  }

  /**
   * The LMS page with the tool's frame stretched to its content, so nothing is cut off; `stretch: false` keeps the
   * viewport as it is (a modal dialog as the administrator sees it).
   */
  async screenshot(name: string, { stretch = true }: { stretch?: boolean } = {}): Promise<void> {
    if (this.options.settleBeforeScreenshots) await this.settled();
    if (stretch) await this.setFrameHeight(await this.tool.evaluate(() => document.documentElement.scrollHeight + 4));
    await this.page.screenshot({ path: path.join(this.shots, `${name}.png`), fullPage: stretch });
    await this.setFrameHeight(null);
  }

  /** Serious and critical accessibility violations inside the tool's frame, one line each. */
  async accessibilityViolations(): Promise<string[]> {
    // A transition (an alert fading in, a table restacking after a resize) shows colours at part opacity for a moment:
    // ask again while the page settles; what stays is reported.
    let found = await this.violationsNow();
    for (let tries = 0; found.length > 0 && tries < 6; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      found = await this.violationsNow();
    }
    return found;
  }

  private async violationsNow(): Promise<string[]> {
    const results = await new AxeBuilder({ page: this.page }).analyze();
    const inTool = (node: { target: unknown[] }) => String(node.target[0]).includes('tool_content');
    // The check looked inside the tool's frame (a cross-origin frame axe must reach on its own).
    expect(results.passes.some((rule) => rule.nodes.some(inTool))).toBe(true);
    return results.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .flatMap((violation) => violation.nodes.filter(inTool).map((node) => `${violation.id}: ${node.target.join(' > ')}`));
  }

  /** Whether the tool's page fits its frame's width, with no scrolling sideways. */
  async fitsWidth(): Promise<boolean> {
    return this.tool.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
  }

  /** A query on the service's database. */
  sql<T = unknown>(query: string, params: unknown[] = []): Promise<T[]> {
    return this.app.db.orm.em.getConnection().execute<T[]>(query, params);
  }

  private async setFrameHeight(pixels: number | null): Promise<void> {
    await this.page.evaluate((height) => {
      const frame = document.querySelector<HTMLIFrameElement>('iframe#tool_content');
      if (frame) frame.style.height = height === null ? '' : `${height}px`;
    }, pixels);
  }

  /** Lets InstUI's transitions (an alert fading in) finish, so a screenshot shows the settled page. */
  private async settled(): Promise<void> {
    await this.tool.evaluate(() =>
      Promise.allSettled(
        document
          .getAnimations()
          .filter((animation) => animation.effect?.getComputedTiming().iterations !== Infinity)
          .map((animation) => animation.finished),
      ),
    );
    await this.page.waitForTimeout(350);
  }
}

/** An {@link AdminSession} for the walk of the enclosing `describe`: started before its first step, stopped after its last. */
export function useAdminSession(options: AdminSessionOptions): AdminSession {
  const session = new AdminSession(options);
  beforeAll(() => session.start());
  afterAll(() => session.stop());
  afterEach(async (test) => {
    if (test.task.result?.state === 'fail' && session.tool) {
      await session.screenshot(`failed-${test.task.name.replace(/\W+/g, '-')}`).catch(() => {});
    }
  });
  return session;
}
