import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Frame, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSettingsRepository, type SettingsRepository } from '../../server/src/domain/settings/settings-repository.js';
import { freePort } from '../../server/src/free-port.js';
import { createContext, createPreExamSweep } from '../../server/src/app.js';
import { createLogger } from '../../server/src/logger.js';
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
const OAUTH_CLIENT_SECRET = 'pre-exam-sweep-secret';
const MINUTE = 60_000;

/**
 * A teacher whose Midterm is due within the hour learns, at the top of the teacher view, that the LMS lost its access
 * code, without repairing anything: the course has not opted in. They switch on automatic repairs in the course
 * defaults, and the sweep ten minutes before the due time puts the code back and says so.
 */
describe.runIf(browserAvailable())('drift before the start, in the teacher view', { timeout: 120_000 }, () => {
  let t: TestApp;
  let lms: MockLms;
  let lmsServer: RunningLmsServer;
  let browser: LaunchedBrowser;
  let page: Page;
  let tool: Frame;
  // Screenshots of every step, to be looked at: kept in `PRE_EXAM_SWEEP_SCREENSHOTS`, else removed after the test.
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
    folder = screenshotFolder('PRE_EXAM_SWEEP_SCREENSHOTS', 'pre-exam-sweep');
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

  const sweepAt = async (at: number) => {
    const ctx = await createContext({ config: t.config, logger: createLogger('silent'), db: t.db });
    return createPreExamSweep(ctx, { now: () => new Date(at) }).run();
  };
  const alertSection = () => tool.getByRole('region', { name: 'Drift before the start' });

  it('alerts a drift in the teacher view, and repairs it once the course opted in', async () => {
    const due = Math.ceil(Date.now() / MINUTE) * MINUTE + 50 * MINUTE;
    lms.state.quizzes.get(201)!.dueAt = new Date(due).toISOString();
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

    // The LMS loses the code; the sweep an hour before only alerts.
    lms.state.quizzes.get(201)!.accessCode = null;
    expect((await sweepAt(due - 50 * MINUTE)).outcomes).toMatchObject({ alerted: 1 });
    tool = await launchIntoToolFrame(page, lms.launchPageUrl, 'Launch as instructor', t.url!);
    await visible(alertSection());
    await visible(alertSection().getByText('Midterm exam'));
    await visible(alertSection().getByText('Not repaired automatically; repair it now.'));
    expect(lms.state.quizzes.get(201)!.accessCode).toBeNull();
    await screenshot('01-alerted');
    expect(await seriousViolations(page, { frame: 'iframe#tool_content' })).toEqual([]);

    // The teacher opts in, in the course defaults.
    await tool.getByRole('tab', { name: 'Course defaults' }).click();
    const toggle = tool.getByLabel('Repair drift automatically before a start');
    await visible(toggle);
    expect(await toggle.isChecked()).toBe(false);
    await toggle.click({ force: true });
    await expect.poll(() => toggle.isChecked()).toBe(true);
    await visible(tool.getByText('Drift is now repaired automatically before a start.'));
    await screenshot('02-opted-in');

    await page.setViewportSize({ width: 360, height: 900 });
    await visible(toggle);
    expect(await tool.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1)).toBe(true);
    await screenshot('03-opted-in-narrow');
    await page.setViewportSize({ width: 1100, height: 900 });

    // Ten minutes before, the sweep puts the code back and the view says so.
    expect((await sweepAt(due - 9 * MINUTE)).outcomes).toMatchObject({ repaired: 1 });
    expect(lms.state.quizzes.get(201)!.accessCode).toBe(code);
    tool = await launchIntoToolFrame(page, lms.launchPageUrl, 'Launch as instructor', t.url!);
    await visible(alertSection().getByText('The service put its code back.'));
    await screenshot('04-repaired');
    expect(problems).toEqual([]);
  });

  it('adopts a copied quiz with the settings of the enforced quiz of the same title in another course', async () => {
    // Course 102 (also taught by this teacher) enforces a "Lab safety check" with its own exit password and rules.
    await t.db.orm.em.getConnection().execute(
      "insert into assessment (course_id, content_id, content_type, lms_assessment_id, title, published) values ('102', 'classicquiz_205', 'CLASSIC_QUIZ', '205', 'Lab safety check', true)",
    );
    const original = await settings.loadAssessmentSettings('102', 'classicquiz_205');
    await settings.saveAssessmentSettings('102', {
      ...(original ?? { courseId: '102', contentId: 'classicquiz_205', version: 0, verificationStatus: 'unverified', externalToolIds: null, quizOnlyTools: [] }),
      exbRequired: true,
      enabled: true,
      accessCode: 'original-code',
      usesCourseDefaults: false,
      urlRules: [{ id: 'r1', match: 'exact', value: 'https://example.org/safety-sheet' }],
      startPasswordOverride: null,
      exitPasswordOverride: 'exit-from-102',
    });
    const labRow = () => tool.getByRole('row').filter({ has: tool.getByRole('rowheader', { name: 'Lab safety check', exact: true }) });
    await visible(labRow().getByText('Access code not managed here'));
    await labRow().getByRole('button', { name: /Adopt with the original assessment’s settings/ }).click();
    const pick = labRow().getByRole('button', { name: /Adopt settings from/ });
    await visible(pick);
    // A frame narrowed and widened again switches the table's layout, which mounts its rows anew: the list stays open.
    await page.setViewportSize({ width: 360, height: 900 });
    await visible(pick);
    await screenshot('05-adopt-candidates-narrow');
    await page.setViewportSize({ width: 1100, height: 900 });
    await visible(pick);
    await screenshot('05-adopt-candidates');
    await pick.click();
    await visible(labRow().getByText('Exam browser required'));
    const adopted = (await settings.loadAssessmentSettings('101', 'classicquiz_204'))!;
    expect(adopted).toMatchObject({ exbRequired: true, exitPasswordOverride: 'exit-from-102', usesCourseDefaults: false });
    expect(lms.state.quizzes.get(204)!.accessCode).toBe(adopted.accessCode);
    expect(adopted.accessCode).not.toBe('lab-2026');
    await screenshot('06-adopted');
    expect(problems).toEqual([]);
  });
});
