import type { Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoSeed } from '../src/lms/index.js';
import { browserAvailable } from '../src/support/browser.js';
import { seriousViolations } from '../src/support/axe.js';
import { approveLmsAuthorization, callInFrame, CATCH_UP_TIMEOUT_MS, launchIntoToolFrame, PAGE_TIMEOUT_MS, waitForView } from '../src/support/tool-frame.js';
import { COURSE, QUIZ_ID, QUIZ_TITLE, StudentSession } from './student-session.js';

const EXEMPTION_HEADING = 'Your teacher has let you take this exam without the exam browser';
const REASON = 'Screen reader needed; the exam browser blocks it';
const SHEET_REASON = 'Campus network down during the midterm';

/** A student of the demo course whose LMS speaks German. */
const GERMAN_STUDENT = { id: 90, name: 'Jonas Becker', persona: 'student-de', label: 'German student', locale: 'de-DE' };

function seedWithGermanStudent() {
  const seed = demoSeed();
  seed.users.push({ ...GERMAN_STUDENT, email: 'jonas.becker@example.edu' });
  seed.enrollments = [...(seed.enrollments ?? []), { userId: GERMAN_STUDENT.id, courseId: Number(COURSE), type: 'student' }];
  return seed;
}

/**
 * Exam day in Chromium: a teacher exempts student 1 from the exam browser with a reason; the student launches the tool
 * in an ordinary browser and gets the access code once on their own page; the administrator prints a code sheet.
 */
