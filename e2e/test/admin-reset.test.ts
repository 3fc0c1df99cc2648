import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import type { BrowserContext, Frame, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSettingsRepository } from '../../server/src/domain/settings/settings-repository.js';
import { freePort } from '../../server/src/free-port.js';
import { createTestApp, type TestApp } from '../../server/test/support/app.js';
import { createMockLms, type MockLms, type RunningLmsServer } from '../src/lms/index.js';
import { browserAvailable, launchBrowser, type LaunchedBrowser } from '../src/support/browser.js';
import { approveLmsAuthorization, launchIntoToolFrame, PAGE_TIMEOUT_MS, watchServiceProblems } from '../src/support/tool-frame.js';

const CLIENT_MANIFEST = fileURLToPath(new URL('../../client/dist/.vite/manifest.json', import.meta.url));
const CLIENT_ID = '10000000000001';
const DEPLOYMENT_ID = '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb';
const ISSUER = 'https://canvas.instructure.com';
const OAUTH_CLIENT_ID = '10000000000002';
const OAUTH_CLIENT_SECRET = 'admin-reset-secret';
const PATCH_NEW_QUIZ = 'PATCH /api/quiz/v1/courses/:course_id/quizzes/:assignment_id';

/** Screenshots of every step, to be looked at: `ADMIN_RESET_SCREENSHOTS` or a fresh temporary folder. */
function screenshotFolder(): string {
  const folder = process.env.ADMIN_RESET_SCREENSHOTS ?? mkdtempSync(path.join(tmpdir(), 'exb-admin-reset-'));
  mkdirSync(folder, { recursive: true });
  return folder;
}

