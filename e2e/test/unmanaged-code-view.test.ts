import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../src/support/axe.js';
import { browserAvailable } from '../src/support/browser.js';
import { PAGE_TIMEOUT_MS } from '../src/support/tool-frame.js';
import { TeacherSession } from './teacher-session.js';

/**
 * A course the LMS copied: its quizzes carry the access codes of the original course, which this tool does not manage
 * here. The teacher view marks them after a refresh, removes one code in the LMS and replaces another with its own.
 */
describe.runIf(browserAvailable())('access codes not managed here, in the teacher view', { timeout: 180_000 }, () => {
  let s: TeacherSession;

  beforeAll(async () => {
    s = await TeacherSession.start({ screenshotsVariable: 'UNMANAGED_CODE_SCREENSHOTS' });
    await s.settings.saveCourseDefaults('101', { courseId: '101', urlRules: [], externalTools: [], startPassword: null, exitPassword: 'leave-7', setupCompleted: true });
    // What a course copy leaves in the LMS: codes on a classic quiz and a New Quiz that nobody here enforces.
    s.lms.state.quizzes.get(202)!.accessCode = 'copied-practice-code';
    Object.assign(s.lms.state.newQuizSettings(301), { require_student_access_code: true, student_access_code: 'copied-final-code' });
  });
  afterAll(async () => {
    await s?.close();
  });
  afterEach(async (test) => {
    if (test.task.result?.state === 'fail' && s?.tool) await s.screenshot(`failed-${test.task.name.replace(/\W+/g, '-')}`).catch(() => {});
  });

  const tool = () => s.tool;
  const row = (title: string) => tool().getByRole('row').filter({ has: tool().getByRole('rowheader', { name: title, exact: true }) });
  const accessible = () => seriousViolations(s.page, { frame: 'iframe#tool_content' });
  const noSidewaysScrolling = () => tool().evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1);
  const BADGE = 'Access code not managed here';

  it('marks the copied quizzes after a refresh, never showing their codes', async () => {
    await s.connect();
    for (const title of ['Weekly practice quiz', 'Final exam (New Quizzes)', 'Lab safety check']) await s.visible(row(title).getByText(BADGE));
    expect(await row('Midterm exam').getByText(BADGE).count()).toBe(0);
    await s.visible(row('Weekly practice quiz').getByText('for example one copied along with the course', { exact: false }));
    const text = await tool().evaluate(() => document.body.innerText);
    expect(text).not.toContain('copied-practice-code');
    expect(text).not.toContain('copied-final-code');
    await s.screenshot('01-marked');
    expect(await accessible()).toEqual([]);

    await s.page.setViewportSize({ width: 360, height: 900 });
    await s.visible(row('Weekly practice quiz').getByRole('button', { name: /^Remove the code in the LMS/ }));
    expect(await noSidewaysScrolling()).toBe(true);
    await s.screenshot('02-marked-360');
    expect(await accessible()).toEqual([]);
    await s.page.setViewportSize({ width: 1100, height: 900 });
  });

  it('removes one code in the LMS', async () => {
    await row('Weekly practice quiz').getByRole('button', { name: 'Remove the code in the LMS for Weekly practice quiz' }).click();
    await expect.poll(() => row('Weekly practice quiz').getByText(BADGE).count(), { timeout: PAGE_TIMEOUT_MS }).toBe(0);
    expect(s.lms.state.quizzes.get(202)!.accessCode).toBeNull();
    await s.screenshot('03-cleared');
  });

  it('replaces another with this tool’s own code', async () => {
    await row('Final exam (New Quizzes)').getByRole('button', { name: 'Replace it with this tool’s code for Final exam (New Quizzes)' }).click();
    await s.visible(row('Final exam (New Quizzes)').getByText('Exam browser required'), PAGE_TIMEOUT_MS);
    await expect.poll(() => row('Final exam (New Quizzes)').getByText(BADGE).count()).toBe(0);
    const settings = s.lms.state.newQuizSettings(301);
    expect(settings.require_student_access_code).toBe(true);
    expect(settings.student_access_code).not.toBe('copied-final-code');
    expect((await s.settings.loadAssessmentSettings('101', 'newquiz:101:301'))!.accessCode).toBe(settings.student_access_code);
    await s.screenshot('04-adopted');
    expect(await accessible()).toEqual([]);
  });

  it('shows the mark in German, also at 360 px', async () => {
    s.lms.state.users.get(2)!.locale = 'de';
    await s.launch();
    await expect.poll(() => tool().evaluate(() => document.documentElement.lang), { timeout: PAGE_TIMEOUT_MS }).toBe('de');
    await s.visible(row('Lab safety check').getByText('Fremder Zugangscode', { exact: true }), PAGE_TIMEOUT_MS);
    await s.visible(row('Lab safety check').getByRole('button', { name: 'Code im LMS entfernen für Lab safety check' }));
    await s.visible(row('Lab safety check').getByRole('button', { name: 'Durch den Code dieses Tools ersetzen für Lab safety check' }));
    await s.screenshot('05-german');
    expect(await accessible()).toEqual([]);
    await s.page.setViewportSize({ width: 360, height: 900 });
    expect(await noSidewaysScrolling()).toBe(true);
    await s.screenshot('06-german-360');
    expect(await accessible()).toEqual([]);
    expect(s.problems).toEqual([]);
  });
});
