import { AxeBuilder } from '@axe-core/playwright';
import type { Dialog, Locator } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable } from '../src/support/browser.js';
import { TeacherSession } from './teacher-session.js';

const EXIT_PASSWORD = 'leave-now-42';
const MIDTERM = 'classicquiz_201';
const LEAVE_WORDS = { title: 'Leave without saving?', text: 'The changes to the exam settings of Midterm exam are not saved.', stay: 'Keep editing' };

/**
 * The refusals the steps below provoke on purpose: invalid policies and tools (400). Any other error answer of the
 * service counts as a problem.
 */
function provokedRefusal(url: string, status: number): boolean {
  const procedures = decodeURIComponent(new URL(url).pathname.replace(/^\/trpc\//, '')).split(',');
  return status === 400 && procedures.some((name) => name === 'instructor.policy.saveStructured' || name === 'instructor.courseDefaults.save');
}

/**
 * The teacher's forms never claim what did not happen: a refusal stands at its field in the words of the form, the
 * enforcement switch waits for unsaved changes, and leaving with unsaved changes asks first (in the tool and in the
 * browser).
 */
describe.runIf(browserAvailable())('the teacher forms in Chromium', { timeout: 120_000 }, () => {
  let s: TeacherSession;

  beforeAll(async () => {
    s = await TeacherSession.start({ screenshotsVariable: 'TEACHER_FORMS_SCREENSHOTS', provokedRefusal });
  });
  afterAll(async () => {
    await s?.close();
  });
  afterEach(async (test) => {
    if (test.task.result?.state === 'fail' && s?.tool) await s.screenshot(`failed-${test.task.name.replace(/\W+/g, '-')}`).catch(() => {});
  });

  const tool = () => s.tool;
  const save = (name: string) => tool().getByRole('button', { name, exact: true }).click();
  const isFocused = (locator: Locator) => locator.evaluate((element) => element === document.activeElement);
  const pageText = () => tool().evaluate(() => document.body.innerText);

  /** Serious and critical accessibility violations inside the tool's frame (the LMS around it is not ours). */
  async function accessibilityProblems(): Promise<string[]> {
    const results = await new AxeBuilder({ page: s.page }).include('iframe#tool_content').analyze();
    return results.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => `${violation.id}: ${violation.nodes.map((node) => JSON.stringify(node.target)).join(', ')}`);
  }

  it('connects as a new instructor', async () => {
    await s.connect();
    await s.screenshot('01-connected');
  });

  it('refuses to call the setup complete while the course has no exit password, at the checkbox', async () => {
    await tool().getByRole('tab', { name: 'Course defaults' }).click();
    const setup = tool().getByLabel('The setup of this course is complete');
    await setup.click({ force: true });
    await save('Save course defaults');
    await s.visible(tool().getByText('Set a course exit password first', { exact: false }));
    expect(await isFocused(setup)).toBe(true);
    expect(await tool().getByText('Course defaults saved.').count()).toBe(0);
    expect((await s.settings.loadCourseDefaults('101'))?.setupCompleted ?? false).toBe(false);
    await s.screenshot('02-setup-refused');
    expect(await accessibilityProblems()).toEqual([]);

    // With an exit password entered in the same form, the setup can be complete.
    await tool().getByLabel(/^Set an exit password/).fill(EXIT_PASSWORD);
    await save('Save course defaults');
    await s.visible(tool().getByText('Course defaults saved.'));
    expect(await s.settings.loadCourseDefaults('101')).toMatchObject({ exitPassword: EXIT_PASSWORD, setupCompleted: true });
  });

  it('shows launch-address refusals at the field, opened and focused, in the words of the form', async () => {
    await tool().getByRole('button', { name: 'Add a tool' }).click();
    await tool().getByRole('group', { name: 'New tool 1' }).getByLabel('Name students see').fill('Calculator');
    const calculator = tool().getByRole('group', { name: 'Calculator' });
    const address = calculator.getByLabel('Launch address');
    const section = tool().getByRole('region', { name: 'Exam tools' });

    // Folded before saving: the refusal opens the tool and moves the focus to the address.
    await address.fill('http://calc.example.com/app');
    await calculator.getByRole('button', { name: 'Done Calculator' }).click();
    await save('Save course defaults');
    await s.visible(calculator.getByText('Only exact https:// URLs are allowed', { exact: false }));
    await expect.poll(() => isFocused(address)).toBe(true);
    expect(await address.getAttribute('aria-invalid')).toBe('true');
    expect(await section.getByRole('alert').count()).toBe(0);
    await s.screenshot('03-launch-address-refused');
    await s.screenshotOf(calculator, '03b-launch-address-detail');

    await address.fill('');
    await save('Save course defaults');
    await s.visible(calculator.getByText('Enter the launch address of the tool'));
    expect(await isFocused(address)).toBe(true);

    await address.fill('https://calc.example.com/');
    await save('Save course defaults');
    await s.visible(calculator.getByText('add the whole site to the other websites this tool needs', { exact: false }));
    expect(await pageText()).not.toMatch(/broadDomainConfirmed|Too small|expected string/);
    expect(await section.getByRole('alert').count()).toBe(0);

    // An address no filter expression can mean: an "@" the exam browser would read as a user name.
    await address.fill('https://calc.example.com/app?mail=ana%40school.example.org');
    await save('Save course defaults');
    await s.visible(calculator.getByText('Launch address: The exam browser reads what comes before an "@" as a user name', { exact: false }));
    expect(await address.getAttribute('aria-invalid')).toBe('true');
    await s.screenshotOf(calculator, '03c-launch-address-at-sign');

    await address.fill('https://calc.example.com/app');
    await save('Save course defaults');
    await s.visible(tool().getByText('Course defaults saved.'));
  });

  it('takes the site of a pasted address, and names the checkbox a whole site needs', async () => {
    await tool().getByRole('tab', { name: 'Assessments' }).click();
    await tool().getByRole('button', { name: 'Settings of Midterm exam' }).click();
    await s.visible(tool().getByRole('heading', { name: 'Midterm exam', level: 2 }));
    await tool().getByLabel('Use a list for this assessment').click({ force: true });
    await tool().getByRole('button', { name: 'Add a website' }).click();
    const first = tool().getByRole('group', { name: 'Website 1' });
    await first.getByLabel('Allow', { exact: true }).click();
    await tool().getByRole('option', { name: 'A whole site' }).click();
    const site = first.getByLabel('Site', { exact: true });

    // Typed: the address stays as typed until the field is left.
    await site.pressSequentially('https://en.wikipedia.org/wiki/Exam');
    expect(await site.inputValue()).toBe('https://en.wikipedia.org/wiki/Exam');
    await site.press('Tab');
    expect(await site.inputValue()).toBe('en.wikipedia.org');
    // Pasted: the site at once.
    await site.fill('');
    await site.dispatchEvent('paste');
    await site.fill('https://de.wikipedia.org/wiki/Pr%C3%BCfung?x=1');
    expect(await site.inputValue()).toBe('de.wikipedia.org');

    await save('Save settings');
    const confirmation = first.getByLabel('Allow de.wikipedia.org and every subdomain of it');
    await s.visible(first.getByText('tick “Allow de.wikipedia.org and every subdomain of it”', { exact: false }));
    await expect.poll(() => isFocused(confirmation)).toBe(true);
    expect(await pageText()).not.toMatch(/broadDomainConfirmed/);
    await s.screenshot('04-whole-site-confirmation');
    // The editor states what an exact rule allows beyond its address.
    await s.visible(tool().getByText('for an address without a query, allows any query (?page=2)', { exact: false }));
    await s.visible(tool().getByText('?book=42%26page=7 for ?book=42&page=7', { exact: false }));
    await s.screenshotOf(first, '04b-whole-site-detail');

    await confirmation.click({ force: true });
    await save('Save settings');
    await s.visible(tool().getByText('Exam settings saved.'));
    expect((await s.settings.loadAssessmentSettings('101', MIDTERM))?.urlRules).toEqual([
      expect.objectContaining({ match: 'domain', value: 'de.wikipedia.org', broadDomainConfirmed: true }),
    ]);
  });

  it('refuses an own exit password left empty at its field, instead of claiming a save', async () => {
    await tool().getByRole('radiogroup', { name: 'Exit password' }).getByLabel('Set one for this assessment').click({ force: true });
    const field = tool().getByLabel(/^Exit password for this assessment/);
    await save('Save settings');
    await s.visible(tool().getByText('Enter the exit password for this assessment', { exact: false }));
    expect(await isFocused(field)).toBe(true);
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await tool().getByText('Exam settings saved.').count()).toBe(0);
    expect(await tool().getByRole('radiogroup', { name: 'Exit password' }).getByLabel('Set one for this assessment').isChecked()).toBe(true);
    expect((await s.settings.loadAssessmentSettings('101', MIDTERM))?.exitPasswordOverride ?? null).toBeNull();
    await s.screenshot('05-own-exit-password-refused');

    await field.fill('own-exit-7');
    await save('Save settings');
    await s.visible(tool().getByText('Exam settings saved.'));
    expect((await s.settings.loadAssessmentSettings('101', MIDTERM))?.exitPasswordOverride).toBe('own-exit-7');
  });

  it('keeps the switch from acting while the form holds unsaved or refused changes', async () => {
    const toggle = tool().getByLabel('Require the exam browser for Midterm exam');
    expect(await toggle.isDisabled()).toBe(false);
    await tool().getByRole('button', { name: 'Add a website' }).click();
    await tool().getByRole('group', { name: 'Website 2' }).getByLabel('Page address').fill('https://library.example.edu/reserves');
    await expect.poll(() => toggle.isDisabled()).toBe(true);
    await s.visible(tool().getByText('Save or discard the changes below first', { exact: false }));
    // Screen readers hear why the switch cannot be used.
    const description = await toggle.evaluate((input) => document.getElementById(input.getAttribute('aria-describedby') ?? '')?.textContent);
    expect(description).toMatch(/^Save or discard the changes below first/);
    await s.visible(tool().getByText('Unsaved changes'));
    await toggle.click({ force: true });
    expect(s.lms.state.quizzes.get(201)!.accessCode).toBeNull();
    await s.screenshot('06-switch-waits');
    expect(await accessibilityProblems()).toEqual([]);

    // Refused: still unsaved, still waiting.
    await tool().getByRole('group', { name: 'Website 2' }).getByLabel('Page address').fill('http://library.example.edu/reserves');
    await save('Save settings');
    await s.visible(tool().getByRole('group', { name: 'Website 2' }).getByText('Only exact https:// URLs are allowed'));
    expect(await toggle.isDisabled()).toBe(true);
  });

  it('asks before "Back to assessments" and "All assessments" drop unsaved changes, and keeps them on "Keep editing"', async () => {
    for (const control of [tool().getByRole('button', { name: 'Back to assessments' }), tool().getByRole('button', { name: 'All assessments' })]) {
      await s.stayOnLeaveQuestion(control, LEAVE_WORDS, async () => {
        await s.screenshot('07-leave-question');
        expect(await accessibilityProblems()).toEqual([]);
      });
      expect(await tool().getByRole('group', { name: 'Website 2' }).getByLabel('Page address').inputValue()).toBe('http://library.example.edu/reserves');
      await expect.poll(() => isFocused(control)).toBe(true);
    }
  });

  /** Follows the tool's link back to the LMS, declining the browser's question; returns the questions asked. */
  async function tryLeavingForTheLms(): Promise<string[]> {
    const asked: string[] = [];
    const decline = (dialog: Dialog) => {
      asked.push(dialog.type());
      void dialog.dismiss();
    };
    s.page.on('dialog', decline);
    try {
      await tool().getByRole('link', { name: 'Back to the course in the LMS' }).click();
      await expect.poll(() => asked.length).toBeGreaterThan(0);
    } finally {
      s.page.off('dialog', decline);
    }
    return asked;
  }

  it('asks before the browser leaves the page with unsaved changes', async () => {
    expect(await tryLeavingForTheLms()).toEqual(['beforeunload']);
    // Staying keeps the page and what was typed.
    expect(await tool().getByRole('group', { name: 'Website 2' }).getByLabel('Page address').inputValue()).toBe('http://library.example.edu/reserves');
  });

  it('keeps unsaved changes while the teacher looks at the course defaults', async () => {
    await tool().getByRole('tab', { name: 'Course defaults' }).click();
    await s.visible(tool().getByRole('heading', { name: 'Course defaults', level: 2 }));
    await tool().getByRole('tab', { name: 'Assessments' }).click();
    expect(await tool().getByRole('group', { name: 'Website 2' }).getByLabel('Page address').inputValue()).toBe('http://library.example.edu/reserves');
  });

  it('discards on request, after which the switch acts again', async () => {
    await tool().getByRole('button', { name: 'Discard changes' }).click();
    await expect.poll(() => tool().getByRole('group', { name: 'Website 2' }).count()).toBe(0);
    const toggle = tool().getByLabel('Require the exam browser for Midterm exam');
    expect(await toggle.isDisabled()).toBe(false);
    expect(await tool().getByText('Save or discard the changes below first', { exact: false }).count()).toBe(0);

    // Leaving with nothing unsaved asks nothing.
    await tool().getByRole('button', { name: 'Back to assessments' }).click();
    await s.visible(tool().getByRole('rowheader', { name: 'Midterm exam' }));
    expect(await tool().getByRole('dialog').count()).toBe(0);
  });

  it('leaves without saving when the teacher says so, and the saved settings are what the editor shows again', async () => {
    await tool().getByRole('button', { name: 'Settings of Midterm exam' }).click();
    await tool().getByRole('button', { name: 'Add a website' }).click();
    await tool().getByRole('group', { name: 'Website 2' }).getByLabel('Page address').fill('https://library.example.edu/reserves');
    await tool().getByRole('button', { name: 'All assessments' }).click();
    await tool().getByRole('dialog', { name: 'Leave without saving?' }).getByRole('button', { name: 'Leave without saving' }).click();
    await s.visible(tool().getByRole('rowheader', { name: 'Midterm exam' }));
    await tool().getByRole('button', { name: 'Settings of Midterm exam' }).click();
    await s.visible(tool().getByRole('group', { name: 'Website 1' }));
    expect(await tool().getByRole('group', { name: 'Website 2' }).count()).toBe(0);
  });

  it('saves first, then the switch requires the exam browser in the LMS', async () => {
    await tool().getByRole('button', { name: 'Add a website' }).click();
    await tool().getByRole('group', { name: 'Website 2' }).getByLabel('Page address').fill('https://library.example.edu/reserves');
    const toggle = tool().getByLabel('Require the exam browser for Midterm exam');
    await expect.poll(() => toggle.isDisabled()).toBe(true);
    await save('Save settings');
    await s.visible(tool().getByText('Exam settings saved.'));
    await expect.poll(() => toggle.isDisabled()).toBe(false);
    await toggle.click({ force: true });
    await expect.poll(() => s.lms.state.quizzes.get(201)!.accessCode).toEqual(expect.any(String));
    await s.screenshot('08-saved-then-required');
  });

  it('fits a narrow LMS frame with the note and the question', async () => {
    await s.page.setViewportSize({ width: 560, height: 900 });
    await tool().getByRole('button', { name: 'Add a website' }).click();
    await tool().getByRole('group', { name: 'Website 3' }).getByLabel('Page address').fill('https://library.example.edu/hours');
    await s.visible(tool().getByText('Save or discard the changes below first', { exact: false }));
    expect(await tool().evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await s.screenshot('09-narrow-switch-waits');
    await tool().getByRole('button', { name: 'Back to assessments' }).click();
    await s.visible(tool().getByRole('dialog', { name: 'Leave without saving?' }));
    await s.screenshot('10-narrow-leave-question');
    await tool().getByRole('button', { name: 'Leave without saving' }).click();
    await s.page.setViewportSize({ width: 1100, height: 900 });
  });

  it('asks before the browser leaves unsaved course defaults too', async () => {
    await tool().getByRole('tab', { name: 'Course defaults' }).click();
    await tool().getByRole('button', { name: 'Add a website' }).click();
    await tool().getByRole('group', { name: 'Course website 1' }).getByLabel('Page address').fill('https://dictionary.example.org/define');
    expect(await tryLeavingForTheLms()).toEqual(['beforeunload']);
    expect(await tool().getByRole('group', { name: 'Course website 1' }).getByLabel('Page address').inputValue()).toBe(
      'https://dictionary.example.org/define',
    );
  });

  it('renders without script errors or unexpected refusals', () => {
    expect(s.problems).toEqual([]);
  });
});

describe.runIf(browserAvailable())('the course defaults where the school set a default exit password', { timeout: 120_000 }, () => {
  let s: TeacherSession;

  beforeAll(async () => {
    s = await TeacherSession.start({ screenshotsVariable: 'TEACHER_FORMS_SCREENSHOTS', env: { EXB_MANAGED_QUIT_PASSWORD: 'school-exit-9' } });
    await s.connect();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('asks for no course exit password in the reminder, and lets the setup be completed without one', async () => {
    const tool = s.tool;
    await s.visible(tool.getByText('Review the websites and tools every exam of the course allows', { exact: false }));
    expect(await tool.getByText('Set a course exit password', { exact: false }).count()).toBe(0);
    await tool.getByRole('tab', { name: 'Course defaults' }).click();
    await tool.getByLabel('The setup of this course is complete').click({ force: true });
    await tool.getByRole('button', { name: 'Save course defaults' }).click();
    await s.visible(tool.getByText('Course defaults saved.'));
    expect(await s.settings.loadCourseDefaults('101')).toMatchObject({ exitPassword: null, setupCompleted: true });
    await s.screenshot('11-school-default-setup-complete');
    expect(s.problems).toEqual([]);
  });
});
