import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../server/src/db/orm.js';
import { freePort } from '../../server/src/free-port.js';
import { createLogger } from '../../server/src/logger.js';
import { createTestDatabase } from '../../server/test/support/database.js';
import { startDevelopment, type DevelopmentEnvironment } from '../src/dev.js';
import { configKeyHashFor } from '../src/exb-simulator/index.js';
import { seriousViolations } from '../src/support/axe.js';
import { browserAvailable, launchBrowser, type LaunchedBrowser } from '../src/support/browser.js';
import { approveLmsAuthorization, callInFrame, launchIntoToolFrame, PAGE_TIMEOUT_MS, waitForView, watchServiceProblems } from '../src/support/tool-frame.js';
import { screenshotFolder, type ScreenshotFolder } from './screenshot-folder.js';

const CLIENT_MANIFEST = fileURLToPath(new URL('../../client/dist/.vite/manifest.json', import.meta.url));
const DETECTOR_BUNDLE = fileURLToPath(new URL('../../detector/dist/lms-exb-detector.js', import.meta.url));

const COURSE = '101';
const CLASSIC = 'classicquiz_201';
const NEW_QUIZ = 'newquiz:101:301';
const TOOL = { label: 'Periodic table', url: 'https://periodic.example.edu/table' };
const TESTBED_LINK = 'Open in the testbed’s simulated exam browser';
const NARROW = { width: 390, height: 844 };

/**
 * What a newcomer sees after `npm start`: the development LMS and the service started together by the development
 * launcher (`startDevelopment`), walked in Chromium as an instructor, a student, a TA and a designer would.
 */
