import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../server/test/support/app.js';
import { failNextWrites } from '../../server/test/support/db-faults.js';
import { sessionFor, student, type TestSession } from '../../server/test/support/sessions.js';
import {
  downloadConfiguration,
  openConfiguration,
  SimulatedExamBrowser,
  type ExamBrowserPlatform,
  type OpenedConfiguration,
} from '../src/exb-simulator/index.js';
import type { MockLms, RecordedCall } from '../src/lms/index.js';
import { seriousViolations } from '../src/support/axe.js';
import { browserAvailable, launchBrowser, type LaunchedBrowser } from '../src/support/browser.js';
import { CONTENT_ID, COURSE, QUIZ, startEnforcedQuiz, type EnforcedQuiz } from './enforced-quiz.js';
import { screenshotFolder } from './screenshot-folder.js';
import { openLmsTab, openQuizPage as openLmsQuizPage, settled, takeQuiz as takeLmsQuiz, type LmsTab } from './lms-tab.js';

const OAUTH_CLIENT_SECRET = 'detector-browser-oauth-secret';

/** Never enforced, with its own LMS access code. */
const OPEN_QUIZ = '204';

const TAKE_ROUTE = 'POST /courses/:course_id/quizzes/:quiz_id/take';
const UPDATE_QUIZ_ROUTE = 'PUT /api/v1/courses/:course_id/quizzes/:id';
const SESSION_TOKEN_ROUTE = 'GET /api/v1/login/session_token';

const PANEL = 'aside[data-exb-panel]';
const DETECTOR_SCRIPT = 'script[data-exb-detector]';

function bootstrapOf(html: string): Record<string, unknown> {
  const match = /<script id="exb-bootstrap" type="application\/json">(.*?)<\/script>/s.exec(html);
  if (match?.[1] === undefined) throw new Error('the page has no bootstrap element');
  return JSON.parse(match[1]) as Record<string, unknown>;
}

