import type { Frame, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable } from '../src/support/browser.js';
import { seriousViolations } from '../src/support/axe.js';
import { approveLmsAuthorization, launchIntoToolFrame, PAGE_TIMEOUT_MS, waitForView } from '../src/support/tool-frame.js';
import type { OpenedConfiguration } from '../src/exb-simulator/index.js';
import { COURSE, QUIZ_ID, QUIZ_TITLE, StudentSession } from './student-session.js';

const SAM = 'Sam Student';
const SUE = 'Sue Student';
const READMIT_REASON = 'Exam browser crashed on the first computer';
const EXEMPT_REASON = 'Screen reader needed; the exam browser blocks it';
const EXEMPTION_HEADING = 'Your teacher has let you take this exam without the exam browser';
/** The board shows a step within 2 seconds; the margin covers a loaded machine. */
const LIVE_MS = 5_000;
const WALK_STEP_MS = 150_000;

/**
 * Exam day as a teacher lives it, in Chromium, with the real student flow: the development LMS, the service and the
 * simulated exam browser. Sam downloads the configuration but the exam browser never confirms itself; the teacher sees
 * it on the live board, re-admits Sam from the row with a reason, and watches Sam start again and get the code. Sue
 * is exempted from the row and gets the code on her own tool page in an ordinary browser.
 */