describe.runIf(browserAvailable())('the testbed walked by a newcomer in Chromium', { timeout: 180_000 }, () => {
  let dev: DevelopmentEnvironment;
  let db: Database;
  let dropDatabase: () => Promise<void>;
  let dataDir: string;
  let browser: LaunchedBrowser;
  // Screenshots of every step, to be looked at: kept in `TESTBED_WALK_SCREENSHOTS`, else removed after the test.
  let folder: ScreenshotFolder | undefined;
  let shots: string;
  const contexts: BrowserContext[] = [];
  const problems: string[] = [];
  /** The student's own browser, kept from the course list to the new quiz. */
  let student: { context: BrowserContext; page: Page; tool: Frame };

  beforeAll(async () => {
    for (const bundle of [CLIENT_MANIFEST, DETECTOR_BUNDLE]) {
      if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`npm run build\``);
    }
    const database = await createTestDatabase();
    dropDatabase = () => database.drop();
    dataDir = mkdtempSync(path.join(tmpdir(), 'exb-testbed-walk-data-'));
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
    folder = screenshotFolder('TESTBED_WALK_SCREENSHOTS', 'testbed-walk');
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
  afterEach(async (test) => {
    if (test.task.result?.state === 'fail' && student?.page) {
      await student.page.screenshot({ path: path.join(shots, `failed-${test.task.name.replace(/\W+/g, '-')}.png`) }).catch(() => {});
    }
  });

  /** One person's browser, watched for script errors and unexpected error answers of the service. */
  async function personBrowser(options: Parameters<LaunchedBrowser['browser']['newContext']>[0] = {}, expectedError?: (url: string, status: number) => boolean) {
    const context = await browser.browser.newContext({ viewport: { width: 1100, height: 900 }, ...options });
    contexts.push(context);
    context.on('page', (page) => watchServiceProblems(page, dev.serviceUrl, problems, expectedError));
    const page = await context.newPage();
    return { context, page };
  }

  async function shoot(page: Page, name: string) {
    await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true, animations: 'disabled' });
  }

  /** The page at a phone's width too: nothing may need sideways scrolling. */
  async function shootNarrow(page: Page, name: string) {
    const size = page.viewportSize();
    await page.setViewportSize(NARROW);
    await shoot(page, `${name}-narrow`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${name} fits a narrow window`).toBe(true);
    if (size) await page.setViewportSize(size);
  }

  /** Approves the LMS authorization in `popup` and waits until the popup has closed itself. */
  async function authorizeInPopup(popup: Page, name: string) {
    const closed = popup.waitForEvent('close', { timeout: PAGE_TIMEOUT_MS });
    await approveLmsAuthorization(popup, dev.lmsUrl, dev.serviceUrl);
    const notice = popup.getByText('The tool has been told and is reloading. This window closes by itself in a moment.');
    await notice.waitFor({ timeout: PAGE_TIMEOUT_MS });
    await shoot(popup, name);
    await closed;
  }

  /**
   * The same in a browser that does not let pages close windows: the completion page then says plainly that the
   * window can be closed.
   */
  async function authorizeInUnclosablePopup(popup: Page, name: string) {
    await popup.addInitScript(() => {
      window.close = () => undefined;
    });
    await approveLmsAuthorization(popup, dev.lmsUrl, dev.serviceUrl);
    await popup.getByText('The tool has been told and is reloading. You can close this window now.').waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await popup.getByRole('button', { name: 'Close this window' }).count()).toBe(0);
    await shoot(popup, name);
    expect(await seriousViolations(popup)).toEqual([]);
    await popup.close();
  }

  it('the instructor connects in a popup that closes itself, then requires the exam browser for two quizzes', async () => {
    // Requiring the exam browser before an exit password exists is refused (409) on purpose: the page asks for one.
    const { page } = await personBrowser({}, (url, status) => status === 409 && url.includes('/trpc/instructor.enforcement.setRequired'));
    const tool = await launchIntoToolFrame(page, dev.launchPageUrl, 'Launch as instructor', dev.serviceUrl);
    await tool.getByText('Signed in as Ian Instructor, teacher of this course.').waitFor({ timeout: PAGE_TIMEOUT_MS });

    const [popup] = await Promise.all([page.waitForEvent('popup'), tool.getByRole('button', { name: 'Authorize the tool in the LMS' }).click()]);
    await authorizeInPopup(popup, '01-instructor-authorization-done');
    // The tool window took the signal: it shows the connection without the person doing anything.
    await tool.getByText(/^LMS:\s*Connected$/).waitFor({ timeout: PAGE_TIMEOUT_MS });

    // The README's quick start: refresh, require the exam browser for the midterm, set the exit password it asks for.
    await tool.getByRole('button', { name: 'Refresh from LMS' }).click();
    await tool.getByRole('rowheader', { name: 'Midterm exam' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    const requireMidterm = tool.getByLabel('Require the exam browser for Midterm exam');
    await requireMidterm.click({ force: true });
    await tool.getByText('An exit password is needed first.').waitFor({ timeout: PAGE_TIMEOUT_MS });
    await tool.getByRole('button', { name: 'Set a course exit password' }).click();
    await tool.getByLabel(/^Set an exit password/).fill('leave-the-testbed');
    await tool.getByRole('button', { name: 'Save course defaults' }).click();
    await tool.getByText('Course defaults saved.').first().waitFor({ timeout: PAGE_TIMEOUT_MS });
    await tool.getByRole('tab', { name: 'Assessments' }).click();
    await requireMidterm.click({ force: true });
    await tool.getByRole('row').filter({ has: tool.getByRole('rowheader', { name: 'Midterm exam' }) }).getByText('Exam browser required').waitFor({ timeout: PAGE_TIMEOUT_MS });
    await shoot(page, '02-instructor-midterm-required');

    // Beyond the quick start, through the instructor routes: an approved tool and the new quiz.
    const defaults = await callInFrame(tool, 'PUT', `/api/quizzes/course/${COURSE}/defaults`, { externalTools: [TOOL] });
    expect(defaults.status).toBe(200);
    const enabled = await callInFrame(tool, 'POST', `/api/quizzes/${COURSE}/${NEW_QUIZ}/exb/enable`);
    expect(enabled).toMatchObject({ status: 200, body: { setting: { exbRequired: true, enabled: true } } });
  });

  it('greets a teaching assistant and a designer by the role they launched with', async () => {
    const { page } = await personBrowser();
    for (const [button, greeting, name] of [
      ['Launch as TA', 'Signed in as Tao Assistant, teaching assistant in this course.', '03-teaching-assistant'],
      ['Launch as designer', 'Signed in as Dee Designer, designer of this course.', '04-designer'],
    ] as const) {
      const tool = await launchIntoToolFrame(page, dev.launchPageUrl, button, dev.serviceUrl);
      await tool.getByText(greeting).waitFor({ timeout: PAGE_TIMEOUT_MS });
      expect(await tool.getByText('instructor of this course').count()).toBe(0);
      await shoot(page, name);
      expect(await seriousViolations(page, { frame: 'iframe#tool_content' })).toEqual([]);
    }
  });

  it('the student’s course page lists both quizzes, each with its download and a one-line instruction', async () => {
    // Expected: the download's refusal before the account is connected, and the spent start URL opened again.
    const { context, page } = await personBrowser(
      {},
      (url, status) => url.includes('/api/exb/config-grant/') || (status === 410 && url.includes('/exb/session-start/')),
    );
    const tool = await launchIntoToolFrame(page, dev.launchPageUrl, 'Launch as student 1', dev.serviceUrl);
    student = { context, page, tool };
    const data = await waitForView(tool, 'student');
    expect(data.assessments).toEqual([
      expect.objectContaining({ contentId: NEW_QUIZ, kind: 'newquiz', title: 'Final exam (New Quizzes)' }),
      expect.objectContaining({ contentId: CLASSIC, kind: 'classic', title: 'Midterm exam' }),
    ]);
    for (const [contentId, title] of [
      [CLASSIC, 'Midterm exam'],
      [NEW_QUIZ, 'Final exam (New Quizzes)'],
    ] as const) {
      const item = tool.locator(`li[data-content-id="${contentId}"]`);
      await item.getByRole('heading', { level: 3, name: title }).waitFor({ timeout: PAGE_TIMEOUT_MS });
      expect(await item.getByText('Download when you are ready to begin: the file opens this quiz in the exam browser').count()).toBe(1);
      expect(await item.getByRole('button', { name: `Download configuration for ${title}` }).count()).toBe(1);
    }
    await shoot(page, '05-student-course-page');
    expect(await seriousViolations(page, { frame: 'iframe#tool_content' })).toEqual([]);
  });

  it('the student downloads, opens the simulated exam browser from the download page and takes the quiz to the exit', async () => {
    const { context, page, tool } = student;
    await tool.getByRole('button', { name: 'Download configuration for Midterm exam' }).click();
    // The configuration signs the exam browser in to the LMS, which needs the student's authorization once.
    const [popup] = await Promise.all([page.waitForEvent('popup'), tool.getByRole('button', { name: 'Connect your LMS account' }).click()]);
    await authorizeInUnclosablePopup(popup, '06-student-authorization-done-window-stays');

    // The download page: the real exam browser's button, and beside it the testbed's stand-in, labelled as such.
    const handoff = await waitForView(tool, 'exb-launch-handoff');
    expect(handoff).toMatchObject({ available: true, testbedExamBrowserUrl: expect.stringContaining(`${dev.examBrowserUrl}?launch=`) });
    // The scheme Safe Exam Browser registers (`seb://` on this http testbed), leading to the `.seb` download.
    expect(handoff.exbLaunchUrl).toMatch(new RegExp(`^seb://${new URL(dev.serviceUrl).host}/exb/config/${COURSE}/${CLASSIC}\\.seb\\?grant=[A-Za-z0-9_-]{43}$`));
    expect(new URL(handoff.testbedExamBrowserUrl as string).searchParams.get('launch')).toBe(handoff.exbLaunchUrl);
    expect(await tool.getByRole('link', { name: 'Open the exam browser' }).getAttribute('href')).toBe(handoff.exbLaunchUrl);
    await tool.getByRole('heading', { name: 'Testbed: no exam browser on this computer?' }).waitFor();
    await shoot(page, '07-download-page-with-testbed-link');
    expect(await seriousViolations(page, { frame: 'iframe#tool_content' })).toEqual([]);

    const [simulator] = await Promise.all([context.waitForEvent('page'), tool.getByRole('link', { name: TESTBED_LINK }).click()]);
    await simulator.waitForURL(new RegExp(`^${dev.examBrowserUrl}/[A-Za-z0-9_-]{22}$`), { timeout: PAGE_TIMEOUT_MS });
    await simulator.getByRole('heading', { level: 1, name: 'Simulated exam browser' }).waitFor();
    expect(await simulator.getByText('Testbed stand-in').count()).toBe(1);
    const detail = async (term: string) => (await simulator.locator('dt', { hasText: term }).locator('xpath=following-sibling::dd[1]').textContent()) ?? '';
    const configKey = await detail('Config Key');
    const quitUrl = await detail('Quit URL');
    expect(configKey).toMatch(/^[0-9a-f]{64}$/);
    expect(await detail('File layers')).toBe('gzip → pkhs → plnd → gzip');
    // The configuration starts at its one-time session start: the LMS session URL is minted when the page opens.
    const startUrl = await detail('Start URL');
    expect(startUrl).toMatch(new RegExp(`^${dev.serviceUrl}/exb/session-start/${COURSE}/${CLASSIC}\\?key=[A-Za-z0-9_-]{43}$`));
    expect(quitUrl).toMatch(new RegExp(`^${dev.serviceUrl}/exb/exit/complete/${COURSE}/${CLASSIC}/`));
    await simulator.getByText('Configuration', { exact: true }).click();
    await shoot(simulator, '08-simulated-exam-browser-configuration');
    await simulator.getByText('Configuration', { exact: true }).click();

    // The quiz page, signed in as the student, with the page API the real browser provides for this very address.
    const quiz = (await (await simulator.locator('#exb-sim-page').elementHandle())!.contentFrame())!;
    await quiz.waitForURL(`${dev.lmsUrl}/courses/${COURSE}/quizzes/201`, { timeout: PAGE_TIMEOUT_MS });
    await quiz.locator('#take_quiz_link').waitFor();
    const api = await quiz.evaluate(() => {
      const exb = (window as unknown as { SafeExamBrowser: { version: string; security: { configKey: string } } }).SafeExamBrowser;
      return { version: exb.version, configKey: exb.security.configKey, href: location.href };
    });
    expect(api.version).toBe('SEB_Windows_3.10.0_simulator');
    expect(api.configKey).toBe(configKeyHashFor(api.href, configKey));
    expect(await simulator.locator('#exb-sim-address').textContent()).toBe(`${dev.lmsUrl}/courses/${COURSE}/quizzes/201`);
    await shoot(simulator, '08-simulated-exam-browser-quiz-page');
    await shootNarrow(simulator, '08-simulated-exam-browser-quiz-page');
    expect(await seriousViolations(simulator, { exclude: ['#exb-sim-page'] })).toEqual([]);
    // The student's ordinary window is no exam browser: the same LMS page there has no page API.
    await page.goto(`${dev.lmsUrl}/courses/${COURSE}`);
    expect(await page.evaluate(() => 'SafeExamBrowser' in window)).toBe(false);

    // The detector proves the configuration, fills the access code and the quiz opens, with the approved tool.
    await quiz.locator('#take_quiz_link').click();
    await quiz.locator('#submit_quiz_form').waitFor({ timeout: PAGE_TIMEOUT_MS });
    const panel = quiz.locator('[data-exb-panel]');
    await panel.getByRole('link', { name: TOOL.label }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await panel.getByRole('link', { name: TOOL.label }).getAttribute('href')).toBe(TOOL.url);
    await shoot(simulator, '09-quiz-open-with-tools');

    await quiz.locator('#submit_quiz_button').click();
    const exit = panel.getByRole('link', { name: 'Exit the exam browser' });
    await exit.waitFor({ timeout: PAGE_TIMEOUT_MS });
    await shoot(simulator, '10-quiz-submitted-exit-link');
    await exit.click();
    await quiz.getByRole('heading', { name: 'Your quiz is submitted' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await simulator.locator('#exb-sim-address').textContent()).toBe('a page of another site (the exam service)');
    await shoot(simulator, '11-exit-page');
    // The window's own close is held back until the notice has been photographed and checked; it is asked for all the same.
    await simulator.evaluate(() => {
      const held = window as unknown as { closeAsked: boolean; realClose: () => void };
      held.closeAsked = false;
      held.realClose = window.close.bind(window);
      window.close = () => {
        held.closeAsked = true;
      };
    });
    await quiz.getByRole('link', { name: 'Leave the exam browser' }).click();
    // The configuration's quit URL: the real exam browser quits there instead of showing the page, and so does the
    // simulated one, which says so and closes its window.
    await simulator.getByRole('heading', { name: 'The exam browser quits here' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await simulator.locator('#exb-sim-address').textContent()).toBe(quitUrl);
    expect(await simulator.locator('#exb-sim-page').count()).toBe(0);
    expect(await simulator.locator('main').getByRole('status').textContent()).toContain('reached the configuration’s quit URL');
    await shoot(simulator, '12-quit-url-reached');
    await shootNarrow(simulator, '12-quit-url-reached');
    expect(await seriousViolations(simulator)).toEqual([]);
    await expect.poll(() => simulator.evaluate(() => (window as unknown as { closeAsked: boolean }).closeAsked), { timeout: PAGE_TIMEOUT_MS }).toBe(true);
    // The tool opened the window, so it may close itself.
    await Promise.all([
      simulator.waitForEvent('close', { timeout: PAGE_TIMEOUT_MS }),
      simulator.evaluate(() => (window as unknown as { realClose: () => void }).realClose()),
    ]);

    // The one-time download is spent: opening the same link again explains instead of showing the quiz.
    const again = await context.newPage();
    const response = await again.goto(handoff.testbedExamBrowserUrl as string);
    expect(response?.status()).toBe(410);
    await again.getByRole('heading', { name: 'The configuration could not be opened' }).waitFor();
    await shoot(again, '13-spent-link');
    await shootNarrow(again, '13-spent-link');
    // So is the start URL: opened again, it explains and leads back to the quiz.
    const restart = await again.goto(startUrl);
    expect(restart?.status()).toBe(410);
    await again.getByRole('heading', { name: 'This configuration was already started' }).waitFor();
    expect(await again.getByRole('link', { name: 'Back to the quiz' }).getAttribute('href')).toBe(`${dev.lmsUrl}/courses/${COURSE}/quizzes/201`);
    await shoot(again, '13-spent-start-url');
    await shootNarrow(again, '13-spent-start-url');
    await again.close();
  });

  it('a new quiz in an ordinary browser says to download here, and links to its download', async () => {
    const { page } = student;
    await page.goto(`${dev.lmsUrl}/courses/${COURSE}/assignments/301`);
    const panel = page.locator('[data-exb-panel]');
    await panel.getByRole('heading', { name: 'Secure exam browser required' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await panel.textContent()).toContain('Download its one-time configuration here, in this browser');
    await shoot(page, '14-new-quiz-ordinary-browser');
    const link = panel.getByRole('link', { name: 'Get the exam browser configuration' });
    expect(await link.getAttribute('href')).toBe(
      `${dev.serviceUrl}/exb/new-quiz/${COURSE}/${NEW_QUIZ}?lms_url=${encodeURIComponent(`${dev.lmsUrl}/courses/${COURSE}/assignments/301`)}`,
    );
    await link.click();
    expect(await waitForView(page, 'exb-required')).toMatchObject({ contentId: NEW_QUIZ, assessmentKind: 'newquiz' });
    await page.getByRole('button', { name: 'Download the configuration' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    // A New Quiz asks for its code inside its own frame, which the detector cannot fill: the student types it.
    expect(await page.getByText('The quiz then asks for its access code, which you type in yourself').count()).toBe(1);
    await shoot(page, '15-new-quiz-download-page');
    await shootNarrow(page, '15-new-quiz-download-page');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Download the configuration' }).click();
    const handoff = await waitForView(page, 'exb-launch-handoff');
    expect(handoff).toMatchObject({ available: true, testbedExamBrowserUrl: expect.any(String) });
    const launchUrl = handoff.exbLaunchUrl as string;
    const host = new URL(dev.serviceUrl).host;
    expect(launchUrl).toMatch(new RegExp(`^seb://${host}/exb/config/${COURSE}/${NEW_QUIZ}\\.seb\\?grant=[A-Za-z0-9_-]{43}$`));
    await page.getByRole('link', { name: TESTBED_LINK }).waitFor();
    await shootNarrow(page, '16-new-quiz-handoff');

    // The simulated exam browser, like the real one, starts for no other scheme: the contract's `exbs://` starts nothing.
    const { context } = student;
    const stray = await context.newPage();
    const refused = await stray.goto(`${dev.examBrowserUrl}?${new URLSearchParams({ launch: launchUrl.replace(/^seb:/, 'exb:') })}`);
    expect(refused?.status()).toBe(400);
    expect(await stray.locator('#exb-sim-problem').textContent()).toContain('opens only seb:// and sebs:// links');
    await shoot(stray, '16-new-quiz-exb-scheme-refused');
    await stray.close();

    // The refusal spent nothing: the page's own seb:// link opens the new quiz in the simulated exam browser.
    const [simulator] = await Promise.all([context.waitForEvent('page'), page.getByRole('link', { name: TESTBED_LINK }).click()]);
    await simulator.waitForURL(new RegExp(`^${dev.examBrowserUrl}/[A-Za-z0-9_-]{22}$`), { timeout: PAGE_TIMEOUT_MS });
    const assignment = (await (await simulator.locator('#exb-sim-page').elementHandle())!.contentFrame())!;
    await assignment.waitForURL(`${dev.lmsUrl}/courses/${COURSE}/assignments/301`, { timeout: PAGE_TIMEOUT_MS });
    await shoot(simulator, '16-new-quiz-simulated-exam-browser');
    await simulator.close();
  });

  it('an unknown address shows a page in the tool’s look with the way back; API clients get JSON', async () => {
    const { page } = await personBrowser({}, (_url, status) => status === 404);
    for (const [address, name] of [
      ['/no-such-page', '17-not-found'],
      ['/exb/launch/not-a-content-id', '18-not-found-malformed-launch'],
    ] as const) {
      const response = await page.goto(`${dev.serviceUrl}${address}`);
      expect(response?.status()).toBe(404);
      await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
      expect(await page.getByRole('link', { name: 'Return to the LMS' }).getAttribute('href')).toBe(dev.lmsUrl);
      await shoot(page, name);
      await shootNarrow(page, name);
      expect(await seriousViolations(page)).toEqual([]);
    }
    const json = await page.evaluate(async () => {
      const response = await fetch('/no-such-page', { headers: { accept: 'application/json' } });
      return { status: response.status, body: (await response.json()) as unknown };
    });
    expect(json).toEqual({ status: 404, body: { success: false, error_code: 'NOT_FOUND', message: 'Nothing is at this address.' } });
  });

  it('shows the pages without script errors or unexpected error answers', () => {
    expect(problems).toEqual([]);
  });
});
