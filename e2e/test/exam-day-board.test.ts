import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../src/support/axe.js';
import { browserAvailable } from '../src/support/browser.js';
import { approveLmsAuthorization, launchIntoToolFrame, PAGE_TIMEOUT_MS } from '../src/support/tool-frame.js';
import { TeacherSession, type ConnectWords } from './teacher-session.js';

/**
 * The exam-day board as a teacher watches it: a tab per enforced assessment, each student's state changing live
 * (within the 2 seconds the board promises, far below its 10-second polling), the filters, the CSV download, the
 * German page and a 360 px frame. The student's steps are written into `exb_exam_day_student` with SQL, as the student
 * flow's statements write that table.
 */
const COURSE = '101';
const MIDTERM = 'classicquiz_201';

async function enableMidterm(s: TeacherSession, refresh: string): Promise<void> {
  const statuses = await s.tool.evaluate(async (course) => {
    const call = async (method: string, url: string, body: unknown = {}) =>
      (await fetch(url, { method, credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status;
    return [await call('PUT', `/api/quizzes/course/${course}/defaults`, { quitPassword: 'board-exit-1' }), await call('POST', `/api/quizzes/${course}/201/exb/enable`)];
  }, COURSE);
  expect(statuses).toEqual([200, 200]);
  await s.tool.getByRole('button', { name: refresh }).click();
}

/** A student's row, then one of their steps, in two statements as the student flow's launch and its later steps. */
async function step(s: TeacherSession, lmsUserId: string, name: string, set: string): Promise<void> {
  const sql = s.app.db.orm.em.getConnection();
  await sql.execute(
    `insert into exb_exam_day_student (course_id, content_id, lms_user_id, display_name, launched_at) values (?, ?, ?, ?, now())
     on conflict (course_id, content_id, lms_user_id) do nothing`,
    [COURSE, MIDTERM, lmsUserId, name],
  );
  await sql.execute(`update exb_exam_day_student set ${set}, updated_at = now() where course_id = ? and content_id = ? and lms_user_id = ?`, [
    COURSE,
    MIDTERM,
    lmsUserId,
  ]);
}

const narrowEnough = (s: TeacherSession) => s.tool.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1);

describe.runIf(browserAvailable())('the exam-day board in Chromium', { timeout: 180_000 }, () => {
  let s: TeacherSession;
  beforeAll(async () => {
    s = await TeacherSession.start({ screenshotsVariable: 'EXAM_DAY_SCREENSHOTS' });
    await s.connect();
  }, 120_000);
  afterAll(() => s?.close());
  afterEach(async (test) => {
    if (test.task.result?.state === 'fail' && s?.tool) await s.screenshot(`failed-${test.task.name.replace(/\W+/g, '-')}`).catch(() => {});
  });

  it('shows a student’s state change live, filters, and downloads the CSV', async () => {
    await enableMidterm(s, 'Refresh from LMS');
    await step(s, '3', 'Student Three', 'downloads = 1, last_download_at = now()');
    await step(s, '4', 'Student Four', 'launched_at = now()');
    await s.tool.getByRole('tab', { name: 'Exam day' }).click();
    const board = s.tool.getByTestId('exam-day-board');
    await s.visible(board, PAGE_TIMEOUT_MS);
    await s.visible(s.tool.getByRole('tab', { name: 'Midterm exam' }));
    await s.visible(board.getByTestId('board-live'), PAGE_TIMEOUT_MS);
    const row = (name: string) => board.getByRole('row').filter({ has: s.tool.getByRole('rowheader', { name }) });
    await s.visible(row('Student Three').getByText('Downloaded, exam browser not confirmed'));

    // The exam browser proves itself: the board shows it without a reload, well before its polling would.
    const written = Date.now();
    await step(s, '3', 'Student Three', 'proven_at = now()');
    await row('Student Three').getByText('Exam browser confirmed, code not released').waitFor({ timeout: 3_000 });
    expect(Date.now() - written).toBeLessThan(3_000);
    // The count change is announced politely, once, not row by row.
    await expect
      .poll(() => s.tool.locator('#exb-live-region').textContent(), { timeout: 10_000 })
      .toMatch(/Exam-day board updated\. Needs help: 1\./);
    await s.screenshot('exam-day-board');
    expect(await seriousViolations(s.page, { frame: 'iframe#tool_content' })).toEqual([]);

    // Filters: the students who need help, then a state nobody is in.
    await board.getByLabel('Show').click();
    await s.tool.getByRole('option', { name: 'Needs help' }).click();
    await expect.poll(() => board.getByRole('row').count()).toBe(2);
    await s.visible(row('Student Three'));
    await board.getByLabel('Show').click();
    await s.tool.getByRole('option', { name: 'Submitted' }).click();
    await s.visible(board.getByText('No student is in this state.'));
    // Keyboard: the filter opens and chooses with the keys.
    await board.getByLabel('Show').focus();
    await s.page.keyboard.press('ArrowDown');
    await s.page.keyboard.press('Home');
    await s.page.keyboard.press('Enter');
    await expect.poll(() => board.getByRole('row').count()).toBe(3);

    // The CSV, as the link downloads it: the board's rows with their states.
    const [download] = await Promise.all([s.page.waitForEvent('download'), board.getByRole('link', { name: 'Download as CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^exam-day-101-classicquiz_201-\d{4}-\d{2}-\d{2}\.csv$/);
    const text = await (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of (await download.createReadStream())!) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    })();
    const lines = text.trimEnd().split('\r\n');
    expect(lines[0]).toMatch(/^lms_user_id,name,state,/);
    expect(lines.slice(1).map((line) => line.split(',').slice(0, 3).join(','))).toEqual(['4,Student Four,not-started', '3,Student Three,proven-not-released']);

    // 360 px: the table stacks, nothing scrolls sideways.
    await s.page.setViewportSize({ width: 360, height: 800 });
    await s.visible(row('Student Three'));
    expect(await narrowEnough(s)).toBe(true);
    await s.screenshot('exam-day-board-360');
    expect(await seriousViolations(s.page, { frame: 'iframe#tool_content' })).toEqual([]);
    await s.page.setViewportSize({ width: 1100, height: 900 });
    expect(s.problems).toEqual([]);
  });

  it('reads the board every 10 seconds while its stream cannot be opened', async () => {
    const stream = '**/trpc/instructor.enforcement.examDayChanges**';
    // A proxy that does not pass server-sent events: the stream's answer is not an event stream.
    await s.page.route(stream, (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: 'no streams here' }));
    try {
      await s.tool.getByRole('tab', { name: 'Assessments' }).click();
      await s.tool.getByRole('tab', { name: 'Exam day' }).click();
      const board = s.tool.getByTestId('exam-day-board');
      await s.visible(board.getByTestId('board-polling'), PAGE_TIMEOUT_MS);
      const row = board.getByRole('row').filter({ has: s.tool.getByRole('rowheader', { name: 'Student Three' }) });
      await step(s, '3', 'Student Three', 'released_at = now()');
      await row.getByText('Code released, no attempt yet').waitFor({ timeout: 15_000 });
    } finally {
      await s.page.unroute(stream);
    }
    // The stream comes back on its own once it can be opened again.
    await s.visible(s.tool.getByTestId('board-live'), 40_000);
    const unexpected = s.problems.filter((problem) => !/examDayChanges|event-stream|EventSource/i.test(problem));
    expect(unexpected).toEqual([]);
    s.problems.length = 0;
  });

  it('the administrator sees the exam running on the dashboard and opens its board, live', async () => {
    const page = await s.context.newPage();
    const tool = await launchIntoToolFrame(page, s.lms.launchPageUrl, 'Launch as administrator', s.app.url!);
    const [popup] = await Promise.all([page.waitForEvent('popup'), tool.getByRole('button', { name: 'Authorize administrator access in the LMS' }).click({ timeout: PAGE_TIMEOUT_MS })]);
    await approveLmsAuthorization(popup, s.lms.baseUrl, s.app.url!);
    await popup.getByRole('heading', { name: 'Connected to the LMS' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    await popup.close();
    await tool.getByRole('tab', { name: 'Connected courses' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    const connected = await tool.evaluate(async (courseId) => {
      const { actionToken } = JSON.parse(document.getElementById('exb-bootstrap')!.textContent!) as { actionToken: string };
      const response = await fetch('/api/admin/courses/connect', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', 'x-exb-action-token': actionToken },
        body: JSON.stringify({ courseIds: [courseId] }),
      });
      return response.status;
    }, COURSE);
    expect(connected).toBe(200);
    await page.reload();
    const frame = page.frameLocator('iframe#tool_content');
    const running = frame.getByTestId('running-exams');
    await running.getByRole('rowheader', { name: 'Midterm exam' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    await running.getByRole('button', { name: 'Midterm exam' }).click();
    const board = frame.getByTestId('course-exam-day').getByTestId('exam-day-board');
    await board.getByTestId('board-live').waitFor({ timeout: PAGE_TIMEOUT_MS });
    const row = board.getByRole('row').filter({ has: frame.getByRole('rowheader', { name: 'Student Four' }) });
    await row.getByText('Not started').waitFor();
    await step(s, '4', 'Student Four', 'downloads = 1, last_download_at = now()');
    await row.getByText('Downloaded, exam browser not confirmed').waitFor({ timeout: 3_000 });
    await board.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${s.shots}/exam-day-admin.png`, fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });

  it('keeps a re-admission’s confirmation on screen and announced when the student leaves “Needs help”', async () => {
    const board = s.tool.getByTestId('exam-day-board');
    const row = (name: string) => board.getByRole('row').filter({ has: s.tool.getByRole('rowheader', { name }) });
    // Both students are stuck now: Three has the code but no attempt, Four never got the exam browser confirmed.
    await s.visible(row('Student Four').getByText('Downloaded, exam browser not confirmed'), PAGE_TIMEOUT_MS);
    await board.getByLabel('Show').click();
    await s.tool.getByRole('option', { name: 'Needs help' }).click();
    await expect.poll(() => board.getByRole('row').count()).toBe(3);
    await s.visible(row('Student Three').getByText('Code released, no attempt yet'));

    await row('Student Three').getByRole('button', { name: 'Re-admit Student Three' }).click();
    const dialog = s.tool.getByRole('dialog', { name: 'Re-admit Student Three' });
    await s.visible(dialog, PAGE_TIMEOUT_MS);
    await dialog.getByLabel(/Reason \(required\)/).fill('Exam browser crashed');
    await s.screenshot('exam-day-readmit-01-dialog');
    await dialog.getByRole('button', { name: 'Re-admit', exact: true }).click();
    await dialog.waitFor({ state: 'hidden', timeout: PAGE_TIMEOUT_MS });

    // The board read the student anew (not started again), and the row stayed, saying why it is still listed.
    await s.visible(row('Student Three').getByText('Not started'), 5_000);
    await s.visible(row('Student Three').getByText('Listed until you change the filter'));
    const confirmation = board.getByTestId('board-outcome');
    await s.visible(confirmation.getByText(/Student Three is re-admitted\./));
    await expect.poll(() => s.tool.locator('#exb-live-region').textContent(), { timeout: 5_000 }).toContain('Student Three is re-admitted.');
    await expect.poll(() => s.tool.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Re-admit Student Three');
    await s.screenshot('exam-day-readmit-02-kept');
    expect(await seriousViolations(s.page, { frame: 'iframe#tool_content' })).toEqual([]);

    await s.page.setViewportSize({ width: 360, height: 800 });
    await s.visible(confirmation);
    expect(await narrowEnough(s)).toBe(true);
    await s.screenshot('exam-day-readmit-03-kept-360');
    await s.page.setViewportSize({ width: 1100, height: 900 });

    // Choosing the filter again lets the row go; the confirmation stays until it is dismissed.
    await board.getByLabel('Show').click();
    await s.tool.getByRole('option', { name: 'All students' }).click();
    await board.getByLabel('Show').click();
    await s.tool.getByRole('option', { name: 'Needs help' }).click();
    await expect.poll(() => board.getByRole('row').count()).toBe(2);
    expect(await row('Student Three').count()).toBe(0);
    await s.visible(confirmation.getByText(/Student Three is re-admitted\./));
    await s.screenshot('exam-day-readmit-04-filter-again');
    await confirmation.getByRole('button', { name: 'Dismiss the message' }).click();
    await confirmation.waitFor({ state: 'detached', timeout: PAGE_TIMEOUT_MS });
    expect(s.problems).toEqual([]);
  });
});

const GERMAN: ConnectWords = {
  authorize: 'Tool im LMS autorisieren',
  refresh: 'Aus dem LMS aktualisieren',
  connected: /^LMS:\s*Verbunden$/,
};

describe.runIf(browserAvailable())('the exam-day board in German', { timeout: 180_000 }, () => {
  let s: TeacherSession;
  beforeAll(async () => {
    s = await TeacherSession.start({ screenshotsVariable: 'EXAM_DAY_SCREENSHOTS', locale: 'de' });
    await s.launch();
    await s.authorize(GERMAN);
    await s.tool.getByRole('button', { name: GERMAN.refresh }).click();
    await s.visible(s.tool.getByRole('rowheader', { name: 'Midterm exam' }), PAGE_TIMEOUT_MS);
  }, 120_000);
  afterAll(() => s?.close());

  it('speaks German, live, at 360 px', async () => {
    await enableMidterm(s, GERMAN.refresh);
    await s.tool.getByRole('tab', { name: 'Prüfungstag' }).click();
    const board = s.tool.getByTestId('exam-day-board');
    await s.visible(board.getByText('Noch niemand hat begonnen.').first(), PAGE_TIMEOUT_MS);
    await s.visible(board.getByTestId('board-live'), PAGE_TIMEOUT_MS);
    await step(s, '3', 'Student Three', 'downloads = 1, last_download_at = now()');
    const row = board.getByRole('row').filter({ has: s.tool.getByRole('rowheader', { name: 'Student Three' }) });
    await s.visible(row.getByText('Heruntergeladen, Prüfungsbrowser nicht bestätigt'), 3_000);
    await s.visible(board.getByRole('link', { name: 'Als CSV herunterladen' }));
    await s.visible(board.getByRole('columnheader', { name: 'Studierende' }));
    await s.page.setViewportSize({ width: 360, height: 800 });
    expect(await narrowEnough(s)).toBe(true);
    await s.screenshot('exam-day-board-de-360');
    expect(await seriousViolations(s.page, { frame: 'iframe#tool_content' })).toEqual([]);
    expect(s.problems).toEqual([]);
  });
});