describe.runIf(browserAvailable())('exam day walk: a stuck student re-admitted, another exempted, from the board', () => {
  // Set `E2E_SCREENSHOT_DIR` to keep screenshots of the pages for a look.
  let session: StudentSession;
  let teacher: { page: Page; frame: Frame };
  let sam: Page;
  let stuckConfiguration: OpenedConfiguration;

  beforeAll(async () => {
    session = await StudentSession.start({ oauthClientSecret: 'exam-day-walk-oauth-client-secret', screenshotsVariable: 'E2E_SCREENSHOT_DIR' });
    await session.requireExamBrowserForQuiz();
  }, 120_000);
  afterAll(async () => {
    await session?.close();
  });
  afterEach(async (test) => {
    if (test.task.result?.state !== 'fail' || teacher === undefined) return;
    await session.screenshot(teacher.page, `failed-${test.task.name.replace(/\W+/g, '-')}`, teacher.frame).catch(() => undefined);
    const steps = await session.app.db.orm.em.getConnection().execute('select * from exb_exam_day_student');
    process.stderr.write(`exb_exam_day_student: ${JSON.stringify(steps)}\n`);
  });

  const board = () => teacher.frame.getByTestId('exam-day-board');
  const row = (name: string) => board().getByRole('row').filter({ has: teacher.frame.getByRole('rowheader', { name }) });
  const narrowEnough = (frame: Frame) => frame.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1);
  const toolFrame = 'iframe[name="tool_content"]';

  /** The student follows the quiz's link to the tool (the launch the board records, with the student's name). */
  async function openQuizLink(page: Page, label: string): Promise<void> {
    const frame = await launchIntoToolFrame(page, session.lms.launchPageUrl, `Open "${QUIZ_TITLE}" as ${label}`, session.serviceUrl);
    await waitForView(frame, 'exb-required');
  }

  /** The student's tool page, the download, and the handoff's launch URL (connecting the LMS account the first time). */
  async function downloadAsStudent(page: Page, label: string, connect: boolean): Promise<string> {
    const frame = await launchIntoToolFrame(page, session.lms.launchPageUrl, `Launch as ${label}`, session.serviceUrl);
    await waitForView(frame, 'student');
    await frame.getByRole('button', { name: `Download configuration for ${QUIZ_TITLE}` }).click({ timeout: PAGE_TIMEOUT_MS });
    if (connect) {
      const [popup] = await Promise.all([page.waitForEvent('popup'), frame.getByRole('button', { name: 'Connect your LMS account' }).click({ timeout: PAGE_TIMEOUT_MS })]);
      await approveLmsAuthorization(popup, session.lms.baseUrl, session.serviceUrl);
      await waitForView(popup, 'student-session-connected');
    }
    return session.handoffLaunchUrl(frame, 'student-list');
  }

  it('the teacher opens the live board of the exam', { timeout: WALK_STEP_MS }, async () => {
    const { page } = await session.newBrowser({ viewport: { width: 1100, height: 900 } });
    const frame = await launchIntoToolFrame(page, session.lms.launchPageUrl, 'Launch as instructor', session.serviceUrl);
    await waitForView(frame, 'teacher');
    teacher = { page, frame };
    await frame.getByRole('tab', { name: 'Exam day' }).click({ timeout: PAGE_TIMEOUT_MS });
    await frame.getByRole('tab', { name: QUIZ_TITLE }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    await board().getByTestId('board-live').waitFor({ timeout: PAGE_TIMEOUT_MS });
    await session.screenshot(page, 'walk-1-board-open', frame);
  });

  it('Sam downloads the configuration, the exam browser never confirms itself, and the board shows Sam stuck', { timeout: WALK_STEP_MS }, async () => {
    sam = (await session.newBrowser({ viewport: { width: 1000, height: 900 } })).page;
    await openQuizLink(sam, 'student 1');
    await row(SAM).getByText('Not started').waitFor({ timeout: LIVE_MS });
    const launchUrl = await downloadAsStudent(sam, 'student 1', true);
    // The exam browser downloads and opens the configuration, then never reaches the quiz (it crashed).
    stuckConfiguration = await session.openInSimulator(launchUrl);
    await row(SAM).getByText('Downloaded, exam browser not confirmed').waitFor({ timeout: LIVE_MS });
    // The filter of those who need help lists Sam.
    await board().getByLabel('Show').click();
    await teacher.frame.getByRole('option', { name: 'Needs help' }).click();
    await row(SAM).waitFor({ timeout: PAGE_TIMEOUT_MS });
    await session.screenshot(teacher.page, 'walk-2-sam-stuck', teacher.frame);
    expect(await seriousViolations(teacher.page, { frame: toolFrame })).toEqual([]);
    // Back to every student, so that the teacher sees Sam come through.
    await board().getByLabel('Show').click();
    await teacher.frame.getByRole('option', { name: 'All students' }).click();
  });

  it('the teacher re-admits Sam from the row with a reason, by keyboard', { timeout: WALK_STEP_MS }, async () => {
    const trigger = row(SAM).getByRole('button', { name: `Re-admit ${SAM}` });
    await trigger.focus();
    await teacher.page.keyboard.press('Enter');
    const dialog = teacher.frame.getByRole('dialog', { name: `Re-admit ${SAM}` });
    await dialog.waitFor({ timeout: PAGE_TIMEOUT_MS });
    await dialog.getByText(/starts again from the tool page/).waitFor();
    // The reason is required: an empty one is refused in place.
    await dialog.getByRole('button', { name: 'Re-admit', exact: true }).click();
    await dialog.getByText('Give a reason for the re-admission.').first().waitFor({ timeout: PAGE_TIMEOUT_MS });
    await dialog.getByLabel(/Reason \(required\)/).fill(READMIT_REASON);
    await session.screenshot(teacher.page, 'walk-3-readmit-dialog', teacher.frame);
    expect(await seriousViolations(teacher.page, { frame: toolFrame })).toEqual([]);
    await dialog.getByRole('button', { name: 'Re-admit', exact: true }).click();
    await dialog.waitFor({ state: 'hidden', timeout: PAGE_TIMEOUT_MS });
    // Back to the start: Sam is "not started" again.
    await row(SAM).getByText('Not started').waitFor({ timeout: LIVE_MS });
    await teacher.frame.locator('#root').getByText(new RegExp(`${SAM} is re-admitted`)).first().waitFor({ timeout: PAGE_TIMEOUT_MS });
    // The focus went back to the row's button.
    await expect.poll(() => teacher.frame.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(`Re-admit ${SAM}`);
    await session.screenshot(teacher.page, 'walk-4-sam-readmitted', teacher.frame);

    // The configuration Sam had no longer signs anyone in.
    const stale = await fetch(stuckConfiguration.startUrl!, { redirect: 'manual' });
    expect(stale.status).toBe(410);
  });

  it('Sam starts again, the exam browser gets the code, and the board follows live', { timeout: WALK_STEP_MS }, async () => {
    // Sam's browser, a fresh tab.
    sam = await sam.context().newPage();
    const opened = await session.openInSimulator(await downloadAsStudent(sam, 'student 1', false));
    await row(SAM).getByText('Downloaded, exam browser not confirmed').waitFor({ timeout: LIVE_MS });
    // This time the exam browser starts: it proves itself and the detector gets the code.
    const { page: examBrowser } = await session.proveAndRedeem(opened);
    await row(SAM).getByText(/^(Code released, no attempt yet|In progress)$/).waitFor({ timeout: LIVE_MS });
    await session.screenshot(examBrowser, 'walk-5-sam-in-exam-browser');
    await session.screenshot(teacher.page, 'walk-5-sam-through', teacher.frame);
    await examBrowser.close();
  });

  it('the teacher exempts Sue from her row at 360 px, and never sees the code', { timeout: WALK_STEP_MS }, async () => {
    // Sue opens the tool and appears on the board.
    const sue = (await session.newBrowser({ viewport: { width: 360, height: 800 } })).page;
    await openQuizLink(sue, 'student 2');
    await row(SUE).getByText('Not started').waitFor({ timeout: LIVE_MS });

    await teacher.page.setViewportSize({ width: 360, height: 800 });
    await row(SUE).getByRole('button', { name: `Exempt from the exam browser: ${SUE}` }).click({ timeout: PAGE_TIMEOUT_MS });
    const dialog = teacher.frame.getByRole('dialog', { name: `Exempt ${SUE} from the exam browser` });
    await dialog.waitFor({ timeout: PAGE_TIMEOUT_MS });
    await dialog.getByLabel(/Reason \(required\)/).fill(EXEMPT_REASON);
    expect(await narrowEnough(teacher.frame)).toBe(true);
    await session.screenshot(teacher.page, 'walk-6-exempt-dialog-360', teacher.frame);
    await dialog.getByRole('button', { name: 'Exempt', exact: true }).click();
    await dialog.waitFor({ state: 'hidden', timeout: PAGE_TIMEOUT_MS });
    await teacher.frame.locator('#root').getByText(new RegExp(`${SUE} is exempted until`)).first().waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await narrowEnough(teacher.frame)).toBe(true);
    await session.screenshot(teacher.page, 'walk-7-sue-exempted-360', teacher.frame);
    expect(await seriousViolations(teacher.page, { frame: toolFrame })).toEqual([]);
    expect(await teacher.frame.content()).not.toContain(session.lms.state.quizzes.get(QUIZ_ID)!.accessCode!);

    // Sue, in her ordinary browser, opens the tool again and gets the code once.
    const frame = await launchIntoToolFrame(sue, session.lms.launchPageUrl, 'Launch as student 2', session.serviceUrl);
    await waitForView(frame, 'student');
    const panel = frame.getByRole('region', { name: EXEMPTION_HEADING });
    await panel.waitFor({ timeout: PAGE_TIMEOUT_MS });
    await panel.getByRole('button', { name: 'Show the access code' }).click();
    await expect
      .poll(() => panel.getByTestId('exemption-code').textContent(), { timeout: PAGE_TIMEOUT_MS })
      .toBe(session.lms.state.quizzes.get(QUIZ_ID)!.accessCode);
    await session.screenshot(sue, 'walk-8-sue-code-shown-360', frame);
    await teacher.page.setViewportSize({ width: 1100, height: 900 });
    await session.screenshot(teacher.page, 'walk-9-board-after', teacher.frame);
  });

  it('the audit trail holds both actions with their reasons, and no code', async () => {
    const rows = await session.app.db.orm.em
      .getConnection()
      .execute<{ action: string; outcome: string; details: { studentLmsUserId?: string; student?: string; reason?: string } }[]>(
        `select action, outcome, details from audit_entry where action in ('exam-day.readmit', 'exam-day.exempt') order by occurred_at`,
      );
    expect(rows.map(({ action, outcome, details }) => [action, outcome, details.studentLmsUserId, details.reason])).toEqual([
      ['exam-day.readmit', 'success', '3', READMIT_REASON],
      ['exam-day.exempt', 'success', '4', EXEMPT_REASON],
    ]);
    expect(JSON.stringify(rows)).not.toContain(session.lms.state.quizzes.get(QUIZ_ID)!.accessCode!);
    expect(session.problems).toEqual([]);
  });
});