/** The refusals the walk provokes: a reset the LMS refuses half-way (403) and a preview it cannot identify (409). */
function provokedRefusal(url: string, status: number): boolean {
  const procedures = decodeURIComponent(new URL(url).pathname.replace(/^\/trpc\//, '')).split(',');
  const provoked: Record<number, string[]> = { 403: ['admin.courses.reset'], 409: ['admin.courses.resetPreview'] };
  return url.includes('/trpc/') && procedures.some((procedure) => (provoked[status] ?? []).includes(procedure));
}

/** Course 101's access codes as the LMS holds them, exactly. */
function lmsCodes(lms: MockLms) {
  return {
    quizzes: [...lms.state.quizzes.values()].filter((quiz) => quiz.courseId === 101).map((quiz) => [quiz.id, quiz.accessCode]),
    newQuizzes: [...lms.state.assignments.values()]
      .filter((assignment) => assignment.courseId === 101 && assignment.newQuiz)
      .map((assignment) => [assignment.id, assignment.newQuiz!.quizSettings.require_student_access_code, assignment.newQuiz!.quizSettings.student_access_code]),
  };
}

describe.runIf(browserAvailable())('the course reset dialog in Chromium', { timeout: 180_000 }, () => {
  let t: TestApp;
  let lms: MockLms;
  let lmsServer: RunningLmsServer;
  let browser: LaunchedBrowser;
  let context: BrowserContext;
  let page: Page;
  let tool: Frame;
  let shots: string;
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
    lms = createMockLms({
      baseUrl: lmsUrl,
      issuer: ISSUER,
      tool: { baseUrl: t.url!, clientId: CLIENT_ID, deploymentId: DEPLOYMENT_ID, oauthClientId: OAUTH_CLIENT_ID, oauthClientSecret: OAUTH_CLIENT_SECRET },
    });
    lmsServer = await lms.startHttpServer();
    browser = await launchBrowser();
    context = await browser.browser.newContext({ viewport: { width: 1100, height: 900 } });
    page = await context.newPage();
    watchServiceProblems(page, t.url!, problems, provokedRefusal);
    shots = screenshotFolder();
    process.stderr.write(`\n[admin-reset] screenshots in ${shots}\n`);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await lmsServer?.close();
    await t?.close();
  });
  afterEach(async (test) => {
    if (test.task.result?.state === 'fail' && tool) await screenshot(`failed-${test.task.name.replace(/\W+/g, '-')}`).catch(() => {});
  });

  /** The LMS page with the tool's frame stretched to its content; a modal dialog is shown as the viewport has it. */
  async function screenshot(name: string, options: { stretch?: boolean } = {}) {
    await settled();
    if (options.stretch !== false) {
      const height = await tool.evaluate(() => document.documentElement.scrollHeight);
      await page.evaluate((h) => {
        const frame = document.querySelector<HTMLIFrameElement>('iframe#tool_content');
        if (frame) frame.style.height = `${h + 4}px`;
      }, height);
    }
    await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: options.stretch !== false });
    await page.evaluate(() => {
      const frame = document.querySelector<HTMLIFrameElement>('iframe#tool_content');
      if (frame) frame.style.height = '';
    });
  }

  /** Lets InstUI's transitions (an alert fading in) finish, so a screenshot shows the settled dialog. */
  async function settled() {
    await tool.evaluate(() =>
      Promise.allSettled(
        document
          .getAnimations()
          .filter((animation) => animation.effect?.getComputedTiming().iterations !== Infinity)
          .map((animation) => animation.finished),
      ),
    );
    await page.waitForTimeout(350);
  }

  async function visible(locator: Locator, timeout = 10_000) {
    await locator.first().waitFor({ state: 'visible', timeout });
  }

  async function accessibilityViolations(): Promise<string[]> {
    const results = await new AxeBuilder({ page }).analyze();
    const inTool = (node: { target: unknown[] }) => String(node.target[0]).includes('tool_content');
    expect(results.passes.some((rule) => rule.nodes.some(inTool))).toBe(true);
    return results.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .flatMap((violation) => violation.nodes.filter(inTool).map((node) => `${violation.id}: ${node.target.join(' > ')}`));
  }

  const dialog = () => tool.getByRole('dialog', { name: 'Reset Biology 101' });

  async function openDialog() {
    await tool.getByRole('button', { name: 'Reset course…' }).click();
    await visible(dialog());
  }

  it('gets an administrator to an enforced course', async () => {
    tool = await launchIntoToolFrame(page, lms.launchPageUrl, 'Launch as administrator', t.url!);
    const [popup] = await Promise.all([page.waitForEvent('popup'), tool.getByRole('button', { name: 'Authorize administrator access in the LMS' }).click()]);
    await approveLmsAuthorization(popup, lms.baseUrl, t.url!);
    await visible(popup.getByRole('heading', { name: 'Connected to the LMS' }));
    await popup.close();
    await visible(tool.getByRole('tab', { name: 'Connect courses' }), PAGE_TIMEOUT_MS);
    await tool.getByRole('tab', { name: 'Connect courses' }).click();
    await tool.getByLabel('Course ids or course addresses').fill('101');
    await tool.getByRole('button', { name: 'Connect 1 course' }).click();
    await visible(tool.getByText('Connected 1 course.'));
    await tool.getByRole('tab', { name: 'Connected courses' }).click();
    await tool.getByLabel('Include past courses').click({ force: true });
    await tool.getByRole('button', { name: 'Biology 101' }).click();
    await tool.getByRole('button', { name: 'Refresh from LMS' }).click();
    await visible(tool.getByText('Found 6 quizzes in the LMS.'));
    await tool.getByRole('button', { name: 'New exit password' }).click();
    await tool.getByRole('button', { name: 'Replace exit password' }).click();
    await visible(tool.getByText(/^New exit password/));
    for (const title of ['Midterm exam', 'Final exam (New Quizzes)']) {
      await tool.getByLabel(`Require the exam browser for ${title}`).click({ force: true });
      await visible(tool.getByRole('row').filter({ has: tool.getByRole('rowheader', { name: title, exact: false }) }).getByText('Required', { exact: true }));
    }
    expect(lms.state.quizzes.get(201)!.accessCode).toMatch(/^[0-9a-z]{24}$/);
    await screenshot('01-enforced-course');
  });

  it('shows what the reset removes and asks for the course id', async () => {
    await openDialog();
    await visible(dialog().getByText('In the LMS'));
    await visible(dialog().getByText('Midterm exam'));
    await visible(dialog().getByText('Final exam (New Quizzes)'));
    // Quiz 204's code was set by hand in the LMS, not by the tool: it is not listed and will stay.
    expect(await dialog().getByText('Lab safety check').count()).toBe(0);
    const confirm = dialog().getByRole('button', { name: 'Reset course' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog().getByLabel('Type the course id, 101, to confirm').fill('102');
    await visible(dialog().getByText('That is not 101.'));
    expect(await confirm.isDisabled()).toBe(true);
    await screenshot('02-preview-wrong-id', { stretch: false });
    expect(await accessibilityViolations()).toEqual([]);
    await dialog().getByLabel('Type the course id, 101, to confirm').fill('101');
    expect(await confirm.isDisabled()).toBe(false);
    await screenshot('03-preview-confirmed', { stretch: false });
  });

  it('says plainly that a reset the LMS refused half-way was rolled back, and nothing was lost', async () => {
    const before = lmsCodes(lms);
    lms.faults.next(PATCH_NEW_QUIZ, { kind: 'forbidden' });
    await dialog().getByRole('button', { name: 'Reset course' }).click();
    await visible(dialog().getByRole('heading', { name: 'Rolled back, nothing lost' }));
    await visible(dialog().getByText('every access code is back in place', { exact: false }));
    expect(lmsCodes(lms)).toEqual(before);
    await screenshot('04-rolled-back', { stretch: false });
    expect(await accessibilityViolations()).toEqual([]);
    await dialog().getByRole('button', { name: 'Close', exact: true }).click();
    await expect.poll(() => dialog().count()).toBe(0);
    // Focus is back on what opened the dialog.
    expect(await tool.evaluate(() => document.activeElement?.textContent ?? '')).toContain('Reset course');
    await visible(tool.getByRole('row').filter({ has: tool.getByRole('rowheader', { name: 'Midterm exam', exact: false }) }).getByText('Required', { exact: true }));
  });

  it('shows a progress indicator while the reset works, then that it is done', async () => {
    await openDialog();
    await dialog().getByLabel('Type the course id, 101, to confirm').fill('101');
    // The browser holds the request back a moment, so the running state can be seen.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/trpc/admin.courses.reset**', async (route) => {
      await held;
      await route.continue();
    });
    await dialog().getByRole('button', { name: 'Reset course' }).click();
    await visible(dialog().getByText('Removing the access codes in the LMS', { exact: false }));
    expect(await dialog().getByRole('button', { name: 'Resetting…' }).isDisabled()).toBe(true);
    expect(await dialog().getByRole('button', { name: /^Close/ }).count()).toBe(0);
    await screenshot('05-running', { stretch: false });
    release();
    await visible(dialog().getByRole('heading', { name: 'Done' }));
    await page.unroute('**/trpc/admin.courses.reset**');
    await visible(dialog().getByText('Biology 101 is reset: 6 quizzes cleared, 2 access codes removed in the LMS.'));
    await visible(dialog().getByText(/^Receipt [0-9a-f-]{36}, /));
    expect(lms.state.quizzes.get(201)!.accessCode).toBeNull();
    expect(lms.state.quizzes.get(204)!.accessCode).toBe('lab-2026');
    expect(lms.state.assignments.get(301)!.newQuiz!.quizSettings.require_student_access_code).toBe(false);
    await screenshot('06-done', { stretch: false });
    expect(await accessibilityViolations()).toEqual([]);
    await dialog().getByRole('button', { name: 'Done' }).click();
    await visible(tool.getByText('No quizzes are listed for this course yet.'));
    // The exit password set before the reset no longer applies, so it is no longer on screen.
    expect(await tool.getByText(/^New exit password \(hidden/).count()).toBe(0);
    await screenshot('07-after-reset');
  });

  it('explains a preview the LMS cannot identify, and fits a narrow frame', async () => {
    // The reset cleared the course's exit password; the course gets one again before a quiz is enforced.
    await createSettingsRepository(t.db, t.config.secrets.appSecret).saveCourseDefaults('101', {
      courseId: '101',
      urlRules: [],
      externalTools: [],
      startPassword: null,
      exitPassword: 'exit-again',
      setupCompleted: true,
    });
    await tool.getByRole('button', { name: 'Refresh from LMS' }).click();
    await visible(tool.getByText('Found 6 quizzes in the LMS.'));
    await tool.getByLabel('Require the exam browser for Final exam (New Quizzes)').click({ force: true });
    await visible(tool.getByRole('row').filter({ has: tool.getByRole('rowheader', { name: 'Final exam', exact: false }) }).getByText('Required', { exact: true }));
    const assignment = lms.state.assignments.get(301)!;
    const newQuiz = assignment.newQuiz;
    assignment.newQuiz = undefined as unknown as typeof newQuiz;
    try {
      await page.setViewportSize({ width: 560, height: 900 });
      await openDialog();
      await visible(dialog().getByText('The reset cannot start', { exact: false }));
      await visible(dialog().getByText('Final exam (New Quizzes)'));
      expect(await dialog().getByRole('button', { name: 'Reset course' }).isDisabled()).toBe(true);
      expect(await tool.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
      await screenshot('08-narrow-cannot-start', { stretch: false });
      expect(await accessibilityViolations()).toEqual([]);
    } finally {
      assignment.newQuiz = newQuiz;
    }
    await dialog().getByRole('button', { name: 'Check again' }).click();
    await visible(dialog().getByLabel('Type the course id, 101, to confirm'));
    expect(await tool.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await screenshot('09-narrow-preview', { stretch: false });
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await page.setViewportSize({ width: 1100, height: 900 });
    expect(problems).toEqual([]);
  });
});
