import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Frame, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSettingsRepository, type SettingsRepository } from '../../server/src/domain/settings/settings-repository.js';
import { freePort } from '../../server/src/free-port.js';
import { createTestApp, type TestApp } from '../../server/test/support/app.js';
import { createMockLms, type MockLms, type RunningLmsServer } from '../src/lms/index.js';
import { browserAvailable, launchBrowser, type LaunchedBrowser } from '../src/support/browser.js';
import { approveLmsAuthorization, launchIntoToolFrame, PAGE_TIMEOUT_MS, watchServiceProblems } from '../src/support/tool-frame.js';
import { screenshotFolder, type ScreenshotFolder } from './screenshot-folder.js';

const CLIENT_MANIFEST = fileURLToPath(new URL('../../client/dist/.vite/manifest.json', import.meta.url));
const CLIENT_ID = '10000000000001';
const DEPLOYMENT_ID = '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb';
const ISSUER = 'https://canvas.instructure.com';
const OAUTH_CLIENT_ID = '10000000000002';
const OAUTH_CLIENT_SECRET = 'teacher-view-secret';
const EXIT_PASSWORD = 'leave-now-42';

/** A tool the school rolled out to the course: the teacher may switch it off, not change it. */
const SCHOOL_TOOL = {
  id: 'school-dictionary',
  label: 'School dictionary',
  url: 'https://dictionary.school.example.edu/',
  resourceRules: [{ match: 'domain' as const, value: 'cdn.school.example.edu', broadDomainConfirmed: true }],
  managedByAdmin: true,
  presetId: '6f1c8a52-3d0e-4b7a-9d52-0d9b1f3e2a10',
  enabled: true,
};

// Each step drives several LMS round trips through a real browser.
/**
 * The refusals the steps below provoke on purpose: enabling before an exit password exists (409), invalid URL rules
 * (400) and a refresh with a revoked grant (401). Any other error answer of the service counts as a problem.
 */
