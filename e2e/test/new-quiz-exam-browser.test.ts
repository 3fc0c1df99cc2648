import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Frame, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../server/src/db/orm.js';
import { freePort } from '../../server/src/free-port.js';
import { createLogger } from '../../server/src/logger.js';
import { createTestDatabase } from '../../server/test/support/database.js';
import { startDevelopment, type DevelopmentEnvironment } from '../src/dev.js';
import { seriousViolations } from '../src/support/axe.js';
import { browserAvailable, launchBrowser, type LaunchedBrowser } from '../src/support/browser.js';
import { approveLmsAuthorization, callInFrame, launchIntoToolFrame, PAGE_TIMEOUT_MS, waitForView, watchServiceProblems } from '../src/support/tool-frame.js';
import { screenshotFolder, type ScreenshotFolder } from './screenshot-folder.js';

const CLIENT_MANIFEST = fileURLToPath(new URL('../../client/dist/.vite/manifest.json', import.meta.url));
const DETECTOR_BUNDLE = fileURLToPath(new URL('../../detector/dist/lms-exb-detector.js', import.meta.url));

const COURSE = '101';
const ASSIGNMENT = 301;
const NEW_QUIZ = `newquiz:${COURSE}:${ASSIGNMENT}`;
const TITLE = 'Final exam (New Quizzes)';
const NARROW = { width: 360, height: 760 };

/**
 * A new quiz taken end to end in the development LMS's simulated exam browser: the quiz runs in the New Quizzes
 * engine's frame on another origin, whose access-code prompt no script of the LMS page can fill. The detector shows
 * the released code in its panel; the student reads it there and types it into the frame, and the quiz opens.
 */
