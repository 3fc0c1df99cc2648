import type { Frame } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationDownloadError, downloadConfiguration, type OpenedConfiguration } from '../src/exb-simulator/index.js';
import { browserAvailable } from '../src/support/browser.js';
import { approveLmsAuthorization, bootstrapOf, launchIntoToolFrame, PAGE_TIMEOUT_MS, waitForView } from '../src/support/tool-frame.js';
import { CONTENT_ID, COURSE, QUIZ_ID, QUIZ_TITLE, StudentSession } from './student-session.js';

const DOWNLOAD_BUTTON = `Download configuration for ${QUIZ_TITLE}`;
const READINESS_HEADING = 'Let the exam browser sign you in';

describe.runIf(browserAvailable())('student exam-browser flow from the development LMS in Chromium', () => {
  // Set `E2E_SCREENSHOT_DIR` to keep screenshots of the student pages for a look.
  let session: StudentSession;

  beforeAll(async () => {
    session = await StudentSession.start({ oauthClientSecret: 'student-flow-oauth-client-secret', screenshotsVariable: 'E2E_SCREENSHOT_DIR' });
  });
  afterAll(async () => {
    await session?.close();
  });

  /** Text the tool's page shows; alerts are also copied to a hidden live region, which does not count. */
  const shown = (frame: Frame, text: string) => frame.locator('#root').getByText(text);

  /** The handoff's launch URL, and the page's own words for it. */
  async function handoffLaunchUrl(frame: Frame, purpose: string): Promise<string> {
    const exbLaunchUrl = await session.handoffLaunchUrl(frame, purpose);
    expect(await frame.getByRole('link', { name: 'Open the exam browser' }).getAttribute('href')).toBe(exbLaunchUrl);
    return exbLaunchUrl;
  }

  it('an instructor enables the exam browser for a classic quiz through the instructor routes', async () => {
    await session.requireExamBrowserForQuiz();
  });

  it('the student view lists the quiz, connects the LMS sign-in when the download needs it, and hands off once', async () => {
    const { page } = await session.newBrowser();
    const frame = await launchIntoToolFrame(page, session.lms.launchPageUrl, 'Launch as student 1', session.serviceUrl);
    const data = await waitForView(frame, 'student');
    expect(data).toMatchObject({
      courseId: COURSE,
      authorizeUrl: '/api/student-session-authorize',
      sessionReadiness: { dismissed: false },
      actionToken: expect.stringMatching(/^v1\.config-grant\./),
    });
    // Only the enforced quiz, with its download entry point.
    expect(data.assessments).toEqual([
      { contentId: CONTENT_ID, kind: 'classic', title: QUIZ_TITLE, configGrantUrl: `/api/exb/config-grant/${COURSE}/${CONTENT_ID}` },
    ]);

    const download = frame.getByRole('button', { name: DOWNLOAD_BUTTON });
    await download.waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await frame.getByRole('heading', { level: 3, name: QUIZ_TITLE }).count()).toBe(1);
    expect(await frame.getByRole('link', { name: 'Run the setup check' }).getAttribute('href')).toBe('/exb/check');
    // Offered before the exam, and dismissible.
    expect(await frame.getByRole('button', { name: 'Check the sign-in' }).count()).toBe(1);
    await session.screenshot(page, 'student-view-in-lms-frame', frame);

    // Sam has not connected an LMS account: the download asks for it, and the readiness step takes focus.
    await download.click();
    const connect = frame.getByRole('button', { name: 'Connect your LMS account' });
    await connect.waitFor({ timeout: PAGE_TIMEOUT_MS });
    await expect.poll(() => frame.evaluate(() => document.activeElement?.textContent)).toBe(READINESS_HEADING);
    expect(await shown(frame, `the download for “${QUIZ_TITLE}” continues`).count()).toBe(1);
    await session.screenshot(page, 'student-view-readiness-step', frame);

    // The popup connects the account; its completion signal lets the view check the sign-in and continue the download.
    const [popup] = await Promise.all([page.waitForEvent('popup'), connect.click()]);
    await approveLmsAuthorization(popup, session.lms.baseUrl, session.serviceUrl);
    expect(await waitForView(popup, 'student-session-connected')).toBeTruthy();

    const exbLaunchUrl = await handoffLaunchUrl(frame, 'student-list');
    expect(await frame.getByRole('link', { name: 'Back to the quiz list' }).count()).toBe(1);
    await session.screenshot(page, 'handoff-page-in-lms-frame', frame);
    // The handoff is consumed: the same page never serves the launch URL again.
    await frame.goto(frame.url());
    expect(await bootstrapOf(frame)).toMatchObject({ view: 'exb-launch-handoff', available: false });
    expect(await frame.content()).not.toContain(exbLaunchUrl);

    const opened = await session.openInSimulator(exbLaunchUrl);
    expect(opened.layers).toEqual(['gzip', 'pkhs', 'plnd', 'gzip']);
    // The configuration starts at its one-time session start, which signs the exam browser in as Sam and returns to the quiz.
    expect(opened.startUrl).toMatch(new RegExp(`^${session.serviceUrl}/exb/session-start/${COURSE}/${CONTENT_ID}\\?key=[A-Za-z0-9_-]{43}$`));
    expect(opened.quitUrl).toMatch(new RegExp(`^${session.serviceUrl}/exb/exit/complete/${COURSE}/${CONTENT_ID}/[A-Za-z0-9_-]{43}$`));
    // The grant was spent by the download.
    await expect(downloadConfiguration(exbLaunchUrl)).rejects.toBeInstanceOf(ConfigurationDownloadError);

    await takeQuizInExamBrowser(opened);
  });

  /**
   * The exam browser: the page API of the opened configuration in every frame, the start URL first. The LMS theme
   * loads the detector on the take page; it proves the Config Key, redeems the access code and submits the prompt.
   */
  async function takeQuizInExamBrowser(opened: OpenedConfiguration) {
    const { page, redemptions } = await session.proveAndRedeem(opened);

    await page.locator('#submit_quiz_button').click();
    await page.locator('#quiz_submission_results').waitFor({ timeout: PAGE_TIMEOUT_MS });

    // Exit: on the LMS's result page the detector links to the exit page of a grant released to this exam browser
    // (the one kept by the last take page that finished loading); that page links to the bound quit route, which sends
    // the browser to the configuration's quit URL. Only that completion page tells the exam browser to quit.
    const exit = page.locator('[data-exb-panel]').getByRole('link', { name: 'Exit the exam browser' });
    await exit.waitFor({ timeout: PAGE_TIMEOUT_MS });
    const exitUrl = (await exit.getAttribute('href'))!;
    expect(redemptions.map((released) => `${session.serviceUrl}/exb/exit/session/${COURSE}/${CONTENT_ID}/${released.exitGrant}`)).toContain(exitUrl);
    const exitPage = page.waitForResponse((response) => response.url() === exitUrl);
    await exit.click();
    expect((await exitPage).status()).toBe(200);
    expect(await waitForView(page, 'exb-exit-session')).toMatchObject({ courseId: COURSE, contentId: CONTENT_ID });
    const quit = page.waitForResponse((response) => response.url().startsWith(`${session.serviceUrl}/exb/exit/quit/`));
    const complete = page.waitForResponse((response) => response.url().startsWith(`${session.serviceUrl}/exb/exit/complete/`));
    await page.getByRole('link', { name: 'Leave the exam browser' }).click();
    const quitResponse = await quit;
    expect(quitResponse.status()).toBe(303);
    expect(quitResponse.headers()['x-exb-quit']).toBeUndefined();
    const completion = await complete;
    expect(completion.status()).toBe(200);
    expect(completion.url()).toBe(opened.quitUrl);
    expect(completion.headers()['x-exb-quit']).toBe('true');
    expect(completion.headers()['x-exb-exit']).toBe('submitted');
  }

  it('the exb-required view of an assessment link downloads through the handoff at once for a connected student', async () => {
    const { page } = await session.newBrowser();
    const frame = await launchIntoToolFrame(page, session.lms.launchPageUrl, `Open "${QUIZ_TITLE}" as student 1`, session.serviceUrl);
    const data = await waitForView(frame, 'exb-required');
    expect(data).toMatchObject({
      contentId: CONTENT_ID,
      assessmentKind: 'classic',
      configGrantUrl: `/api/exb/config-grant/${COURSE}/${CONTENT_ID}`,
      setupCheckUrl: '/exb/check',
    });
    const download = frame.getByRole('button', { name: 'Download the configuration' });
    await download.waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await frame.getByRole('heading', { level: 1 }).textContent()).toBe('This quiz requires the secure exam browser');
    expect(await frame.getByRole('link', { name: 'Check that the exam browser works' }).getAttribute('href')).toBe('/exb/check');
    expect(await frame.getByRole('link', { name: 'Back to the LMS' }).getAttribute('href')).toBe(`${session.lms.baseUrl}/courses/${COURSE}`);
    expect(await frame.getByRole('link', { name: 'Back to the LMS' }).getAttribute('target')).toBe('_top');
    await session.screenshot(page, 'exb-required-in-lms-frame', frame);

    await download.click();
    const exbLaunchUrl = await handoffLaunchUrl(frame, 'assessment');
    expect(await frame.getByRole('link', { name: 'Back to the course' }).count()).toBe(1);
    const opened = await session.openInSimulator(exbLaunchUrl);
    expect(opened.startUrl).toMatch(new RegExp(`^${session.serviceUrl}/exb/session-start/${COURSE}/${CONTENT_ID}\\?key=[A-Za-z0-9_-]{43}$`));
  });

  it('an ordinary browser on the LMS quiz page is sent to the required-browser page, which downloads too', async () => {
    const { page } = await session.newBrowser();
    // The course launch gives this browser its LMS login and its session with the tool.
    await launchIntoToolFrame(page, session.lms.launchPageUrl, 'Launch as student 1', session.serviceUrl);
    await page.goto(`${session.lms.baseUrl}/courses/${COURSE}/quizzes/${QUIZ_ID}/take`);
    // The detector, loaded by the LMS theme, confirms the requirement and links to the required-browser page.
    const link = page.locator('[data-exb-panel]').getByRole('link', { name: 'Get the exam browser configuration' });
    await link.waitFor({ timeout: PAGE_TIMEOUT_MS });
    await link.click();
    const data = await waitForView(page, 'exb-required');
    expect(page.url()).toContain(`${session.serviceUrl}/exb/quiz/${COURSE}/${CONTENT_ID}?lms_url=`);
    expect(data).toMatchObject({ contentId: CONTENT_ID, lmsReturnUrl: `${session.lms.baseUrl}/courses/${COURSE}/quizzes/${QUIZ_ID}` });
    const download = page.getByRole('button', { name: 'Download the configuration' });
    await download.waitFor({ timeout: PAGE_TIMEOUT_MS });
    await session.screenshot(page, 'exb-required-plain-window');

    await download.click();
    const exbLaunchUrl = await handoffLaunchUrl(page.mainFrame(), 'assessment');
    expect((await session.openInSimulator(exbLaunchUrl)).startUrl).toContain(`/exb/session-start/${COURSE}/${CONTENT_ID}?key=`);
  });

  it('a student who goes straight from the course to the quiz gets the configuration through the LMS launch, and takes it', async () => {
    // Logged in to the LMS only: this browser never opened the tool, so it has no session with it.
    const { context, page } = await session.newBrowser();
    const [name, value] = session.lms.webSessionCookie('student1').split('=') as [string, string];
    await context.addCookies([{ name, value, url: session.lms.baseUrl }]);
    await page.goto(`${session.lms.baseUrl}/courses/${COURSE}`);
    await page.goto(`${session.lms.baseUrl}/courses/${COURSE}/quizzes/${QUIZ_ID}/take`);
    const link = page.locator('[data-exb-panel]').getByRole('link', { name: 'Get the exam browser configuration' });
    await link.waitFor({ timeout: PAGE_TIMEOUT_MS });
    await link.click();
    // The view sends the browser through the LMS's launch of the tool at the quiz's exam-browser launch
    // (Canvas's /courses/:id/external_tools/retrieve?url=…), which renders the view in the tool frame with a session.
    await page.waitForURL((url) => url.pathname === `/courses/${COURSE}/external_tools/retrieve`, { timeout: PAGE_TIMEOUT_MS });
    expect(new URL(page.url()).searchParams.get('url')).toBe(`${session.serviceUrl}/exb/launch/${CONTENT_ID}`);
    let frame = page.frame({ name: 'tool_content' });
    await expect.poll(() => (frame = page.frame({ name: 'tool_content' }))?.url() ?? '', { timeout: PAGE_TIMEOUT_MS }).toContain(`${session.serviceUrl}/exb/launch/`);
    const data = await waitForView(frame!, 'exb-required');
    expect(data).toMatchObject({ contentId: CONTENT_ID, assessmentKind: 'classic' });
    const download = frame!.getByRole('button', { name: 'Download the configuration' });
    await download.waitFor({ timeout: PAGE_TIMEOUT_MS });
    await session.screenshot(page, 'exb-required-after-course-launch', frame!);
    await download.click();
    const opened = await session.openInSimulator(await handoffLaunchUrl(frame!, 'assessment'));
    expect(opened.startUrl).toContain(`/exb/session-start/${COURSE}/${CONTENT_ID}?key=`);
    await takeQuizInExamBrowser(opened);
  });

  it('the exam browser still signs the student in when it opens the configuration 35 seconds after the download', { timeout: 120_000 }, async () => {
    const { page } = await session.newBrowser();
    const frame = await launchIntoToolFrame(page, session.lms.launchPageUrl, `Open "${QUIZ_TITLE}" as student 1`, session.serviceUrl);
    await waitForView(frame, 'exb-required');
    const download = frame.getByRole('button', { name: 'Download the configuration' });
    await download.waitFor({ timeout: PAGE_TIMEOUT_MS });
    await download.click();
    const opened = await session.openInSimulator(await handoffLaunchUrl(frame, 'assessment'));
    // A start password, a "reconfigure?" dialog or a slow start: longer than the LMS's 30 seconds for a session token.
    await new Promise((resolve) => setTimeout(resolve, 35_000));
    await takeQuizInExamBrowser(opened);
  });

  it('the readiness prompt checks the sign-in and can be dismissed for good', async () => {
    // A phone-sized window: the page must work without the LMS frame and without horizontal scrolling.
    const { page } = await session.newBrowser({ viewport: { width: 375, height: 812 } });
    const frame = await launchIntoToolFrame(page, `${session.lms.launchPageUrl}?display=window`, 'Launch as student 1', session.serviceUrl);
    // Opened in the whole window rather than the LMS frame: the plain-browser layout.
    expect(frame).toBe(page.mainFrame());
    await waitForView(frame, 'student');
    // The LMS would show its terms of use first (Canvas's session-token answer says so): the student is told to accept
    // them before downloading, and checks again once they have.
    session.lms.state.termsAcceptancePending.add(3);
    await frame.getByRole('button', { name: 'Check the sign-in' }).click();
    await shown(frame, 'The LMS asks you to accept its terms of use first.').waitFor({ timeout: PAGE_TIMEOUT_MS });
    await session.screenshot(page, 'student-view-plain-window-terms');
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    session.lms.state.termsAcceptancePending.delete(3);
    await frame.getByRole('button', { name: 'Check again' }).click();
    await shown(frame, 'The exam browser can sign you in to the LMS. You are ready.').waitFor({ timeout: PAGE_TIMEOUT_MS });
    await session.screenshot(page, 'student-view-plain-window-ready');
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

    await frame.getByRole('button', { name: 'Don’t show this again' }).click();
    await expect.poll(() => frame.getByRole('heading', { name: READINESS_HEADING }).count()).toBe(0);
    await frame.goto(`${session.serviceUrl}/lti/launch`);
    expect(await waitForView(frame, 'student')).toMatchObject({ sessionReadiness: { dismissed: true } });
    await frame.getByRole('button', { name: DOWNLOAD_BUTTON }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await frame.getByRole('heading', { name: READINESS_HEADING }).count()).toBe(0);
  });

  it('explains refused downloads: rate limit, no configuration, ended session', async () => {
    const { context, page } = await session.newBrowser();
    const frame = await launchIntoToolFrame(page, session.lms.launchPageUrl, 'Launch as student 1', session.serviceUrl);
    await waitForView(frame, 'student');
    const download = frame.getByRole('button', { name: DOWNLOAD_BUTTON });
    await download.waitFor({ timeout: PAGE_TIMEOUT_MS });

    const refusals: [number, Record<string, unknown>, string][] = [
      [429, { success: false, error_code: 'RATE_LIMITED', message: 'Too many configuration requests.' }, 'Too many downloads in a short time'],
      [404, { success: false, message: 'No exam browser configuration is available for this quiz.' }, 'No exam browser configuration is available'],
      [403, { success: false, error_code: 'LTI_PRINCIPAL_REQUIRED', message: 'x' }, 'Open the tool again from your course in the LMS'],
    ];
    for (const [status, body, text] of refusals) {
      await context.route(`${session.serviceUrl}/api/exb/config-grant/**`, (route) => route.fulfill({ status, json: body }));
      await download.click();
      await shown(frame, text).waitFor({ timeout: PAGE_TIMEOUT_MS });
      await context.unroute(`${session.serviceUrl}/api/exb/config-grant/**`);
    }
    await session.screenshot(page, 'student-view-download-refused', frame);
    // The page stays usable after a refusal.
    expect(await download.isEnabled()).toBe(true);
  });

  it('shows the pages without script errors or content-security-policy violations', () => {
    expect(session.problems).toEqual([]);
  });
});