function provokedRefusal(url: string, status: number): boolean {
  const procedures = decodeURIComponent(new URL(url).pathname.replace(/^\/trpc\//, '')).split(',');
  const provoked: Record<number, string> = {
    400: 'instructor.policy.saveStructured',
    401: 'instructor.assessments.refresh',
    409: 'instructor.enforcement.setRequired',
  };
  return url.includes('/trpc/') && procedures.includes(provoked[status] ?? '');
}

describe.runIf(browserAvailable())('the teacher view in Chromium', { timeout: 120_000 }, () => {
  let t: TestApp;
  let lms: MockLms;
  let lmsServer: RunningLmsServer;
  let browser: LaunchedBrowser;
  let context: BrowserContext;
  let page: Page;
  let tool: Frame;
  // Screenshots of every step, to be looked at: kept in `TEACHER_VIEW_SCREENSHOTS`, else removed after the test.
  let folder: ScreenshotFolder | undefined;
  let shots: string;
  let settings: SettingsRepository;
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
    // An administrator's preset rollout, as it leaves the course's catalog.
    settings = createSettingsRepository(t.db, t.config.secrets.appSecret);
    await settings.saveCourseDefaults('101', {
      courseId: '101',
      urlRules: [],
      externalTools: [SCHOOL_TOOL],
      startPassword: null,
      exitPassword: null,
      setupCompleted: false,
    });
    lms = createMockLms({
      baseUrl: lmsUrl,
      issuer: ISSUER,
      tool: {
        baseUrl: t.url!,
        clientId: CLIENT_ID,
        deploymentId: DEPLOYMENT_ID,
        oauthClientId: OAUTH_CLIENT_ID,
        oauthClientSecret: OAUTH_CLIENT_SECRET,
      },
    });
    lmsServer = await lms.startHttpServer();
    browser = await launchBrowser();
    context = await browser.browser.newContext({ viewport: { width: 1100, height: 900 } });
    // A controllable clock from the first page on, so the reveal's countdown can be run out without waiting for it.
    await context.clock.install();
    page = await context.newPage();
    watchServiceProblems(page, t.url!, problems, provokedRefusal);
    folder = screenshotFolder('TEACHER_VIEW_SCREENSHOTS', 'teacher-view');
    shots = folder.path;
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await lmsServer?.close();
    await t?.close();
    folder?.remove();
  });

  // A failed step leaves a picture of where it stopped.
  afterEach(async (test) => {
    if (test.task.result?.state === 'fail' && tool) await screenshot(`failed-${test.task.name.replace(/\W+/g, '-')}`).catch(() => {});
  });

  /** The whole tool as the LMS shows it: the frame is stretched to its content so nothing is cut off. */
  async function screenshot(name: string) {
    const height = await tool.evaluate(() => document.documentElement.scrollHeight);
    await page.evaluate((h) => {
      const frame = document.querySelector<HTMLIFrameElement>('iframe#tool_content');
      if (frame) frame.style.height = `${h + 4}px`;
    }, height);
    await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
    await page.evaluate(() => {
      const frame = document.querySelector<HTMLIFrameElement>('iframe#tool_content');
      if (frame) frame.style.height = '';
    });
  }

  async function visible(locator: Locator, timeout = 10_000) {
    await locator.first().waitFor({ state: 'visible', timeout });
  }

  async function toolRow(title: string) {
    return tool.getByRole('row').filter({ has: tool.getByRole('rowheader', { name: title, exact: true }) });
  }

  it('launches as the instructor and shows the connect prompt', async () => {
    tool = await launchIntoToolFrame(page, lms.launchPageUrl, 'Launch as instructor', t.url!);
    await expect.poll(() => tool.getByRole('heading', { level: 1 }).textContent(), { timeout: PAGE_TIMEOUT_MS }).toBe('Biology 101');
    await visible(tool.getByRole('button', { name: 'Authorize the tool in the LMS' }));
    await visible(tool.getByText(/^LMS:\s*Not connected$/));
    // Nothing of the course is shown before the connection proves who the teacher is and which course this is.
    expect(await tool.getByRole('tab', { name: 'Assessments' }).count()).toBe(0);
    expect(await tool.getByRole('button', { name: 'Refresh from LMS' }).count()).toBe(0);
    await screenshot('01-not-connected');
  });

  it('connects through the LMS approval in a popup and refreshes without reloading the frame', async () => {
    await tool.evaluate(() => void ((window as unknown as { marker?: boolean }).marker = true));
    const [popup] = await Promise.all([
      page.waitForEvent('popup'),
      tool.getByRole('button', { name: 'Authorize the tool in the LMS' }).click(),
    ]);
    await approveLmsAuthorization(popup, lms.baseUrl, t.url!);
    expect(popup.url()).toContain(`${t.url}/api/oauth2callback`);
    await visible(popup.getByRole('heading', { name: 'Connected to the LMS' }));
    await popup.close();
    await expect.poll(() => tool.getByRole('button', { name: 'Authorize the tool in the LMS' }).count(), { timeout: PAGE_TIMEOUT_MS }).toBe(0);
    await expect.poll(() => tool.getByRole('button', { name: 'Refresh from LMS' }).isEnabled()).toBe(true);
    await visible(tool.getByText(/^LMS:\s*Connected$/));
    // Same document: the completion signal made the view ask again instead of reloading.
    expect(await tool.evaluate(() => (window as unknown as { marker?: boolean }).marker)).toBe(true);

    await tool.getByRole('button', { name: 'Refresh from LMS' }).click();
    await visible(tool.getByText('Found 6 assessments.'));
    await visible(tool.getByRole('rowheader', { name: 'Midterm exam' }));
    await visible(tool.getByRole('rowheader', { name: 'Final exam (New Quizzes)' }));
    const newQuizRow = await toolRow('Final exam (New Quizzes)');
    expect(await newQuizRow.getByRole('cell').first().textContent()).toBe('New quiz');
    await screenshot('02-refreshed');
  });

  it('asks for an exit password before enforcing, then enforces a classic and a new quiz in the LMS', async () => {
    await tool.getByLabel('Require the exam browser for Midterm exam').click({ force: true });
    await visible(tool.getByText('An exit password is needed first.'));
    expect(lms.state.quizzes.get(201)!.accessCode).toBeNull();
    await screenshot('03-exit-password-needed');

    // The message leads to the course defaults, where the exit password is set and the setup completed.
    await tool.getByRole('button', { name: 'Set a course exit password' }).click();
    await visible(tool.getByRole('heading', { name: 'Course defaults', level: 2 }));
    // The link left with its tab; the focus is on the field it asked to set, not dropped.
    // InstUI puts a field's hint inside its label, so the accessible name starts with the label text.
    await expect.poll(() => tool.getByLabel(/^Set an exit password/).evaluate((input) => input === document.activeElement)).toBe(true);
    await tool.getByLabel(/^Set an exit password/).fill(EXIT_PASSWORD);
    await tool.getByLabel('The setup of this course is complete').click({ force: true });
    await tool.getByRole('button', { name: 'Add a website' }).click();
    await tool.getByRole('group', { name: 'Course website 1' }).getByLabel('Page address').fill('https://dictionary.example.org/define');
    // The school's tool: switchable only, no edit, copy or remove.
    const schoolTool = tool.getByRole('group', { name: 'School dictionary' });
    await visible(schoolTool.getByText('School-managed'));
    expect(await schoolTool.getByRole('button').count()).toBe(0);
    await schoolTool.getByLabel('Available in exams').click({ force: true });
    await tool.getByRole('button', { name: 'Add a tool' }).click();
    await tool.getByRole('group', { name: 'New tool 2' }).getByLabel('Name students see').fill('Calculator');
    // The tool's group is named after the tool as soon as it has a name.
    await tool.getByRole('group', { name: 'Calculator' }).getByLabel('Launch address').fill('https://calculator.example.com/app');
    await tool.getByRole('button', { name: 'Save course defaults' }).click();
    await visible(tool.getByText('Course defaults saved.'));
    // The form starts again from what was stored: the password now counts as set, the new tool has its id.
    await visible(tool.getByLabel(/^New exit password/));
    await visible(tool.getByRole('button', { name: 'Copy to other courses (Calculator)' }));
    const stored = await settings.loadCourseDefaults('101');
    expect(stored!.exitPassword).toBe(EXIT_PASSWORD);
    expect(stored!.setupCompleted).toBe(true);
    expect(stored!.externalTools.map((entry) => [entry.label, entry.managedByAdmin, entry.enabled])).toEqual([
      ['School dictionary', true, false],
      ['Calculator', false, true],
    ]);
    expect(stored!.externalTools[0]).toEqual({ ...SCHOOL_TOOL, enabled: false });
    await screenshot('04-course-defaults');

    await tool.getByRole('tab', { name: 'Assessments' }).click();
    await expect.poll(() => tool.getByText('The setup of this course is not finished.', { exact: false }).count()).toBe(0);
    for (const title of ['Midterm exam', 'Final exam (New Quizzes)']) {
      await tool.getByLabel(`Require the exam browser for ${title}`).click({ force: true });
      await visible((await toolRow(title)).getByText('Exam browser required'));
    }

    const classic = lms.state.quizzes.get(201)!;
    expect(classic.accessCode).toEqual(expect.any(String));
    expect(classic.accessCode!.length).toBeGreaterThan(0);
    const newQuiz = lms.state.assignments.get(301)!.newQuiz!.quizSettings;
    expect(newQuiz.require_student_access_code).toBe(true);
    expect(newQuiz.student_access_code).toEqual(expect.any(String));
    // The other quizzes are untouched.
    expect(lms.state.quizzes.get(202)!.accessCode).toBeNull();
    expect(lms.state.quizzes.get(204)!.accessCode).toBe('lab-2026');
    await screenshot('05-enforced');
  });

  it('edits a policy: a valid rule is saved, an invalid one is refused next to its field', async () => {
    await tool.getByRole('button', { name: 'Settings of Midterm exam' }).click();
    await visible(tool.getByRole('heading', { name: 'Midterm exam', level: 2 }));
    // The editor's heading takes focus, so keyboard users start at the top of what opened.
    expect(await tool.evaluate(() => document.activeElement?.textContent)).toBe('Midterm exam');

    await tool.getByLabel('Use a list for this assessment').click({ force: true });
    // The own list starts as a copy of the course's websites.
    expect(await tool.getByRole('group', { name: 'Website 1' }).getByLabel('Page address').inputValue()).toBe('https://dictionary.example.org/define');
    await tool.getByRole('button', { name: 'Add a website' }).click();
    const second = tool.getByRole('group', { name: 'Website 2' });
    await second.getByLabel('Page address').fill('https://library.example.edu/reserves');
    await tool.getByRole('button', { name: 'Save settings' }).click();
    await visible(tool.getByText('Exam settings saved.'));
    // The summary names exact pages by their whole address, so none reads as its whole site.
    const allowedWebsites = () => tool.getByRole('definition').filter({ hasText: 'https://dictionary.example.org/define' }).first().textContent();
    await expect.poll(allowedWebsites, { timeout: 10_000 }).toBe('https://dictionary.example.org/define, https://library.example.edu/reserves');
    await tool.locator('section[aria-labelledby="summary-heading"]').screenshot({ path: path.join(shots, '06a-summary-exact-pages.png') });

    await tool.getByRole('button', { name: 'Add a website' }).click();
    const third = tool.getByRole('group', { name: 'Website 3' });
    // The exam browser would open the whole site for its front page: refused at the field, with the alternative.
    await third.getByLabel('Page address').fill('https://library.example.edu/?lang=en');
    await tool.getByRole('button', { name: 'Save settings' }).click();
    await visible(third.getByText('allows every page of a site', { exact: false }));
    await third.getByLabel('Page address').fill('http://insecure.example.com/page');
    await tool.getByRole('button', { name: 'Save settings' }).click();
    await visible(third.getByText('Only exact https:// URLs are allowed'));
    // The refused field has the focus and is marked invalid for assistive technology.
    expect(await third.getByLabel('Page address').evaluate((input) => input === document.activeElement)).toBe(true);
    expect(await third.getByLabel('Page address').getAttribute('aria-invalid')).toBe('true');
    await screenshot('06-invalid-rule');
    await third.screenshot({ path: path.join(shots, '06b-invalid-rule-detail.png') });

    // A whole site needs the explicit confirmation; the server refuses it without and says so at the checkbox.
    // Switching the row to a site takes the address's refusal away: it was about the address.
    await third.getByLabel('Allow', { exact: true }).click();
    await tool.getByRole('option', { name: 'A whole site' }).click();
    await expect.poll(() => third.getByText('Only exact https:// URLs are allowed').count()).toBe(0);
    await expect.poll(() => third.getByLabel('Site').getAttribute('aria-invalid')).not.toBe('true');
    await third.screenshot({ path: path.join(shots, '06c-refusal-gone-after-switch.png') });
    await third.getByLabel('Site').fill('example.com');
    await tool.getByRole('button', { name: 'Save settings' }).click();
    await visible(third.getByText('confirm it', { exact: false }));
    await third.getByLabel('Allow example.com and every subdomain of it').click({ force: true });
    await tool.getByRole('button', { name: 'Save settings' }).click();
    await visible(tool.getByText('Exam settings saved.'));
    await expect
      .poll(allowedWebsites, { timeout: 10_000 })
      .toBe('https://dictionary.example.org/define, https://library.example.edu/reserves, example.com and its subdomains');
    await screenshot('07-policy-saved');
  });

  it('reveals the passwords with a countdown and hides them when it runs out', async () => {
    await tool.getByRole('button', { name: 'Reveal passwords' }).click();
    const revealed = tool.getByRole('definition').filter({ hasText: EXIT_PASSWORD });
    await visible(revealed);
    await visible(tool.getByText('Course default'));
    await visible(tool.getByText(/Hidden in \d+ s/));
    await screenshot('08-passwords-revealed');
    await tool.getByText('Passwords for this assessment').locator('xpath=ancestor::div[2]').screenshot({ path: path.join(shots, '08b-reveal-detail.png') });

    // The clock also runs on its own, and a loaded machine spends seconds on a screenshot: the countdown is read, not assumed.
    const secondsLeft = async () => Number(/(\d+)/.exec((await tool.getByText(/Hidden in \d+ s/).first().textContent()) ?? '')?.[1]);
    const before = await secondsLeft();
    expect(before).toBeGreaterThan(10);
    await page.clock.fastForward(10_000);
    await expect.poll(secondsLeft).toBeLessThanOrEqual(before - 10);
    await page.clock.fastForward((before + 1) * 1_000);
    await expect.poll(() => tool.getByText(EXIT_PASSWORD).count()).toBe(0);
    await visible(tool.getByRole('button', { name: 'Reveal passwords' }));
    await screenshot('09-passwords-hidden');
  });

  it('copies a course tool to another course the teacher teaches', async () => {
    await tool.getByRole('button', { name: 'All assessments' }).click();
    // Back on the list, focus returns to the button that opened the editor.
    await expect
      .poll(() => tool.evaluate(() => document.activeElement?.textContent ?? ''))
      .toContain('Settings');
    await tool.getByRole('tab', { name: 'Course defaults' }).click();
    await tool.getByRole('button', { name: 'Copy to other courses (Calculator)' }).click();
    const dialog = tool.getByRole('dialog', { name: 'Copy Calculator to other courses' });
    await visible(dialog.getByLabel('Chemistry 201 (CHEM201)'));
    await dialog.getByLabel('Chemistry 201 (CHEM201)').click({ force: true });
    await screenshot('10-copy-dialog');
    await dialog.getByRole('button', { name: 'Copy to 1 course' }).click();
    await visible(dialog.getByRole('heading', { name: 'Copied to' }));
    await visible(dialog.getByText('Chemistry 201 (CHEM201)'));
    await screenshot('11-copy-result');
    await dialog.getByRole('button', { name: 'Done' }).click();
  });

  it('switches enforcement with the keyboard, keeping the focus on the switch', async () => {
    await tool.getByRole('tab', { name: 'Assessments' }).click();
    const row = await toolRow('Weekly practice quiz');
    const toggle = tool.getByLabel('Require the exam browser for Weekly practice quiz');
    await toggle.focus();
    await page.keyboard.press('Space');
    await visible(row.getByText('Exam browser required'));
    expect(lms.state.quizzes.get(202)!.accessCode).toEqual(expect.any(String));
    expect(await toggle.evaluate((input) => input === document.activeElement)).toBe(true);
    await page.keyboard.press('Space');
    await visible(row.getByText('Not required'));
    expect([null, '']).toContain(lms.state.quizzes.get(202)!.accessCode);
    expect(await toggle.evaluate((input) => input === document.activeElement)).toBe(true);
  });

  it('fits a narrow LMS frame without scrolling sideways', async () => {
    await page.setViewportSize({ width: 560, height: 900 });
    await visible(tool.getByRole('rowheader', { name: 'Midterm exam' }));
    expect(await tool.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await screenshot('12-narrow-assessments');
    await tool.getByRole('button', { name: 'Settings of Midterm exam' }).click();
    await visible(tool.getByRole('heading', { name: 'Midterm exam', level: 2 }));
    expect(await tool.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await screenshot('13-narrow-editor');
    await tool.getByRole('button', { name: 'All assessments' }).click();
    await page.setViewportSize({ width: 1100, height: 900 });
  });

  it('asks to authorize again when the LMS no longer accepts the grant, and recovers after approval', async () => {
    for (const record of lms.state.tokens.values()) if (record.userId === 2) lms.oauth.revoke(record);
    await tool.getByRole('button', { name: 'Refresh from LMS' }).click();
    const heading = tool.getByRole('heading', { name: 'Authorize the tool again' });
    await visible(heading);
    // The refresh control is unavailable now; the prompt takes the focus.
    expect(await heading.evaluate((element) => document.activeElement?.contains(element) === true)).toBe(true);
    await visible(tool.getByText(/^LMS:\s*Not connected$/));
    await screenshot('14-authorize-again');

    const [popup] = await Promise.all([
      page.waitForEvent('popup'),
      tool.getByRole('button', { name: 'Authorize the tool in the LMS' }).click(),
    ]);
    await approveLmsAuthorization(popup, lms.baseUrl, t.url!);
    await visible(popup.getByRole('heading', { name: 'Connected to the LMS' }));
    await popup.close();
    await expect.poll(() => heading.count(), { timeout: PAGE_TIMEOUT_MS }).toBe(0);
    await tool.getByRole('button', { name: 'Refresh from LMS' }).click();
    await visible(tool.getByText('Found 6 assessments.'));
  });

  it('refreshes an expired grant without asking, and asks only when the LMS refuses the refresh', async () => {
    const expireStoredToken = () =>
      t.db.orm.em.getConnection().execute("update lms_oauth_token set access_token_expires_at = now() - interval '1 minute'", [], 'run');
    const reloadTool = async () => {
      await tool.evaluate(() => window.location.reload());
      await expect.poll(() => tool.getByRole('heading', { level: 1 }).textContent(), { timeout: PAGE_TIMEOUT_MS }).toBe('Biology 101');
    };
    const refreshes = () => lms.calls.count('POST /login/oauth2/token');

    await expireStoredToken();
    const before = refreshes();
    await reloadTool();
    await visible(tool.getByText(/^LMS:\s*Connected$/));
    expect(await tool.getByRole('button', { name: 'Authorize the tool in the LMS' }).count()).toBe(0);
    expect(refreshes()).toBe(before + 1);

    await expireStoredToken();
    for (const record of lms.state.tokens.values()) if (record.userId === 2) lms.oauth.revoke(record);
    await reloadTool();
    await visible(tool.getByRole('heading', { name: 'Authorize the tool again' }));
    await visible(tool.getByText(/^LMS:\s*Not connected$/));
    expect(await tool.getByRole('button', { name: 'Refresh from LMS' }).isDisabled()).toBe(true);
    await screenshot('15-refresh-refused');
  });

  it('renders without script errors or policy violations', () => {
    expect(problems).toEqual([]);
  });
});
