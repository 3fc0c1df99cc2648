import type { Frame } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable } from '../src/support/browser.js';
import { approveLmsAuthorization, PAGE_TIMEOUT_MS } from '../src/support/tool-frame.js';
import { useAdminSession } from './admin-session.js';

const TITLE = 'Example University: exam browser administration';

/**
 * The refusals the steps provoke on purpose: enabling without an exit password and a new code for a quiz without
 * enforcement (409), and a refresh with a revoked grant (401). Any other error answer of the service is a problem.
 */
function provokedRefusal(url: string, status: number): boolean {
  const procedures = decodeURIComponent(new URL(url).pathname.replace(/^\/trpc\//, '')).split(',');
  const provoked: Record<number, string[]> = {
    401: ['admin.courses.refresh'],
    409: ['admin.assessments.setRequired', 'admin.assessments.regenerateCode'],
  };
  return url.includes('/trpc/') && procedures.some((procedure) => (provoked[status] ?? []).includes(procedure));
}

describe.runIf(browserAvailable())('the administrator dashboard in Chromium', { timeout: 180_000 }, () => {
  // Screenshots of every step, to be looked at: `ADMIN_VIEW_SCREENSHOTS` or a fresh temporary folder.
  const s = useAdminSession({ name: 'admin-view', screenshotsVariable: 'ADMIN_VIEW_SCREENSHOTS', provokedRefusal, clock: true });
  let tool: Frame;
  const mutationTokens: string[] = [];

  beforeAll(() => {
    s.page.on('request', (request) => {
      const token = request.headers()['x-exb-action-token'];
      if (token !== undefined) mutationTokens.push(token);
    });
  });

  function row(name: string) {
    return tool.getByRole('row').filter({ has: tool.getByRole('rowheader', { name, exact: false }) });
  }

  it('launches as the root administrator and asks for the administrator authorization', async () => {
    tool = await s.launch();
    await expect.poll(() => tool.getByRole('heading', { level: 1 }).textContent(), { timeout: PAGE_TIMEOUT_MS }).toBe(TITLE);
    await s.visible(tool.getByRole('button', { name: 'Authorize administrator access in the LMS' }));
    expect(await tool.getByRole('tab').count()).toBe(0);
    await s.screenshot('01-authorize');
  });

  it('authorizes in a popup and shows the empty dashboard', async () => {
    const [popup] = await Promise.all([s.page.waitForEvent('popup'), tool.getByRole('button', { name: 'Authorize administrator access in the LMS' }).click()]);
    await approveLmsAuthorization(popup, s.lms.baseUrl, s.app.url!);
    await s.visible(popup.getByRole('heading', { name: 'Connected to the LMS' }));
    await popup.close();
    await s.visible(tool.getByRole('tab', { name: 'Connected courses' }), PAGE_TIMEOUT_MS);
    await s.visible(tool.getByText('No courses are connected yet.'));
    await s.visible(tool.getByText('Connected courses').first());
    await s.screenshot('02-empty-dashboard');
    expect(await s.accessibilityViolations()).toEqual([]);
  });

  it('connects courses from the catalog, answering each course', async () => {
    await tool.getByRole('tab', { name: 'Connect courses' }).click();
    await s.visible(tool.getByRole('rowheader', { name: /Biology 101/ }), PAGE_TIMEOUT_MS);
    for (const name of ['Biology 101', 'Chemistry 201']) await tool.getByLabel(`Select ${name}`).click({ force: true });
    await tool.getByRole('button', { name: 'Connect 2 selected courses' }).click();
    await s.visible(tool.getByText('Connected 2 courses.'));
    await s.visible(row('Biology 101').getByText('Connected'));
    expect(await s.accessibilityViolations()).toEqual([]);
    await s.screenshot('03-catalog-connected');
  });

  it('connects pasted ids and addresses, explaining the ones it could not', async () => {
    const paste = tool.getByLabel('Course ids or course addresses');
    await paste.fill(`${s.lms.baseUrl}/courses/104/quizzes, 170 not-a-course`);
    await s.visible(tool.getByText('2 courses recognized; not recognized: not-a-course.'));
    await tool.getByRole('button', { name: 'Connect 2 courses' }).click();
    await s.visible(tool.getByText('Connected 1 of 2 courses.', { exact: false }));
    await s.visible(tool.getByText('Check the id, or connect it from the school it belongs to.', { exact: false }));
    await s.screenshot('04-paste-partly-refused');
    await paste.fill(Array.from({ length: 51 }, (_, index) => String(1000 + index)).join('\n'));
    await s.visible(tool.getByText('51 courses recognized: connect at most 50 at a time.'));
    expect(await tool.getByRole('button', { name: 'Connect 51 courses' }).isDisabled()).toBe(true);
    await s.screenshot('05-paste-too-many');
    await paste.fill('');
  });

  it('lists, searches and filters the connected courses and sets the operational term', async () => {
    await tool.getByRole('tab', { name: 'Connected courses' }).click();
    await s.visible(tool.getByRole('button', { name: 'History 110' }));
    await s.visible(tool.getByRole('button', { name: 'Chemistry 201' }));
    await tool.getByLabel('Search connected courses').fill('  chem  ');
    await expect.poll(() => tool.getByRole('button', { name: 'Biology 101' }).count()).toBe(0);
    await s.visible(tool.getByRole('button', { name: 'Chemistry 201' }));
    await tool.getByLabel('Search connected courses').fill('zzz');
    await s.visible(tool.getByText('No connected course matches “zzz”.'));
    await s.screenshot('06-search-nothing');
    await tool.getByLabel('Search connected courses').fill('');
    await s.visible(tool.getByRole('button', { name: 'Biology 101' }));

    await tool.getByLabel('Operational term').click();
    await tool.getByRole('option', { name: /^Spring 2026/ }).click();
    await s.visible(tool.getByText('Operational term: Spring 2026'));
    await tool.getByLabel('Operational term').click();
    await tool.getByRole('option', { name: /^Fall 2026/ }).click();
    await s.visible(tool.getByText('Operational term: Fall 2026'));
    await tool.getByLabel('Include past courses').click({ force: true });
    await s.visible(tool.getByRole('button', { name: 'Biology 101' }));
    await s.screenshot('07-course-list');
  });

  it('opens a course, refreshes it, and needs an exit password before enforcing', async () => {
    await tool.getByRole('button', { name: 'Biology 101' }).click();
    await s.visible(tool.getByRole('heading', { name: 'Biology 101', level: 2 }));
    expect(await tool.evaluate(() => document.activeElement?.textContent)).toBe('Biology 101');
    await tool.getByRole('button', { name: 'Refresh from LMS' }).click();
    await s.visible(tool.getByText('Found 6 quizzes in the LMS.'));
    await s.visible(tool.getByRole('rowheader', { name: /Midterm exam/ }));
    await tool.getByLabel('Require the exam browser for Midterm exam').click({ force: true });
    await s.visible(tool.getByText('An exit password is needed first', { exact: false }));
    expect(s.lms.state.quizzes.get(201)!.accessCode).toBeNull();
    await s.screenshot('08-exit-password-needed');
  });

  it('sets a new random exit password, shown once with a countdown', async () => {
    await tool.getByRole('button', { name: 'New exit password' }).click();
    await tool.getByRole('button', { name: 'Replace exit password' }).click();
    const shown = tool.getByText(/^New exit password \(hidden in \d+ s\)$/);
    await s.visible(shown);
    const value = await tool.locator('code.exb-value').textContent();
    expect(value).toMatch(/^[0-9a-z]{4}(-[0-9a-z]{4}){3}$/);
    await s.screenshot('09-new-exit-password');
    await s.page.clock.fastForward(31_000);
    await expect.poll(() => shown.count()).toBe(0);
    expect(await tool.getByText(value!).count()).toBe(0);
  });

  it('enforces a classic and a new quiz in the LMS', async () => {
    for (const title of ['Midterm exam', 'Final exam (New Quizzes)']) {
      await tool.getByLabel(`Require the exam browser for ${title}`).click({ force: true });
      await s.visible(row(title).getByText('Required', { exact: true }));
    }
    expect(s.lms.state.quizzes.get(201)!.accessCode).toMatch(/^[0-9a-z]{24}$/);
    expect(s.lms.state.assignments.get(301)!.newQuiz!.quizSettings.require_student_access_code).toBe(true);
    await s.screenshot('10-enforced');
    expect(await s.accessibilityViolations()).toEqual([]);
  });

  it('reveals an assessment’s passwords and access code for 30 seconds, and rotates the code', async () => {
    await tool.getByRole('button', { name: 'Passwords and codes of Midterm exam' }).click();
    await s.visible(tool.getByRole('heading', { name: 'Midterm exam', level: 3 }));
    // The panel's heading takes focus, so keyboard users start at what opened.
    expect(await tool.evaluate(() => document.activeElement?.textContent)).toBe('Midterm exam');
    const actions = tool.getByRole('region', { name: 'Midterm exam' });
    await actions.getByRole('button', { name: 'Reveal passwords' }).click();
    const code = s.lms.state.quizzes.get(201)!.accessCode!;
    await s.visible(tool.getByRole('definition').filter({ hasText: code }));
    await s.visible(tool.getByText('As set in the LMS'));
    await s.visible(tool.getByText(/Hidden in \d+ s/));
    await s.screenshot('11-assessment-revealed');
    await s.page.clock.fastForward(31_000);
    await expect.poll(() => tool.getByText(code).count()).toBe(0);

    await tool.getByRole('button', { name: 'New access code' }).click();
    await tool.getByRole('button', { name: 'Replace the access code' }).click();
    await s.visible(tool.getByText('A new access code is in place', { exact: false }));
    expect(s.lms.state.quizzes.get(201)!.accessCode).not.toBe(code);
    await tool.getByRole('button', { name: 'Reset to course defaults' }).click();
    await s.visible(tool.getByText('The assessment uses the course defaults again.'));
    await tool.getByRole('button', { name: 'Use the course exit password' }).click();
    await s.visible(tool.getByText('The assessment uses the course’s exit password again.'));
    await tool.getByRole('button', { name: 'Close the actions of Midterm exam' }).click();
    await expect.poll(() => tool.evaluate(() => document.activeElement?.textContent ?? '')).toContain('Passwords and codes');

    // Wrong order: a new code for a quiz that does not require the exam browser is refused with what to do.
    await tool.getByRole('button', { name: 'Passwords and codes of Weekly practice quiz' }).click();
    await tool.getByRole('button', { name: 'New access code' }).click();
    await tool.getByRole('button', { name: 'Replace the access code' }).click();
    await s.visible(tool.getByText('Require the exam browser for this quiz first', { exact: false }));
    await s.screenshot('12-new-code-refused');
    await tool.getByRole('button', { name: 'Close the actions of Weekly practice quiz' }).click();
  });

  it('switches enforcement with the keyboard, keeping the focus on the switch', async () => {
    const toggle = tool.getByLabel('Require the exam browser for Weekly practice quiz');
    await toggle.focus();
    await s.page.keyboard.press('Space');
    await s.visible(row('Weekly practice quiz').getByText('Required', { exact: true }));
    expect(s.lms.state.quizzes.get(202)!.accessCode).toEqual(expect.any(String));
    expect(await toggle.evaluate((input) => input === document.activeElement)).toBe(true);
    await s.page.keyboard.press('Space');
    await s.visible(row('Weekly practice quiz').getByText('Not required', { exact: true }));
    expect(await toggle.evaluate((input) => input === document.activeElement)).toBe(true);
  });

  it('renews the action token while the page stays open', async () => {
    const first = mutationTokens.at(-1);
    expect(first).toEqual(expect.stringMatching(/^v1\.admin-mutation\./));
    // Half of the token's ten minutes later, the page asked for a new one.
    await s.page.clock.fastForward(5 * 60_000 + 1_000);
    await s.page.clock.runFor(1_000);
    await tool.getByLabel('Require the exam browser for Weekly practice quiz').click({ force: true });
    await s.visible(row('Weekly practice quiz').getByText('Required', { exact: true }));
    expect(mutationTokens.at(-1)).not.toBe(first);
  });

  it('fits a narrow LMS frame without scrolling sideways', async () => {
    await s.page.setViewportSize({ width: 560, height: 900 });
    await s.visible(tool.getByRole('rowheader', { name: /Midterm exam/ }));
    await expect.poll(() => s.fitsWidth(), { timeout: PAGE_TIMEOUT_MS }).toBe(true);
    await s.screenshot('13-narrow-course');
    await tool.getByRole('button', { name: 'All courses' }).click();
    await s.visible(tool.getByRole('button', { name: 'Biology 101' }));
    await expect.poll(() => s.fitsWidth(), { timeout: PAGE_TIMEOUT_MS }).toBe(true);
    await s.screenshot('14-narrow-list');
    await tool.getByRole('tab', { name: 'Connect courses' }).click();
    await s.visible(tool.getByRole('rowheader', { name: /Biology 101/ }), PAGE_TIMEOUT_MS);
    // Stacked, each value stands under its own column's name, past the unnamed column of checkboxes.
    await s.visible(row('Biology 101').getByText('Term: Fall 2026'));
    await s.visible(row('Biology 101').getByText('Teachers: Ian Instructor'));
    await expect.poll(() => s.fitsWidth(), { timeout: PAGE_TIMEOUT_MS }).toBe(true);
    await s.screenshot('15-narrow-catalog');
    await tool.getByRole('tab', { name: 'Connected courses' }).click();
    await s.page.setViewportSize({ width: 1100, height: 900 });
  });

  it('asks to authorize again when the LMS no longer accepts the grant, keeping the place', async () => {
    await tool.getByRole('button', { name: 'Biology 101' }).click();
    for (const record of s.lms.state.tokens.values()) if (record.userId === 1) s.lms.oauth.revoke(record);
    await tool.getByRole('button', { name: 'Refresh from LMS' }).click();
    await s.visible(tool.getByRole('heading', { name: 'Authorize administrator access again' }));
    await s.visible(tool.getByRole('heading', { name: 'Biology 101', level: 2 }));
    await s.screenshot('16-authorize-again');
    const [popup] = await Promise.all([s.page.waitForEvent('popup'), tool.getByRole('button', { name: 'Authorize administrator access in the LMS' }).click()]);
    await approveLmsAuthorization(popup, s.lms.baseUrl, s.app.url!);
    await s.visible(popup.getByRole('heading', { name: 'Connected to the LMS' }));
    await popup.close();
    await expect.poll(() => tool.getByRole('heading', { name: 'Authorize administrator access again' }).count(), { timeout: PAGE_TIMEOUT_MS }).toBe(0);
    await tool.getByRole('button', { name: 'Refresh from LMS' }).click();
    await s.visible(tool.getByText('Found 6 quizzes in the LMS.'));
    expect(s.problems).toEqual([]);
  });
});
