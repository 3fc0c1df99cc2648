import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import type { BrowserContext, Frame, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../server/src/free-port.js';
import { createTestApp, type TestApp } from '../../server/test/support/app.js';
import { createMockLms, type MockLms, type RunningLmsServer } from '../src/lms/index.js';
import { browserAvailable, launchBrowser, type LaunchedBrowser } from '../src/support/browser.js';
import { approveLmsAuthorization, launchIntoToolFrame, PAGE_TIMEOUT_MS, watchServiceProblems } from '../src/support/tool-frame.js';

const CLIENT_MANIFEST = fileURLToPath(new URL('../../client/dist/.vite/manifest.json', import.meta.url));
const CLIENT_ID = '10000000000001';
const DEPLOYMENT_ID = '1:8865aa05b4b79b64a91a86042e43af5ea8ae79eb';
const ISSUER = 'https://canvas.instructure.com';
const OAUTH_CLIENT_ID = '10000000000002';
const OAUTH_CLIENT_SECRET = 'admin-view-secret';
const TITLE = 'Example University: exam browser administration';

/** Screenshots of every step, to be looked at: `ADMIN_VIEW_SCREENSHOTS` or a fresh temporary folder. */
function screenshotFolder(): string {
  const folder = process.env.ADMIN_VIEW_SCREENSHOTS ?? mkdtempSync(path.join(tmpdir(), 'exb-admin-view-'));
  mkdirSync(folder, { recursive: true });
  return folder;
}

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
  let t: TestApp;
  let lms: MockLms;
  let lmsServer: RunningLmsServer;
  let browser: LaunchedBrowser;
  let context: BrowserContext;
  let page: Page;
  let tool: Frame;
  let shots: string;
  const problems: string[] = [];
  const mutationTokens: string[] = [];

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
    lms = createMockLms({
      baseUrl: lmsUrl,
      issuer: ISSUER,
      tool: { baseUrl: t.url!, clientId: CLIENT_ID, deploymentId: DEPLOYMENT_ID, oauthClientId: OAUTH_CLIENT_ID, oauthClientSecret: OAUTH_CLIENT_SECRET },
    });
    lmsServer = await lms.startHttpServer();
    browser = await launchBrowser();
    context = await browser.browser.newContext({ viewport: { width: 1100, height: 900 } });
    // A controllable clock, so the reveal countdowns and the token renewal can be run out without waiting.
    await context.clock.install();
    page = await context.newPage();
    watchServiceProblems(page, t.url!, problems, provokedRefusal);
    page.on('request', (request) => {
      const token = request.headers()['x-exb-action-token'];
      if (token !== undefined) mutationTokens.push(token);
    });
    shots = screenshotFolder();
    process.stderr.write(`\n[admin-view] screenshots in ${shots}\n`);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await lmsServer?.close();
    await t?.close();
  });
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

  /** Serious and critical accessibility violations inside the tool's frame. */
  async function accessibilityViolations(): Promise<string[]> {
    const results = await new AxeBuilder({ page }).analyze();
    const inTool = (node: { target: unknown[] }) => String(node.target[0]).includes('tool_content');
    // The check looked inside the tool's frame (a cross-origin frame axe must reach on its own).
    expect(results.passes.some((rule) => rule.nodes.some(inTool))).toBe(true);
    return results.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .flatMap((violation) => violation.nodes.filter(inTool).map((node) => `${violation.id}: ${node.target.join(' > ')}`));
  }

  function row(name: string) {
    return tool.getByRole('row').filter({ has: tool.getByRole('rowheader', { name, exact: false }) });
  }

  it('launches as the root administrator and asks for the administrator authorization', async () => {
    tool = await launchIntoToolFrame(page, lms.launchPageUrl, 'Launch as administrator', t.url!);
    await expect.poll(() => tool.getByRole('heading', { level: 1 }).textContent(), { timeout: PAGE_TIMEOUT_MS }).toBe(TITLE);
    await visible(tool.getByRole('button', { name: 'Authorize administrator access in the LMS' }));
    expect(await tool.getByRole('tab').count()).toBe(0);
    await screenshot('01-authorize');
  });

  it('authorizes in a popup and shows the empty dashboard', async () => {
    const [popup] = await Promise.all([page.waitForEvent('popup'), tool.getByRole('button', { name: 'Authorize administrator access in the LMS' }).click()]);
    await approveLmsAuthorization(popup, lms.baseUrl, t.url!);
    await visible(popup.getByRole('heading', { name: 'Connected to the LMS' }));
    await popup.close();
    await visible(tool.getByRole('tab', { name: 'Connected courses' }), PAGE_TIMEOUT_MS);
    await visible(tool.getByText('No courses are connected yet.'));
    await visible(tool.getByText('Connected courses').first());
    await screenshot('02-empty-dashboard');
    expect(await accessibilityViolations()).toEqual([]);
  });

  it('connects courses from the catalog, answering each course', async () => {
    await tool.getByRole('tab', { name: 'Connect courses' }).click();
    await visible(tool.getByRole('rowheader', { name: /Biology 101/ }), PAGE_TIMEOUT_MS);
    for (const name of ['Biology 101', 'Chemistry 201']) await tool.getByLabel(`Select ${name}`).click({ force: true });
    await tool.getByRole('button', { name: 'Connect 2 selected courses' }).click();
    await visible(tool.getByText('Connected 2 courses.'));
    await visible(row('Biology 101').getByText('Connected'));
    expect(await accessibilityViolations()).toEqual([]);
    await screenshot('03-catalog-connected');
  });

  it('connects pasted ids and addresses, explaining the ones it could not', async () => {
    const paste = tool.getByLabel('Course ids or course addresses');
    await paste.fill(`${lms.baseUrl}/courses/104/quizzes, 170 not-a-course`);
    await visible(tool.getByText('2 courses recognized; not recognized: not-a-course.'));
    await tool.getByRole('button', { name: 'Connect 2 courses' }).click();
    await visible(tool.getByText('Connected 1 of 2 courses.', { exact: false }));
    await visible(tool.getByText('Check the id, or connect it from the school it belongs to.', { exact: false }));
    await screenshot('04-paste-partly-refused');
    await paste.fill(Array.from({ length: 51 }, (_, index) => String(1000 + index)).join('\n'));
    await visible(tool.getByText('51 courses recognized: connect at most 50 at a time.'));
    expect(await tool.getByRole('button', { name: 'Connect 51 courses' }).isDisabled()).toBe(true);
    await screenshot('05-paste-too-many');
    await paste.fill('');
  });

  it('lists, searches and filters the connected courses and sets the operational term', async () => {
    await tool.getByRole('tab', { name: 'Connected courses' }).click();
    await visible(tool.getByRole('button', { name: 'History 110' }));
    await visible(tool.getByRole('button', { name: 'Chemistry 201' }));
    await tool.getByLabel('Search connected courses').fill('  chem  ');
    await expect.poll(() => tool.getByRole('button', { name: 'Biology 101' }).count()).toBe(0);
    await visible(tool.getByRole('button', { name: 'Chemistry 201' }));
    await tool.getByLabel('Search connected courses').fill('zzz');
    await visible(tool.getByText('No connected course matches “zzz”.'));
    await screenshot('06-search-nothing');
    await tool.getByLabel('Search connected courses').fill('');
    await visible(tool.getByRole('button', { name: 'Biology 101' }));

    await tool.getByLabel('Operational term').click();
    await tool.getByRole('option', { name: /^Spring 2026/ }).click();
    await visible(tool.getByText('Operational term: Spring 2026'));
    await tool.getByLabel('Operational term').click();
    await tool.getByRole('option', { name: /^Fall 2026/ }).click();
    await visible(tool.getByText('Operational term: Fall 2026'));
    await tool.getByLabel('Include past courses').click({ force: true });
    await visible(tool.getByRole('button', { name: 'Biology 101' }));
    await screenshot('07-course-list');
  });

  it('opens a course, refreshes it, and needs an exit password before enforcing', async () => {
    await tool.getByRole('button', { name: 'Biology 101' }).click();
    await visible(tool.getByRole('heading', { name: 'Biology 101', level: 2 }));
    expect(await tool.evaluate(() => document.activeElement?.textContent)).toBe('Biology 101');
    await tool.getByRole('button', { name: 'Refresh from LMS' }).click();
    await visible(tool.getByText('Found 6 quizzes in the LMS.'));
    await visible(tool.getByRole('rowheader', { name: /Midterm exam/ }));
    await tool.getByLabel('Require the exam browser for Midterm exam').click({ force: true });
    await visible(tool.getByText('An exit password is needed first', { exact: false }));
    expect(lms.state.quizzes.get(201)!.accessCode).toBeNull();
    await screenshot('08-exit-password-needed');
  });

  it('sets a new random exit password, shown once with a countdown', async () => {
    await tool.getByRole('button', { name: 'New exit password' }).click();
    await tool.getByRole('button', { name: 'Replace exit password' }).click();
    const shown = tool.getByText(/^New exit password \(hidden in \d+ s\)$/);
    await visible(shown);
    const value = await tool.locator('code.exb-value').textContent();
    expect(value).toMatch(/^[0-9a-z]{4}(-[0-9a-z]{4}){3}$/);
    await screenshot('09-new-exit-password');
    await page.clock.fastForward(31_000);
    await expect.poll(() => shown.count()).toBe(0);
    expect(await tool.getByText(value!).count()).toBe(0);
  });

  it('enforces a classic and a new quiz in the LMS', async () => {
    for (const title of ['Midterm exam', 'Final exam (New Quizzes)']) {
      await tool.getByLabel(`Require the exam browser for ${title}`).click({ force: true });
      await visible(row(title).getByText('Required', { exact: true }));
    }
    expect(lms.state.quizzes.get(201)!.accessCode).toMatch(/^[0-9a-z]{24}$/);
    expect(lms.state.assignments.get(301)!.newQuiz!.quizSettings.require_student_access_code).toBe(true);
    await screenshot('10-enforced');
    expect(await accessibilityViolations()).toEqual([]);
  });

  it('reveals an assessment’s passwords and access code for 30 seconds, and rotates the code', async () => {
    await tool.getByRole('button', { name: 'Passwords and codes of Midterm exam' }).click();
    await visible(tool.getByRole('heading', { name: 'Midterm exam', level: 3 }));
    // The panel's heading takes focus, so keyboard users start at what opened.
    expect(await tool.evaluate(() => document.activeElement?.textContent)).toBe('Midterm exam');
    const actions = tool.getByRole('region', { name: 'Midterm exam' });
    await actions.getByRole('button', { name: 'Reveal passwords' }).click();
    const code = lms.state.quizzes.get(201)!.accessCode!;
    await visible(tool.getByRole('definition').filter({ hasText: code }));
    await visible(tool.getByText('As set in the LMS'));
    await visible(tool.getByText(/Hidden in \d+ s/));
    await screenshot('11-assessment-revealed');
    await page.clock.fastForward(31_000);
    await expect.poll(() => tool.getByText(code).count()).toBe(0);

    await tool.getByRole('button', { name: 'New access code' }).click();
    await visible(tool.getByText('A new access code is in place', { exact: false }));
    expect(lms.state.quizzes.get(201)!.accessCode).not.toBe(code);
    await tool.getByRole('button', { name: 'Reset to course defaults' }).click();
    await visible(tool.getByText('The assessment uses the course defaults again.'));
    await tool.getByRole('button', { name: 'Use the course exit password' }).click();
    await visible(tool.getByText('The assessment uses the course’s exit password again.'));
    await tool.getByRole('button', { name: 'Close the actions of Midterm exam' }).click();
    await expect.poll(() => tool.evaluate(() => document.activeElement?.textContent ?? '')).toContain('Passwords and codes');

    // Wrong order: a new code for a quiz that does not require the exam browser is refused with what to do.
    await tool.getByRole('button', { name: 'Passwords and codes of Weekly practice quiz' }).click();
    await tool.getByRole('button', { name: 'New access code' }).click();
    await visible(tool.getByText('Require the exam browser for this quiz first', { exact: false }));
    await screenshot('12-new-code-refused');
    await tool.getByRole('button', { name: 'Close the actions of Weekly practice quiz' }).click();
  });

  it('switches enforcement with the keyboard, keeping the focus on the switch', async () => {
    const toggle = tool.getByLabel('Require the exam browser for Weekly practice quiz');
    await toggle.focus();
    await page.keyboard.press('Space');
    await visible(row('Weekly practice quiz').getByText('Required', { exact: true }));
    expect(lms.state.quizzes.get(202)!.accessCode).toEqual(expect.any(String));
    expect(await toggle.evaluate((input) => input === document.activeElement)).toBe(true);
    await page.keyboard.press('Space');
    await visible(row('Weekly practice quiz').getByText('Not required', { exact: true }));
    expect(await toggle.evaluate((input) => input === document.activeElement)).toBe(true);
  });

  it('renews the action token while the page stays open', async () => {
    const first = mutationTokens.at(-1);
    expect(first).toEqual(expect.stringMatching(/^v1\.admin-mutation\./));
    // Half of the token's ten minutes later, the page asked for a new one.
    await page.clock.fastForward(5 * 60_000 + 1_000);
    await page.clock.runFor(1_000);
    await tool.getByLabel('Require the exam browser for Weekly practice quiz').click({ force: true });
    await visible(row('Weekly practice quiz').getByText('Required', { exact: true }));
    expect(mutationTokens.at(-1)).not.toBe(first);
  });

  it('fits a narrow LMS frame without scrolling sideways', async () => {
    await page.setViewportSize({ width: 560, height: 900 });
    await visible(tool.getByRole('rowheader', { name: /Midterm exam/ }));
    expect(await tool.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await screenshot('13-narrow-course');
    await tool.getByRole('button', { name: 'All courses' }).click();
    await visible(tool.getByRole('button', { name: 'Biology 101' }));
    expect(await tool.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await screenshot('14-narrow-list');
    await tool.getByRole('tab', { name: 'Connect courses' }).click();
    await visible(tool.getByRole('rowheader', { name: /Biology 101/ }), PAGE_TIMEOUT_MS);
    expect(await tool.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await screenshot('15-narrow-catalog');
    await tool.getByRole('tab', { name: 'Connected courses' }).click();
    await page.setViewportSize({ width: 1100, height: 900 });
  });

  it('asks to authorize again when the LMS no longer accepts the grant, keeping the place', async () => {
    await tool.getByRole('button', { name: 'Biology 101' }).click();
    for (const record of lms.state.tokens.values()) if (record.userId === 1) lms.oauth.revoke(record);
    await tool.getByRole('button', { name: 'Refresh from LMS' }).click();
    await visible(tool.getByRole('heading', { name: 'Authorize administrator access again' }));
    await visible(tool.getByRole('heading', { name: 'Biology 101', level: 2 }));
    await screenshot('16-authorize-again');
    const [popup] = await Promise.all([page.waitForEvent('popup'), tool.getByRole('button', { name: 'Authorize administrator access in the LMS' }).click()]);
    await approveLmsAuthorization(popup, lms.baseUrl, t.url!);
    await visible(popup.getByRole('heading', { name: 'Connected to the LMS' }));
    await popup.close();
    await expect.poll(() => tool.getByRole('heading', { name: 'Authorize administrator access again' }).count(), { timeout: PAGE_TIMEOUT_MS }).toBe(0);
    await tool.getByRole('button', { name: 'Refresh from LMS' }).click();
    await visible(tool.getByText('Found 6 quizzes in the LMS.'));
    expect(problems).toEqual([]);
  });
});
