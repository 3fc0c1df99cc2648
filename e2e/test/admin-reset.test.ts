import type { Frame } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSettingsRepository } from '../../server/src/domain/settings/settings-repository.js';
import type { MockLms } from '../src/lms/index.js';
import { browserAvailable } from '../src/support/browser.js';
import { PAGE_TIMEOUT_MS } from '../src/support/tool-frame.js';
import { useAdminSession } from './admin-session.js';

const PATCH_NEW_QUIZ = 'PATCH /api/quiz/v1/courses/:course_id/quizzes/:assignment_id';

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
  // Screenshots of every step, to be looked at: `ADMIN_RESET_SCREENSHOTS` or a fresh temporary folder.
  const s = useAdminSession({ name: 'admin-reset', screenshotsVariable: 'ADMIN_RESET_SCREENSHOTS', provokedRefusal, settleBeforeScreenshots: true });
  let tool: Frame;

  const dialog = () => tool.getByRole('dialog', { name: 'Reset Biology 101' });

  async function openDialog() {
    await tool.getByRole('button', { name: 'Reset course…' }).click();
    await s.visible(dialog());
  }

  it('gets an administrator to an enforced course', async () => {
    tool = await s.launch();
    await s.authorize(tool.getByRole('tab', { name: 'Connect courses' }));
    await tool.getByRole('tab', { name: 'Connect courses' }).click();
    await tool.getByLabel('Course ids or course addresses').fill('101');
    await tool.getByRole('button', { name: 'Connect 1 course' }).click();
    await s.visible(tool.getByText('Connected 1 course.'));
    await tool.getByRole('tab', { name: 'Connected courses' }).click();
    await tool.getByLabel('Include past courses').click({ force: true });
    await tool.getByRole('button', { name: 'Biology 101' }).click();
    await tool.getByRole('button', { name: 'Refresh from LMS' }).click();
    await s.visible(tool.getByText('Found 6 quizzes in the LMS.'));
    await tool.getByRole('button', { name: 'New exit password' }).click();
    await tool.getByRole('button', { name: 'Replace exit password' }).click();
    await s.visible(tool.getByText(/^New exit password/));
    for (const title of ['Midterm exam', 'Final exam (New Quizzes)']) {
      await tool.getByLabel(`Require the exam browser for ${title}`).click({ force: true });
      await s.visible(tool.getByRole('row').filter({ has: tool.getByRole('rowheader', { name: title, exact: false }) }).getByText('Required', { exact: true }));
    }
    expect(s.lms.state.quizzes.get(201)!.accessCode).toMatch(/^[0-9a-z]{24}$/);
    await s.screenshot('01-enforced-course');
  });

  it('shows what the reset removes and asks for the course id', async () => {
    await openDialog();
    await s.visible(dialog().getByText('In the LMS'));
    await s.visible(dialog().getByText('Midterm exam'));
    await s.visible(dialog().getByText('Final exam (New Quizzes)'));
    // Quiz 204's code was set by hand in the LMS, not by the tool: it is not listed and will stay.
    expect(await dialog().getByText('Lab safety check').count()).toBe(0);
    const confirm = dialog().getByRole('button', { name: 'Reset course' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog().getByLabel('Type the course id, 101, to confirm').fill('102');
    await s.visible(dialog().getByText('That is not 101.'));
    expect(await confirm.isDisabled()).toBe(true);
    await s.screenshot('02-preview-wrong-id', { stretch: false });
    expect(await s.accessibilityViolations()).toEqual([]);
    await dialog().getByLabel('Type the course id, 101, to confirm').fill('101');
    expect(await confirm.isDisabled()).toBe(false);
    await s.screenshot('03-preview-confirmed', { stretch: false });
  });

  it('says plainly that a reset the LMS refused half-way was rolled back, and nothing was lost', async () => {
    const before = lmsCodes(s.lms);
    s.lms.faults.next(PATCH_NEW_QUIZ, { kind: 'forbidden' });
    await dialog().getByRole('button', { name: 'Reset course' }).click();
    await s.visible(dialog().getByRole('heading', { name: 'Rolled back, nothing lost' }));
    await s.visible(dialog().getByText('every access code is back in place', { exact: false }));
    expect(lmsCodes(s.lms)).toEqual(before);
    await s.screenshot('04-rolled-back', { stretch: false });
    expect(await s.accessibilityViolations()).toEqual([]);
    await dialog().getByRole('button', { name: 'Close', exact: true }).click();
    await expect.poll(() => dialog().count()).toBe(0);
    // Focus is back on what opened the dialog.
    expect(await tool.evaluate(() => document.activeElement?.textContent ?? '')).toContain('Reset course');
    await s.visible(tool.getByRole('row').filter({ has: tool.getByRole('rowheader', { name: 'Midterm exam', exact: false }) }).getByText('Required', { exact: true }));
  });

  it('shows a progress indicator while the reset works, then that it is done', async () => {
    await openDialog();
    await dialog().getByLabel('Type the course id, 101, to confirm').fill('101');
    // The browser holds the request back a moment, so the running state can be seen.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await s.page.route('**/trpc/admin.courses.reset**', async (route) => {
      await held;
      await route.continue();
    });
    await dialog().getByRole('button', { name: 'Reset course' }).click();
    await s.visible(dialog().getByText('Removing the access codes in the LMS', { exact: false }));
    expect(await dialog().getByRole('button', { name: 'Resetting…' }).isDisabled()).toBe(true);
    expect(await dialog().getByRole('button', { name: /^Close/ }).count()).toBe(0);
    await s.screenshot('05-running', { stretch: false });
    release();
    await s.visible(dialog().getByRole('heading', { name: 'Done' }));
    await s.page.unroute('**/trpc/admin.courses.reset**');
    await s.visible(dialog().getByText('Biology 101 is reset: 6 quizzes cleared, 2 access codes removed in the LMS.'));
    await s.visible(dialog().getByText(/^Receipt [0-9a-f-]{36}, /));
    expect(s.lms.state.quizzes.get(201)!.accessCode).toBeNull();
    expect(s.lms.state.quizzes.get(204)!.accessCode).toBe('lab-2026');
    expect(s.lms.state.assignments.get(301)!.newQuiz!.quizSettings.require_student_access_code).toBe(false);
    await s.screenshot('06-done', { stretch: false });
    expect(await s.accessibilityViolations()).toEqual([]);
    await dialog().getByRole('button', { name: 'Done' }).click();
    await s.visible(tool.getByText('No quizzes are listed for this course yet.'));
    // The exit password set before the reset no longer applies, so it is no longer on screen.
    expect(await tool.getByText(/^New exit password \(hidden/).count()).toBe(0);
    await s.screenshot('07-after-reset');
  });

  it('explains a preview the LMS cannot identify, and fits a narrow frame', async () => {
    // The reset cleared the course's exit password; the course gets one again before a quiz is enforced.
    await createSettingsRepository(s.app.db, s.app.config.secrets.appSecret).saveCourseDefaults('101', {
      courseId: '101',
      urlRules: [],
      externalTools: [],
      startPassword: null,
      exitPassword: 'exit-again',
      setupCompleted: true,
    });
    await tool.getByRole('button', { name: 'Refresh from LMS' }).click();
    await s.visible(tool.getByText('Found 6 quizzes in the LMS.'));
    await tool.getByLabel('Require the exam browser for Final exam (New Quizzes)').click({ force: true });
    await s.visible(tool.getByRole('row').filter({ has: tool.getByRole('rowheader', { name: 'Final exam', exact: false }) }).getByText('Required', { exact: true }));
    const assignment = s.lms.state.assignments.get(301)!;
    const newQuiz = assignment.newQuiz;
    assignment.newQuiz = undefined as unknown as typeof newQuiz;
    try {
      await s.page.setViewportSize({ width: 560, height: 900 });
      await openDialog();
      await s.visible(dialog().getByText('The reset cannot start', { exact: false }));
      await s.visible(dialog().getByText('Final exam (New Quizzes)'));
      expect(await dialog().getByRole('button', { name: 'Reset course' }).isDisabled()).toBe(true);
      await expect.poll(() => s.fitsWidth(), { timeout: PAGE_TIMEOUT_MS }).toBe(true);
      await s.screenshot('08-narrow-cannot-start', { stretch: false });
      expect(await s.accessibilityViolations()).toEqual([]);
    } finally {
      assignment.newQuiz = newQuiz;
    }
    await dialog().getByRole('button', { name: 'Check again' }).click();
    await s.visible(dialog().getByLabel('Type the course id, 101, to confirm'));
    await expect.poll(() => s.fitsWidth(), { timeout: PAGE_TIMEOUT_MS }).toBe(true);
    await s.screenshot('09-narrow-preview', { stretch: false });
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await s.page.setViewportSize({ width: 1100, height: 900 });
    expect(s.problems).toEqual([]);
  });
});
