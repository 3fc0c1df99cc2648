import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Frame, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSettingsRepository, type SettingsRepository } from '../../server/src/domain/settings/settings-repository.js';
import { freePort } from '../../server/src/free-port.js';
import { createTestApp, type TestApp } from '../../server/test/support/app.js';
import { createMockLms, type MockLms, type RunningLmsServer } from '../src/lms/index.js';
import { seriousViolations } from '../src/support/axe.js';
import { browserAvailable, launchBrowser, type LaunchedBrowser } from '../src/support/browser.js';
import { approveLmsAuthorization, launchIntoToolFrame, PAGE_TIMEOUT_MS, watchServiceProblems } from '../src/support/tool-frame.js';
import { screenshotFolder, type ScreenshotFolder } from './screenshot-folder.js';

const CLIENT_MANIFEST = fileURLToPath(new URL('../../client/dist/.vite/manifest.json', import.meta.url));
const CLIENT_ID = '10000000000001';
const DEPLOYMENT_ID = '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb';
const ISSUER = 'https://canvas.instructure.com';
const OAUTH_CLIENT_ID = '10000000000002';
const OAUTH_CLIENT_SECRET = 'verification-view-secret';

/**
 * The failure a new user met: the Midterm's access code vanished in the LMS while the teacher view kept saying
 * "Exam browser required". Now a refresh flags it, says why, and one click puts the code back.
 */
describe.runIf(browserAvailable())('a code the LMS lost, in the teacher view', { timeout: 120_000 }, () => {
  let t: TestApp;
  let lms: MockLms;
  let lmsServer: RunningLmsServer;
  let browser: LaunchedBrowser;
  let page: Page;
  let tool: Frame;
  // Screenshots of every step, to be looked at: kept in `VERIFICATION_VIEW_SCREENSHOTS`, else removed after the test.
  let folder: ScreenshotFolder | undefined;
  let shots: string;
  let settings: SettingsRepository;
  const problems: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CLIENT_MANIFEST)) throw new Error('the client bundle is missing: run `npm run build -w client`');
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
    settings = createSettingsRepository(t.db, t.config.secrets.appSecret);
    await settings.saveCourseDefaults('101', { courseId: '101', urlRules: [], externalTools: [], startPassword: null, exitPassword: 'leave-7', setupCompleted: true });
    lms = createMockLms({
      baseUrl: lmsUrl,
      issuer: ISSUER,
      tool: { baseUrl: t.url!, clientId: CLIENT_ID, deploymentId: DEPLOYMENT_ID, oauthClientId: OAUTH_CLIENT_ID, oauthClientSecret: OAUTH_CLIENT_SECRET },
    });
    lmsServer = await lms.startHttpServer();
    browser = await launchBrowser();
    page = await (await browser.browser.newContext({ viewport: { width: 1100, height: 900 } })).newPage();
    watchServiceProblems(page, t.url!, problems, () => false);
    folder = screenshotFolder('VERIFICATION_VIEW_SCREENSHOTS', 'verification-view');
    shots = folder.path;
  });
  afterAll(async () => {
    await browser?.close();
    await lmsServer?.close();
    await t?.close();
    folder?.remove();
  });
  afterEach(async (test) => {
    if (test.task.result?.state === 'fail' && page) await page.screenshot({ path: path.join(shots, `failed-${test.task.name.replace(/\W+/g, '-')}.png`), fullPage: true });
  });

  async function screenshot(name: string) {
    const height = await tool.evaluate(() => document.documentElement.scrollHeight);
    await page.evaluate((h) => {
      const frame = document.querySelector<HTMLIFrameElement>('iframe#tool_content');
      if (frame) frame.style.height = `${h + 4}px`;
    }, height);
    await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
  }
  const visible = (locator: Locator, timeout = 10_000) => locator.first().waitFor({ state: 'visible', timeout });
  const midtermRow = () => tool.getByRole('row').filter({ has: tool.getByRole('rowheader', { name: 'Midterm exam', exact: true }) });

  it('enforces the Midterm, then flags the code the LMS lost and repairs it in one click', async () => {
    tool = await launchIntoToolFrame(page, lms.launchPageUrl, 'Launch as instructor', t.url!);
    const [popup] = await Promise.all([page.waitForEvent('popup'), tool.getByRole('button', { name: 'Authorize the tool in the LMS' }).click()]);
    await approveLmsAuthorization(popup, lms.baseUrl, t.url!);
    await visible(popup.getByRole('heading', { name: 'Connected to the LMS' }));
    await popup.close();
    await expect.poll(() => tool.getByRole('button', { name: 'Refresh from LMS' }).isEnabled(), { timeout: PAGE_TIMEOUT_MS }).toBe(true);
    await tool.getByRole('button', { name: 'Refresh from LMS' }).click();
    await visible(tool.getByRole('rowheader', { name: 'Midterm exam' }));
    await tool.getByLabel('Require the exam browser for Midterm exam').click({ force: true });
    await visible(midtermRow().getByText('Exam browser required'));
    const code = lms.state.quizzes.get(201)!.accessCode;
    expect(code).toEqual(expect.any(String));

    // A course copy or a manual edit removes the code in the LMS.
    lms.state.quizzes.get(201)!.accessCode = null;
    await tool.getByRole('button', { name: 'Refresh from LMS' }).click();
    await visible(midtermRow().getByText('Not protected in the LMS'));
    await visible(midtermRow().getByText('The LMS has no access code on this quiz, so any browser can open it.'));
    expect(await midtermRow().getByText('Exam browser required').count()).toBe(0);
    await screenshot('01-missing-flagged');
    expect(await seriousViolations(page, { frame: 'iframe#tool_content' })).toEqual([]);

    await page.setViewportSize({ width: 560, height: 900 });
    await visible(midtermRow().getByRole('button', { name: 'Re-apply protection' }));
    expect(await tool.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1)).toBe(true);
    await screenshot('02-missing-narrow');
    await page.setViewportSize({ width: 1100, height: 900 });

    await midtermRow().getByRole('button', { name: 'Re-apply protection' }).click();
    await visible(midtermRow().getByText('Exam browser required'));
    await expect.poll(() => midtermRow().getByText('Not protected in the LMS').count()).toBe(0);
    expect(lms.state.quizzes.get(201)!.accessCode).toBe(code);
    await screenshot('03-repaired');
    expect(problems).toEqual([]);
  });
});