describe.runIf(browserAvailable())('detector and theme loader on the development LMS in Chromium', () => {
  let quiz: EnforcedQuiz;
  let t: TestApp;
  let lms: MockLms;
  let browser: LaunchedBrowser;
  let lmsUrl: string;
  let serviceUrl: string;
  let studentSession: TestSession;
  let identity: { certificatePem: string; privateKeyPem: string };
  /** The code enforcement put on the quiz in the LMS. */
  let accessCode: string;

  /**
   * What a student does to get a configuration: the required-browser view (where the detector's notice links) hands
   * out the config-grant action token, the grant names the download, and the exam browser downloads and opens it.
   */
  async function studentConfiguration(): Promise<OpenedConfiguration> {
    const view = await quiz.expectOk('GET', `/exb/quiz/${COURSE}/${CONTENT_ID}`, studentSession.cookie);
    const { actionToken } = bootstrapOf(view.body);
    expect(typeof actionToken).toBe('string');
    const grant = await quiz.expectOk('POST', `/api/exb/config-grant/${COURSE}/${CONTENT_ID}`, studentSession.cookie, { actionToken });
    const { exbLaunchUrl } = JSON.parse(grant.body) as { exbLaunchUrl: string };
    const downloaded = await downloadConfiguration(exbLaunchUrl);
    return openConfiguration(downloaded.bytes, identity);
  }

  const openTab = (options: Parameters<typeof openLmsTab>[2] = {}) => openLmsTab(browser, quiz, options);
  const openQuizPage = (page: Page, quizId: string) => openLmsQuizPage(page, lmsUrl, quizId);
  const takeQuiz = (page: Page, quizId: string) => takeLmsQuiz(page, lmsUrl, quizId);

  const callsOf = (tab: LmsTab, method: string, pathPrefix: string) =>
    tab.serviceCalls.filter((call) => call.method === method && call.path.startsWith(pathPrefix));

  /** The LMS's record of access-code form posts for the quiz since `seq`. */
  const codePosts = (quizId: string, sinceSeq = 0): RecordedCall[] =>
    lms.calls.filter(
      (call) => call.route === TAKE_ROUTE && call.params.quiz_id === quizId && call.seq > sinceSeq && 'access_code' in call.body,
    );

  const lastSeq = () => lms.calls.last()?.seq ?? 0;

  // Screenshots of the notices, to be looked at: kept in `DETECTOR_SCREENSHOTS`, else removed after the test.
  const shots = screenshotFolder('DETECTOR_SCREENSHOTS', 'detector');

  beforeAll(async () => {
    quiz = await startEnforcedQuiz({ oauthClientSecret: OAUTH_CLIENT_SECRET, exitPassword: 'leave-the-exam' });
    ({ t, lms, lmsUrl, serviceUrl, identity, accessCode } = quiz);
    expect(lms.calls.last(UPDATE_QUIZ_ROUTE)?.body).toMatchObject({ quiz: { access_code: accessCode } });
    browser = await launchBrowser();

    // The student's exam browser is signed into the LMS with a session URL, which needs the student's grant.
    studentSession = sessionFor(t.app, student({ courseId: COURSE, lmsUserId: '3' }));
    await quiz.authorizeInLms(studentSession, '/api/student-session-authorize', 3);
  });

  afterAll(async () => {
    await browser?.close();
    await quiz?.close();
    shots.remove();
  });

  it.each([
    ['an ordinary browser', undefined],
    ['the exam browser', 'exam-browser'],
  ] as const)('loads no detector on a quiz without enforcement (%s)', async (_name, kind) => {
    const examBrowser = kind === undefined ? undefined : new SimulatedExamBrowser({ configKey: 'a'.repeat(64) });
    const tab = await openTab({ lmsUser: 'student1', ...(examBrowser === undefined ? {} : { examBrowser }) });
    const { page } = tab;
    await openQuizPage(page, OPEN_QUIZ);
    const onTakePage = tab.serviceCalls.length;
    const requirementUrl = `${serviceUrl}/api/exb/requirement/${COURSE}/classicquiz_${OPEN_QUIZ}`;
    const requirement = page.waitForResponse((response) => response.url() === requirementUrl);
    await takeQuiz(page, OPEN_QUIZ);
    expect(await (await requirement).json()).toEqual({ success: true, exbRequired: false });
    await settled(page);

    // The LMS's own prompt, untouched: the theme loader asked and stopped there.
    expect(await page.locator('form.access_code_form').count()).toBe(1);
    expect(await page.locator('#quiz_access_code').inputValue()).toBe('');
    expect(await page.locator(DETECTOR_SCRIPT).count()).toBe(0);
    expect(await page.locator(PANEL).count()).toBe(0);
    expect(tab.serviceCalls.slice(onTakePage).map((call) => `${call.method} ${call.path}`)).toEqual([
      'GET /js/lms-exb-theme-loader.js',
      `GET /api/exb/requirement/${COURSE}/classicquiz_${OPEN_QUIZ}`,
    ]);
    expect(tab.problems).toEqual([]);
    await tab.close();
  });

  it('shows the exam-browser-required notice in an ordinary browser and never fills the code', async () => {
    const tab = await openTab({ lmsUser: 'student1' });
    const { page } = tab;
    const since = lastSeq();
    await takeQuiz(page, QUIZ);
    const panel = page.locator(PANEL);
    await panel.waitFor({ timeout: 15_000 });
    await settled(page);

    expect(await panel.getByRole('heading', { level: 2 }).textContent()).toBe('Secure exam browser required');
    expect(await panel.textContent()).toContain('This quiz can only be taken in the secure exam browser.');
    const setup = panel.getByRole('link', { name: 'Get the exam browser configuration' });
    expect(await setup.getAttribute('href')).toBe(
      `${serviceUrl}/exb/quiz/${COURSE}/${CONTENT_ID}?lms_url=${encodeURIComponent(`${lmsUrl}/courses/${COURSE}/quizzes/${QUIZ}`)}`,
    );
    expect(await page.locator(DETECTOR_SCRIPT).count()).toBe(1);
    expect(await page.locator('#quiz_access_code').inputValue()).toBe('');
    expect(codePosts(QUIZ, since)).toEqual([]);
    // No proof, no redemption: without the page API there is nothing to prove.
    expect(callsOf(tab, 'POST', '/api/exb/')).toEqual([]);
    expect(await page.content()).not.toContain(accessCode);
    expect(tab.problems).toEqual([]);
    await tab.close();
  });

  it.each([
    ['a wide', undefined],
    ['a narrow', { width: 360, height: 740 }],
  ] as const)('shows the same notice on the quiz page before "Take the Quiz" in an ordinary browser (%s window)', async (name, viewport) => {
    const tab = await openTab({ lmsUser: 'student1', ...(viewport === undefined ? {} : { context: { viewport } }) });
    const { page } = tab;
    await openQuizPage(page, QUIZ);
    const panel = page.locator(PANEL);
    await panel.waitFor({ timeout: 15_000 });
    await settled(page);

    expect(await panel.getByRole('heading', { level: 2 }).textContent()).toBe('Secure exam browser required');
    const setup = panel.getByRole('link', { name: 'Get the exam browser configuration' });
    expect(await setup.getAttribute('href')).toBe(
      `${serviceUrl}/exb/quiz/${COURSE}/${CONTENT_ID}?lms_url=${encodeURIComponent(`${lmsUrl}/courses/${COURSE}/quizzes/${QUIZ}`)}`,
    );
    // The LMS's own page stays as it is: the notice sits beside "Take the Quiz", inside the window.
    expect(await page.locator('#take_quiz_link').isVisible()).toBe(true);
    const box = await panel.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(page.viewportSize()!.width);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(shots.path, `quiz-page-required-en-${name.replace(' ', '-')}.png`), fullPage: true });
    // No proof and no exit on this page outside the exam browser.
    expect(callsOf(tab, 'POST', '/api/exb/')).toEqual([]);
    expect(await page.content()).not.toContain(accessCode);
    expect(tab.problems).toEqual([]);
    await tab.close();
  });

  it.each<ExamBrowserPlatform>(['windows', 'macos'])(
    'fills the access code in the exam browser with a downloaded configuration, and the quiz opens (%s page API)',
    async (platform) => {
      const opened = await studentConfiguration();
      // The configuration starts at its session start, which signs the exam browser in to the quiz page with the
      // student's own LMS session, minted when the page opens.
      expect(opened.startUrl).toMatch(new RegExp(`^${serviceUrl}/exb/session-start/${COURSE}/${CONTENT_ID}\\?key=`));

      const tab = await openTab({ examBrowser: SimulatedExamBrowser.fromConfiguration(opened, { platform }) });
      const { page } = tab;
      await page.goto(opened.startUrl!);
      expect(lms.calls.last(SESSION_TOKEN_ROUTE)?.userId).toBe(3);
      expect(page.url()).toBe(`${lmsUrl}/courses/${COURSE}/quizzes/${QUIZ}`);
      expect(await page.locator('#identity').textContent()).toContain('Sam Student');

      const since = lastSeq();
      await takeQuiz(page, QUIZ);
      await page.locator('#submit_quiz_form').waitFor({ timeout: 15_000 });

      // The LMS saw the prompt first (the take without a code), then exactly one post of the right code.
      const takes = lms.calls.filter((call) => call.route === TAKE_ROUTE && call.seq > since);
      expect(takes.map((call) => call.body.access_code ?? null)).toEqual([null, accessCode]);
      expect(takes.every((call) => call.userId === 3)).toBe(true);
      expect(new URL(page.url()).pathname).toBe(`/courses/${COURSE}/quizzes/${QUIZ}/take`);
      expect(await page.locator('form.access_code_form').count()).toBe(0);

      // The prompt page proved and redeemed once; the open quiz proves again for its tools.
      await settled(page);
      const proofs = callsOf(tab, 'POST', `/api/exb/access-proof/${COURSE}/${CONTENT_ID}`);
      const redemptions = callsOf(tab, 'POST', `/api/exb/access-code/${COURSE}/${CONTENT_ID}`);
      expect(proofs.length).toBe(2);
      expect(proofs.every((call) => call.status === 200)).toBe(true);
      expect(redemptions.length).toBe(proofs.length);
      expect(redemptions.every((call) => call.status === 200)).toBe(true);
      // Every call was answered to the LMS page: preflights and responses carry the LMS origin.
      expect(tab.serviceCalls.filter((call) => call.status >= 400)).toEqual([]);
      expect(await page.locator(PANEL).count()).toBe(0);
      expect(await page.content()).not.toContain(accessCode);
      expect(tab.problems).toEqual([]);
      await tab.close();
    },
  );

  it('gives no code for another configuration and says that the configuration does not match', async () => {
    // A real configuration, but not this quiz's: the setup check's.
    const check = await downloadConfiguration(`${serviceUrl}/exb/check/config.exb`);
    const other = openConfiguration(check.bytes, identity);
    const tab = await openTab({ examBrowser: SimulatedExamBrowser.fromConfiguration(other), lmsUser: 'student1' });
    const { page } = tab;
    const since = lastSeq();
    await takeQuiz(page, QUIZ);
    const panel = page.locator(PANEL);
    await panel.waitFor({ timeout: 15_000 });
    await settled(page);

    expect(await panel.textContent()).toContain(
      'This exam browser configuration does not match this quiz or is out of date. Download a fresh configuration from the course.',
    );
    expect(callsOf(tab, 'POST', '/api/exb/access-proof/').map((call) => call.status)).toEqual([403]);
    expect(callsOf(tab, 'POST', '/api/exb/access-code/')).toEqual([]);
    expect(await page.locator('#quiz_access_code').inputValue()).toBe('');
    expect(codePosts(QUIZ, since)).toEqual([]);
    expect(await page.locator('form.access_code_form').count()).toBe(1);
    expect(await page.content()).not.toContain(accessCode);
    // The refused proof is a 403 the page reads, not a script error.
    expect(tab.problems.filter((problem) => !/403/.test(problem))).toEqual([]);
    await tab.close();
  });

  it('shows the exit link after the LMS records the final submission, and the link leaves through the quit URL', async () => {
    const opened = await studentConfiguration();
    const tab = await openTab({ examBrowser: SimulatedExamBrowser.fromConfiguration(opened) });
    const { page } = tab;
    await page.goto(opened.startUrl!);
    await takeQuiz(page, QUIZ);
    await page.locator('#submit_quiz_form').waitFor({ timeout: 15_000 });
    await settled(page);
    // An attempt in progress is no completion.
    expect(await page.getByRole('link', { name: 'Exit the exam browser' }).count()).toBe(0);

    const finished = () => [...lms.state.quizSubmissions.values()].filter((submission) => submission.finishedAt !== null).length;
    const submissionsBefore = finished();
    await page.locator('textarea[name="question_1"]').fill('Because the secure exam browser was used.');
    await Promise.all([
      page.waitForURL(`${lmsUrl}/courses/${COURSE}/quizzes/${QUIZ}`, { timeout: 15_000 }),
      page.locator('#submit_quiz_button').click(),
    ]);
    expect(finished()).toBe(submissionsBefore + 1);
    expect(lms.state.latestQuizAttempt(Number(QUIZ), 3)).toMatchObject({ quizId: Number(QUIZ), userId: 3, finishedAt: expect.any(String) });

    const exit = page.getByRole('link', { name: 'Exit the exam browser' });
    await exit.waitFor({ timeout: 15_000 });
    expect(await page.locator(PANEL).getByRole('heading', { level: 2 }).textContent()).toBe('Quiz submitted');
    const href = await exit.getAttribute('href');
    expect(href).toMatch(new RegExp(`^${serviceUrl}/exb/exit/session/${COURSE}/${CONTENT_ID}/[A-Za-z0-9_-]{43}$`));
    // The result page is not an assessment page: no proof there, the exit grant came from the take page.
    expect(callsOf(tab, 'POST', '/api/exb/').filter((call) => call.status !== 200)).toEqual([]);

    await Promise.all([page.waitForURL(href!, { timeout: 15_000 }), exit.click()]);
    const leave = page.getByRole('link', { name: 'Leave the exam browser' });
    await leave.waitFor();
    const completion = page.waitForResponse((response) => response.url() === opened.quitUrl);
    await leave.click();
    const quit = await completion;
    expect(quit.status()).toBe(200);
    expect(quit.headers()['x-exb-quit']).toBe('true');
    expect(tab.problems).toEqual([]);
    await tab.close();
  });

  it('submits a code the LMS refuses only once, then says so instead of looping', async () => {
    // Someone changed the code in the LMS behind the service's back.
    const quiz = lms.state.quizzes.get(Number(QUIZ))!;
    quiz.accessCode = 'changed-in-the-lms';
    try {
      const opened = await studentConfiguration();
      const tab = await openTab({ examBrowser: SimulatedExamBrowser.fromConfiguration(opened), lmsUser: 'student1' });
      const { page } = tab;
      const since = lastSeq();
      await takeQuiz(page, QUIZ);
      const notice = page.locator(PANEL).getByText('The quiz did not accept the access code.', { exact: false });
      await notice.waitFor({ timeout: 15_000 });
      await settled(page);

      expect(codePosts(QUIZ, since).map((call) => call.body.access_code)).toEqual([accessCode]);
      expect(await page.locator('form.access_code_form').count()).toBe(1);
      expect(await page.locator('#quiz_access_code').inputValue()).toBe('');
      expect(tab.problems).toEqual([]);
      await tab.close();
    } finally {
      quiz.accessCode = accessCode;
    }
  });

  /** Redemptions fail for real: PostgreSQL refuses the exit grant's insert `times` times. */
  const failRedemptions = (times: number) =>
    failNextWrites(t.databaseUrl, { table: 'exb_student_token', operation: 'INSERT', when: "new.purpose = 'exit-grant'", times });

  it('redeems with a fresh proof after a failed redemption, and the quiz opens', async () => {
    const opened = await studentConfiguration();
    const fault = await failRedemptions(1);
    try {
      const tab = await openTab({ examBrowser: SimulatedExamBrowser.fromConfiguration(opened), lmsUser: 'student1' });
      const { page } = tab;
      const since = lastSeq();
      await takeQuiz(page, QUIZ);
      await page.locator('#submit_quiz_form').waitFor({ timeout: 15_000 });
      await settled(page);

      expect(await fault.refused()).toBe(1);
      expect(codePosts(QUIZ, since).map((call) => call.body.access_code)).toEqual([accessCode]);
      // The prompt page: proof, failed redemption, fresh proof, redemption; then the open quiz proves for its tools.
      expect(callsOf(tab, 'POST', `/api/exb/access-code/${COURSE}/${CONTENT_ID}`).map((call) => call.status)).toEqual([500, 200, 200]);
      expect(callsOf(tab, 'POST', `/api/exb/access-proof/${COURSE}/${CONTENT_ID}`).map((call) => call.status)).toEqual([200, 200, 200]);
      expect(await page.locator(PANEL).count()).toBe(0);
      expect(tab.problems.filter((problem) => !/500/.test(problem))).toEqual([]);
      await tab.close();
    } finally {
      await fault.remove();
    }
  });

  it('tells the student to reload when the retried redemption fails too, and leaves the prompt alone', async () => {
    const opened = await studentConfiguration();
    const fault = await failRedemptions(2);
    try {
      const tab = await openTab({ examBrowser: SimulatedExamBrowser.fromConfiguration(opened), lmsUser: 'student1' });
      const { page } = tab;
      const since = lastSeq();
      await takeQuiz(page, QUIZ);
      const panel = page.locator(PANEL);
      await panel.waitFor({ timeout: 15_000 });
      await settled(page);

      expect(await panel.getByRole('heading', { level: 2 }).textContent()).toBe('Access code not available');
      expect(await panel.textContent()).toContain('Reload this page to try again.');
      expect(callsOf(tab, 'POST', '/api/exb/access-code/').map((call) => call.status)).toEqual([500, 500]);
      expect(await page.locator('form.access_code_form').count()).toBe(1);
      expect(await page.locator('#quiz_access_code').inputValue()).toBe('');
      expect(codePosts(QUIZ, since)).toEqual([]);
      expect(await page.content()).not.toContain(accessCode);
      expect(tab.problems.filter((problem) => !/500/.test(problem))).toEqual([]);
      await tab.close();
    } finally {
      await fault.remove();
    }
  });

  it('leaves a prompt with two code fields alone, even with a released code', async () => {
    const quiz = lms.state.quizzes.get(Number(QUIZ))!;
    quiz.accessCodePromptFields = 2;
    try {
      const opened = await studentConfiguration();
      const tab = await openTab({ examBrowser: SimulatedExamBrowser.fromConfiguration(opened), lmsUser: 'student1' });
      const { page } = tab;
      const since = lastSeq();
      const redeemed = page.waitForResponse(
        (response) =>
          response.url() === `${serviceUrl}/api/exb/access-code/${COURSE}/${CONTENT_ID}` && response.request().method() === 'POST',
        { timeout: 15_000 },
      );
      await takeQuiz(page, QUIZ);
      expect((await redeemed).status()).toBe(200);
      await settled(page);

      const fields = page.locator('form.access_code_form [name="access_code"]');
      expect(await fields.count()).toBe(2);
      expect(await fields.nth(0).inputValue()).toBe('');
      expect(await fields.nth(1).inputValue()).toBe('');
      expect(codePosts(QUIZ, since)).toEqual([]);
      expect(new URL(page.url()).pathname).toBe(`/courses/${COURSE}/quizzes/${QUIZ}/take`);
      expect(await page.locator('#submit_quiz_form').count()).toBe(0);
      expect(tab.problems).toEqual([]);
      await tab.close();
    } finally {
      delete quiz.accessCodePromptFields;
    }
  });
});