describe.runIf(browserAvailable())('exam day: exemption from the exam browser and the code sheet', () => {
  // Set `E2E_SCREENSHOT_DIR` to keep screenshots of the pages for a look.
  let session: StudentSession;
  let accessCode: string;

  beforeAll(async () => {
    session = await StudentSession.start({
      oauthClientSecret: 'exam-day-exemption-oauth-client-secret',
      seed: seedWithGermanStudent(),
      screenshotsVariable: 'E2E_SCREENSHOT_DIR',
    });
    await session.requireExamBrowserForQuiz();
    accessCode = session.lms.state.quizzes.get(QUIZ_ID)!.accessCode!;
  }, 120_000);
  afterAll(async () => {
    await session?.close();
  });

  const visible = (frame: Frame, text: string | RegExp) => frame.locator('#root').getByText(text).first().waitFor({ timeout: PAGE_TIMEOUT_MS });

  async function studentPage(page: Page): Promise<Frame> {
    const frame = await launchIntoToolFrame(page, session.lms.launchPageUrl, 'Launch as student 1', session.serviceUrl);
    await waitForView(frame, 'student');
    return frame;
  }

  const WALK_STEP_MS = 120_000;

  it('the teacher exempts student 1 with a reason, and never sees the code', { timeout: WALK_STEP_MS }, async () => {
    const { page } = await session.newBrowser({ viewport: { width: 1000, height: 900 } });
    const frame = await launchIntoToolFrame(page, session.lms.launchPageUrl, 'Launch as instructor', session.serviceUrl);
    await waitForView(frame, 'teacher');
    await frame.getByRole('button', { name: `Settings of ${QUIZ_TITLE}` }).click({ timeout: PAGE_TIMEOUT_MS });
    const help = frame.getByRole('region', { name: 'Help one student' });
    await help.waitFor({ timeout: PAGE_TIMEOUT_MS });
    // Without a student the action is not offered; an id that is not a number is explained.
    expect(await help.getByRole('button', { name: 'Exempt from the exam browser' }).isDisabled()).toBe(true);
    await help.getByLabel('The student’s LMS user id').fill('sam');
    await visible(frame, 'Enter the student’s numeric LMS user id.');
    await help.getByLabel('The student’s LMS user id').fill('3');
    await help.getByRole('button', { name: 'Exempt from the exam browser: LMS user 3' }).click();

    const dialog = frame.getByRole('dialog', { name: 'Exempt LMS user 3 from the exam browser' });
    await dialog.waitFor({ timeout: PAGE_TIMEOUT_MS });
    // The reason is required: an empty one is refused in place, and the focus stays in the dialog.
    await dialog.getByRole('button', { name: 'Exempt', exact: true }).click();
    // The dialog is rendered outside the page's root, where InstUI puts its layers.
    await dialog.getByText('Give a reason for the exemption.').first().waitFor({ timeout: PAGE_TIMEOUT_MS });
    await dialog.getByLabel(/Reason \(required\)/).fill(REASON);
    await session.screenshot(page, 'exam-day-exempt-dialog', frame);
    expect(await seriousViolations(page, { frame: 'iframe[name="tool_content"]' })).toEqual([]);
    await dialog.getByRole('button', { name: 'Exempt', exact: true }).click();
    await visible(frame, /LMS user 3 is exempted until/);
    await dialog.waitFor({ state: 'hidden', timeout: PAGE_TIMEOUT_MS });
    await session.screenshot(page, 'exam-day-exempted', frame);
    expect(await frame.content()).not.toContain(accessCode);

    // The assessment's activity shows the grant.
    await frame.getByRole('region', { name: 'Activity' }).getByText('Student exempted from the exam browser').first().waitFor({ timeout: PAGE_TIMEOUT_MS });
    // The German student too, through the contract's REST path beside the others.
    const second = await callInFrame(frame, 'POST', `/api/quizzes/${COURSE}/${QUIZ_ID}/exb/exempt-student`, { lmsUserId: String(GERMAN_STUDENT.id), reason: REASON });
    expect(second).toMatchObject({ status: 200, body: { success: true, lmsUserId: String(GERMAN_STUDENT.id) } });
    expect(JSON.stringify(second.body)).not.toContain(accessCode);
    await page.close();
  });

  it('another student sees no exemption', async () => {
    const { page } = await session.newBrowser();
    const frame = await launchIntoToolFrame(page, session.lms.launchPageUrl, 'Launch as student 2', session.serviceUrl);
    const data = await waitForView(frame, 'student');
    expect(data.exemptions).toBeUndefined();
    expect(await frame.getByRole('heading', { name: EXEMPTION_HEADING }).count()).toBe(0);
    await page.close();
  });

  it('student 1 opens the tool in an ordinary browser at 360 px and gets the code once', { timeout: WALK_STEP_MS }, async () => {
    const { page } = await session.newBrowser({ viewport: { width: 360, height: 800 } });
    const frame = await studentPage(page);
    const panel = frame.getByRole('region', { name: EXEMPTION_HEADING });
    await panel.waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await frame.content()).not.toContain(accessCode);
    await session.screenshot(page, 'exam-day-student-exemption', frame);
    expect(await seriousViolations(page, { frame: 'iframe[name="tool_content"]' })).toEqual([]);

    // The keyboard reaches the button; the page asks with its session token (the frame may keep no cookie).
    const asked = page.waitForRequest((request) => request.url().endsWith(`/api/exb/exemption/${COURSE}/classicquiz_${QUIZ_ID}/release`));
    await panel.getByRole('button', { name: 'Show the access code' }).focus();
    await page.keyboard.press('Enter');
    const request = await asked;
    expect(request.headers()['x-exb-session-token']).toEqual(expect.any(String));
    const response = await request.response();
    expect(response?.headers()['cache-control']).toBe('no-store, max-age=0');
    await expect.poll(() => panel.getByTestId('exemption-code').textContent(), { timeout: PAGE_TIMEOUT_MS }).toBe(accessCode);
    await session.screenshot(page, 'exam-day-student-code-shown', frame);

    // Opened again, the page says it was used and shows no code.
    const again = await studentPage(page);
    const used = again.getByRole('region', { name: EXEMPTION_HEADING });
    await used.getByText(/You have used this exemption/).waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await used.getByRole('button', { name: 'Show the access code' }).count()).toBe(0);
    expect(await again.content()).not.toContain(accessCode);
    await session.screenshot(page, 'exam-day-student-used', again);
  });

  it('a German student at 360 px reads the exemption in German and gets the code once', { timeout: WALK_STEP_MS }, async () => {
    const { page } = await session.newBrowser({ viewport: { width: 360, height: 780 } });
    const frame = await launchIntoToolFrame(page, session.lms.launchPageUrl, `Launch as ${GERMAN_STUDENT.label}`, session.serviceUrl);
    expect(await waitForView(frame, 'student')).toMatchObject({ locale: 'de' });
    const panel = frame.getByRole('region', { name: 'Ihre Lehrkraft erlaubt Ihnen, diese Prüfung ohne den Exam-Browser abzulegen' });
    await panel.waitFor({ timeout: PAGE_TIMEOUT_MS });
    // Nothing scrolls sideways in the narrow frame.
    expect(await frame.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    expect(await seriousViolations(page, { frame: 'iframe[name="tool_content"]' })).toEqual([]);
    await session.screenshot(page, 'exam-day-student-exemption-german', frame);
    await panel.getByRole('button', { name: 'Zugangscode anzeigen' }).click();
    await expect.poll(() => panel.getByTestId('exemption-code').textContent(), { timeout: PAGE_TIMEOUT_MS }).toBe(accessCode);
    await panel.getByText(/Notieren oder kopieren Sie den Code jetzt/).waitFor({ timeout: PAGE_TIMEOUT_MS });
    await session.screenshot(page, 'exam-day-student-code-shown-german', frame);
    await page.close();
  });

  it('the administrator prints a code sheet of the course, with a reason', { timeout: WALK_STEP_MS }, async () => {
    const { page } = await session.newBrowser({ viewport: { width: 1000, height: 900 } });
    const tool = await launchIntoToolFrame(page, session.lms.launchPageUrl, 'Launch as administrator', session.serviceUrl);
    const authorize = tool.getByRole('button', { name: 'Authorize administrator access in the LMS' });
    await authorize.waitFor({ timeout: PAGE_TIMEOUT_MS });
    const [popup] = await Promise.all([page.waitForEvent('popup'), authorize.click()]);
    await approveLmsAuthorization(popup, session.lms.baseUrl, session.serviceUrl);
    await tool.getByRole('tab', { name: 'Connected courses' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    if (!popup.isClosed()) await popup.close();
    // The dashboard's catch-up connected the course whose quiz its teacher enforced.
    await tool.getByRole('tab', { name: 'Connected courses' }).click();
    await tool.getByRole('button', { name: 'Biology 101' }).click({ timeout: CATCH_UP_TIMEOUT_MS });

    await tool.getByRole('button', { name: 'Code sheet for an outage…' }).click({ timeout: PAGE_TIMEOUT_MS });
    const sheet = tool.getByRole('region', { name: 'Code sheet for an outage' });
    await sheet.getByText(/A printed code lets anyone who reads it open the quiz/).waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await sheet.getByRole('checkbox', { name: QUIZ_TITLE }).isChecked()).toBe(true);
    await sheet.getByRole('button', { name: 'Show the codes to print' }).click();
    await visible(tool, 'Give a reason for printing the codes.');
    expect(await tool.content()).not.toContain(accessCode);
    await sheet.getByLabel(/Reason \(required\)/).fill(SHEET_REASON);
    await sheet.getByRole('button', { name: 'Show the codes to print' }).click();
    const table = sheet.getByRole('table', { name: 'Access codes of Biology 101' });
    await table.waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await table.getByRole('row', { name: new RegExp(QUIZ_TITLE) }).getByRole('cell').textContent()).toBe(accessCode);
    await session.screenshot(page, 'exam-day-code-sheet', tool);
    expect(await seriousViolations(page, { frame: 'iframe[name="tool_content"]' })).toEqual([]);

    // Printed, only the sheet shows.
    await page.emulateMedia({ media: 'print' });
    expect(await tool.getByRole('button', { name: 'Print' }).isVisible()).toBe(false);
    // (Located by its class: in print every ancestor of the sheet is hidden, so no role of theirs is found.)
    expect(await tool.locator('.exb-code-sheet table').isVisible()).toBe(true);
    expect(await tool.getByRole('heading', { name: 'Biology 101', level: 2 }).isVisible()).toBe(false);
    // The frame prints its own document from the top, where the sheet is placed.
    await tool.evaluate(() => window.scrollTo(0, 0));
    await session.screenshot(page, 'exam-day-code-sheet-print');
    await page.emulateMedia({ media: 'screen' });

    // Hidden again, the codes leave the page.
    await sheet.getByRole('button', { name: 'Hide the codes' }).click();
    expect(await tool.content()).not.toContain(accessCode);
    await page.close();
  });

  it('the service kept the code out of every audit entry', async () => {
    const rows = await session.app.db.orm.em
      .getConnection()
      .execute<{ action: string; outcome: string; details: unknown }[]>(
        `select action, outcome, details from audit_entry where action like 'exam-day.%' order by occurred_at`,
      );
    expect(rows.map(({ action, outcome }) => [action, outcome])).toEqual([
      ['exam-day.exempt', 'success'],
      ['exam-day.exempt', 'success'],
      ['exam-day.exemption-use', 'success'],
      ['exam-day.exemption-use', 'success'],
      ['exam-day.code-sheet', 'success'],
    ]);
    expect(JSON.stringify(rows)).not.toContain(accessCode);
    expect(session.problems).toEqual([]);
  });
});