describe.runIf(browserAvailable())('a new quiz in the simulated exam browser', { timeout: 180_000 }, () => {
  let dev: DevelopmentEnvironment;
  let db: Database;
  let dropDatabase: () => Promise<void>;
  let dataDir: string;
  let browser: LaunchedBrowser;
  // Screenshots of every step, to be looked at: kept in `NEW_QUIZ_SCREENSHOTS`, else removed after the test.
  let folder: ScreenshotFolder | undefined;
  let shots: string;
  const contexts: BrowserContext[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    for (const bundle of [CLIENT_MANIFEST, DETECTOR_BUNDLE]) {
      if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`npm run build\``);
    }
    const database = await createTestDatabase();
    dropDatabase = () => database.drop();
    dataDir = mkdtempSync(path.join(tmpdir(), 'exb-new-quiz-data-'));
    db = await openDatabase({ databaseUrl: database.url, dataDir, logger: createLogger('silent'), poolSize: 1 });
    await db.migrate();
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
    folder = screenshotFolder('NEW_QUIZ_SCREENSHOTS', 'new-quiz');
    shots = folder.path;
  });
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await dev?.close();
    await db?.close();
    await dropDatabase?.();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    folder?.remove();
  });

  async function personBrowser(expectedError?: (url: string, status: number) => boolean) {
    const context = await browser.browser.newContext({ viewport: { width: 1100, height: 900 } });
    contexts.push(context);
    context.on('page', (page) => watchServiceProblems(page, dev.serviceUrl, problems, expectedError));
    return { context, page: await context.newPage() };
  }

  async function shoot(page: Page, name: string) {
    await page.screenshot({ path: path.join(shots, `${name}.png`), animations: 'disabled' });
  }

  async function authorize(page: Page, tool: Frame, button: string) {
    const [popup] = await Promise.all([page.waitForEvent('popup'), tool.getByRole('button', { name: button }).click()]);
    const closed = popup.waitForEvent('close', { timeout: PAGE_TIMEOUT_MS });
    await approveLmsAuthorization(popup, dev.lmsUrl, dev.serviceUrl);
    await closed.catch(() => popup.close());
  }

  /** The LMS page inside the simulated exam browser's window, and the New Quizzes engine's frame inside that. */
  async function framesOf(simulator: Page): Promise<{ lmsPage: Frame; engine: Frame }> {
    const lmsPage = (await (await simulator.locator('#exb-sim-page').elementHandle())!.contentFrame())!;
    await lmsPage.waitForURL(`${dev.lmsUrl}/courses/${COURSE}/assignments/${ASSIGNMENT}`, { timeout: PAGE_TIMEOUT_MS });
    const engineHandle = await lmsPage.locator('iframe#tool_content').elementHandle();
    const engine = (await engineHandle!.contentFrame())!;
    await engine.waitForURL((url) => url.href.startsWith(`${dev.newQuizzesUrl}/sessions/`), { timeout: PAGE_TIMEOUT_MS });
    return { lmsPage, engine };
  }

  let simulator: Page;
  let accessCode: string;

  /** The student reloads the quiz page in the exam browser: the detector proves and redeems anew, the engine launches anew. */
  async function reloadQuizPage() {
    const { lmsPage } = await framesOf(simulator);
    await lmsPage.goto(`${dev.lmsUrl}/courses/${COURSE}/assignments/${ASSIGNMENT}`);
  }

  it('the instructor requires the exam browser for the new quiz; the teacher view said the code will be shown', async () => {
    const { page } = await personBrowser();
    const tool = await launchIntoToolFrame(page, dev.launchPageUrl, 'Launch as instructor', dev.serviceUrl);
    await authorize(page, tool, 'Authorize the tool in the LMS');
    await tool.getByText(/^LMS:\s*Connected$/).waitFor({ timeout: PAGE_TIMEOUT_MS });
    await tool.getByRole('button', { name: 'Refresh from LMS' }).click();
    await tool.getByRole('rowheader', { name: TITLE }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    // Before it is enforced, the view says what a new quiz's students will see.
    const notice = tool.getByText('students see its access code inside the exam browser and type it into the quiz themselves');
    await notice.first().waitFor({ timeout: PAGE_TIMEOUT_MS });
    const row = tool.getByRole('row').filter({ has: tool.getByRole('rowheader', { name: TITLE }) });
    expect(await row.getByText('students see its access code inside the exam browser').count()).toBe(1);
    // Only new quizzes carry the note.
    const classicRow = tool.getByRole('row').filter({ has: tool.getByRole('rowheader', { name: 'Midterm exam' }) });
    expect(await classicRow.getByText('students see its access code').count()).toBe(0);
    // A screen reader hears it with the switch.
    const description = await tool.getByLabel(`Require the exam browser for ${TITLE}`).evaluate((input) =>
      (input.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' '),
    );
    expect(description).toContain('its students see its access code inside the exam browser and type it into the quiz themselves');
    await row.screenshot({ path: path.join(shots, '01-teacher-view-new-quiz-notice.png') });
    await page.setViewportSize(NARROW);
    // The table re-renders as stacked blocks (a `div` with role table instead of a `table`); the row is found anew in it.
    await tool.locator('div[role="table"]').waitFor({ timeout: PAGE_TIMEOUT_MS });
    await row.scrollIntoViewIfNeeded();
    await shoot(page, '01-teacher-view-new-quiz-notice-narrow');
    expect(await tool.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await page.setViewportSize({ width: 1100, height: 900 });

    expect((await callInFrame(tool, 'PUT', `/api/quizzes/course/${COURSE}/defaults`, { quitPassword: 'leave-the-new-quiz' })).status).toBe(200);
    const enabled = await callInFrame(tool, 'POST', `/api/quizzes/${COURSE}/${NEW_QUIZ}/exb/enable`);
    expect(enabled).toMatchObject({ status: 200, body: { setting: { exbRequired: true, enabled: true } } });
    const settings = dev.lms.state.assignments.get(ASSIGNMENT)!.newQuiz!.quizSettings;
    expect(settings.require_student_access_code).toBe(true);
    accessCode = settings.student_access_code!;
    expect(accessCode).toEqual(expect.any(String));
  });

  it('the student opens the new quiz’s configuration in the simulated exam browser; the engine asks for the code in its frame', async () => {
    const { context, page } = await personBrowser((url) => url.includes('/api/exb/config-grant/'));
    const tool = await launchIntoToolFrame(page, dev.launchPageUrl, 'Launch as student 1', dev.serviceUrl);
    await waitForView(tool, 'student');
    await tool.getByRole('button', { name: `Download configuration for ${TITLE}` }).click();
    await authorize(page, tool, 'Connect your LMS account');
    const handoff = await waitForView(tool, 'exb-launch-handoff');
    expect(handoff).toMatchObject({ available: true });

    [simulator] = await Promise.all([
      context.waitForEvent('page'),
      tool.getByRole('link', { name: 'Open in the testbed’s simulated exam browser' }).click(),
    ]);
    await simulator.getByRole('heading', { level: 1, name: 'Simulated exam browser' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    const { lmsPage, engine } = await framesOf(simulator);

    // The engine is another origin: the LMS page cannot see into its frame, let alone fill its prompt.
    expect(new URL(dev.newQuizzesUrl).origin).not.toBe(new URL(dev.lmsUrl).origin);
    expect(await lmsPage.evaluate(() => {
      try {
        return (document.getElementById('tool_content') as HTMLIFrameElement).contentDocument === null;
      } catch {
        return true;
      }
    })).toBe(true);
    await engine.getByLabel('Access code').waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await engine.getByLabel('Access code').inputValue()).toBe('');
  });

  it('the detector’s panel holds the code, masked until asked, with where to type it, a copy button and an announcement', async () => {
    const { lmsPage } = await framesOf(simulator);
    const panel = lmsPage.locator('[data-exb-panel]');
    await panel.getByRole('heading', { name: 'Access code for this quiz' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await panel.textContent()).toContain('The quiz on this page asks for an access code in its own area. Type this code there');
    expect(await panel.textContent()).not.toContain(accessCode);
    await shoot(simulator, '02-new-quiz-code-masked');

    // Keyboard: tab to the show button and press Enter.
    const show = panel.getByRole('button', { name: 'Show the code' });
    await show.focus();
    await lmsPage.page().keyboard.press('Enter');
    await expect.poll(() => panel.locator('#exb-access-code-value').textContent()).toBe(accessCode);
    expect(await panel.getByRole('status').textContent()).toBe(`The access code is shown: ${accessCode}`);
    expect(await panel.getByRole('button', { name: 'Hide the code' }).getAttribute('aria-expanded')).toBe('true');
    await shoot(simulator, '03-new-quiz-code-shown');
    expect(await seriousViolations(simulator, { frame: '#exb-sim-page' })).toEqual([]);

    await panel.getByRole('button', { name: 'Copy the code' }).click();
    await expect.poll(() => panel.getByRole('status').textContent()).toMatch(/^The (access code is copied|code could not be copied)/);
  });

  it('the student types the code into the engine’s frame and the quiz opens', async () => {
    const { lmsPage, engine } = await framesOf(simulator);
    const shownCode = (await lmsPage.locator('#exb-access-code-value').textContent()) ?? '';
    // A wrong code first: the engine refuses it.
    await engine.getByLabel('Access code').fill(`${shownCode}x`);
    await engine.getByRole('button', { name: 'Begin' }).click();
    await engine.getByRole('alert').filter({ hasText: 'The access code is not correct.' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    await engine.getByLabel('Access code').fill(shownCode);
    await engine.getByRole('button', { name: 'Begin' }).click();
    await engine.getByText('Question 1: explain your answer.').waitFor({ timeout: PAGE_TIMEOUT_MS });
    await shoot(simulator, '04-new-quiz-open');
  });

  it('fits a 360 px exam-browser window', async () => {
    await simulator.setViewportSize(NARROW);
    await reloadQuizPage();
    const { lmsPage } = await framesOf(simulator);
    const panel = lmsPage.locator('[data-exb-panel]');
    await panel.getByRole('button', { name: 'Show the code' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    await panel.getByRole('button', { name: 'Show the code' }).click();
    await shoot(simulator, '05-new-quiz-code-narrow');
    const fits = await lmsPage.evaluate(() => {
      const box = document.querySelector('[data-exb-panel]')!.getBoundingClientRect();
      return box.left >= 0 && box.right <= window.innerWidth && document.documentElement.scrollWidth <= window.innerWidth;
    });
    expect(fits).toBe(true);
    await expectInside(panel.getByRole('button', { name: 'Copy the code' }), lmsPage);
  });

  it('speaks German on a German LMS page', async () => {
    dev.lms.state.requireUser('student1').locale = 'de';
    await simulator.setViewportSize({ width: 1100, height: 900 });
    await reloadQuizPage();
    const { lmsPage, engine } = await framesOf(simulator);
    const panel = lmsPage.locator('[data-exb-panel]');
    await panel.getByRole('heading', { name: 'Zugangscode für dieses Quiz' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await panel.textContent()).toContain('Geben Sie diesen Code dort ein');
    await panel.getByRole('button', { name: 'Code anzeigen' }).click();
    expect(await panel.getByRole('status').textContent()).toBe(`Der Zugangscode wird angezeigt: ${accessCode}`);
    await shoot(simulator, '06-new-quiz-code-german');
    expect(await seriousViolations(simulator, { frame: '#exb-sim-page' })).toEqual([]);
    await simulator.setViewportSize(NARROW);
    await shoot(simulator, '07-new-quiz-code-german-narrow');
    // A fresh launch of the engine asks again; the code from the panel opens it.
    await engine.getByLabel('Access code').fill(accessCode);
    await engine.getByRole('button', { name: 'Begin' }).click();
    await engine.getByText('Question 1: explain your answer.').waitFor({ timeout: PAGE_TIMEOUT_MS });
  });

  it('shows the pages without script errors or unexpected error answers', () => {
    expect(problems).toEqual([]);
  });
});

async function expectInside(locator: Locator, frame: Frame) {
  const box = await locator.evaluate((node) => {
    const rect = node.getBoundingClientRect();
    return { left: rect.left, right: rect.right };
  });
  const width = await frame.evaluate(() => window.innerWidth);
  expect(box.left).toBeGreaterThanOrEqual(0);
  expect(box.right).toBeLessThanOrEqual(width);
}
