import type { Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoSeed } from '../src/lms/index.js';
import { seriousViolations } from '../src/support/axe.js';
import { browserAvailable } from '../src/support/browser.js';
import { approveLmsAuthorization, launchIntoToolFrame, PAGE_TIMEOUT_MS, waitForView } from '../src/support/tool-frame.js';
import { CONTENT_ID, COURSE, QUIZ_ID, QUIZ_TITLE, StudentSession } from './student-session.js';

/** A student of the demo course whose LMS speaks German; the demo seed's own people stay as they are. */
const GERMAN_STUDENT = { id: 90, name: 'Jonas Becker', persona: 'student-de', label: 'German student', locale: 'de-DE' };
const LAUNCH = `Launch as ${GERMAN_STUDENT.label}`;
const NARROW = { width: 360, height: 780 };

function germanSeed() {
  const seed = demoSeed();
  seed.users.push({ ...GERMAN_STUDENT, email: 'jonas.becker@example.edu' });
  seed.enrollments = [...(seed.enrollments ?? []), { userId: GERMAN_STUDENT.id, courseId: Number(COURSE), type: 'student' }];
  return seed;
}

/**
 * A student whose LMS speaks German walks the whole flow: the instructor's part runs in English through the shared
 * helpers, then every page of the service the student sees is German, from the launch's `launch_presentation.locale`.
 * Set `STUDENT_GERMAN_SCREENSHOTS` to a folder to keep screenshots of each step.
 */
describe.runIf(browserAvailable())('a German student’s exam-browser flow in Chromium', () => {
  let session: StudentSession;

  beforeAll(async () => {
    session = await StudentSession.start({
      oauthClientSecret: 'student-german-oauth-client-secret',
      seed: germanSeed(),
      screenshotsVariable: 'STUDENT_GERMAN_SCREENSHOTS',
    });
  });
  afterAll(async () => {
    await session?.close();
  });

  /** Text the tool's page shows; alerts are also copied to a hidden live region, which does not count. */
  const shown = (frame: Frame, text: string) => frame.locator('#root').getByText(text, { exact: false });

  /** The page is the service's, in German: its language, its title and no serious accessibility violation. */
  async function expectGermanPage(page: Page, frame: Frame, heading: string) {
    await frame.getByRole('heading', { level: 1, name: heading }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await frame.evaluate(() => document.documentElement.lang)).toBe('de');
    expect(await frame.evaluate(() => document.title)).toBe(`${heading} · Exam-Browser-Pflicht`);
    const scope = frame === page.mainFrame() ? {} : { frame: 'iframe#tool_content' };
    expect(await seriousViolations(page, scope)).toEqual([]);
  }

  it('the instructor requires the exam browser for the quiz', async () => {
    await session.requireExamBrowserForQuiz();
  });

  it('lists the quiz in German, connects the sign-in, hands off once, and the exam browser proves and redeems', async () => {
    const { page } = await session.newBrowser();
    const frame = await launchIntoToolFrame(page, session.lms.launchPageUrl, LAUNCH, session.serviceUrl);
    expect(await waitForView(frame, 'student')).toMatchObject({ locale: 'de', courseId: COURSE });

    await expectGermanPage(page, frame, 'Biology 101');
    await frame.getByRole('heading', { level: 2, name: 'Quizze, die den Exam-Browser erfordern' }).waitFor();
    const item = frame.locator(`li[data-content-id="${CONTENT_ID}"]`);
    expect(await item.getByRole('heading', { level: 3, name: QUIZ_TITLE }).count()).toBe(1);
    expect(await item.getByText('Laden Sie die Datei herunter, wenn Sie beginnen möchten: Sie öffnet dieses Quiz im Exam-Browser').count()).toBe(1);
    const download = item.getByRole('button', { name: `Konfiguration herunterladen für „${QUIZ_TITLE}“` });
    expect(await download.count()).toBe(1);
    expect(await frame.getByRole('link', { name: 'Einrichtungstest ausführen' }).getAttribute('href')).toBe('/exb/check');
    expect(await frame.getByRole('button', { name: 'Anmeldung prüfen' }).count()).toBe(1);
    await session.screenshot(page, 'de-01-student-view', frame);

    // Jonas has not connected an LMS account: the download asks for it, in German, and the step takes focus.
    await download.click();
    const connect = frame.getByRole('button', { name: 'LMS-Konto verbinden' });
    await connect.waitFor({ timeout: PAGE_TIMEOUT_MS });
    await expect.poll(() => frame.evaluate(() => document.activeElement?.textContent)).toBe('Anmeldung durch den Exam-Browser erlauben');
    expect(await shown(frame, `danach wird der Download für „${QUIZ_TITLE}“ fortgesetzt`).count()).toBe(1);
    expect(await seriousViolations(page, { frame: 'iframe#tool_content' })).toEqual([]);
    await session.screenshot(page, 'de-02-readiness-step', frame);

    // The popup's completion page speaks German too; its signal lets the view check the sign-in and continue.
    const [popup] = await Promise.all([page.waitForEvent('popup'), connect.click()]);
    await approveLmsAuthorization(popup, session.lms.baseUrl, session.serviceUrl);
    expect(await waitForView(popup, 'student-session-connected')).toMatchObject({ locale: 'de' });
    await popup.getByRole('heading', { level: 1, name: 'Mit dem LMS verbunden' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await popup.evaluate(() => document.documentElement.lang)).toBe('de');
    await session.screenshot(popup, 'de-03-connected-popup');

    const exbLaunchUrl = await session.handoffLaunchUrl(frame, 'student-list');
    await session.screenshot(page, 'de-04-handoff', frame);
    const opened = await session.openInSimulator(exbLaunchUrl);
    expect(opened.layers).toEqual(['gzip', 'pkhs', 'plnd', 'gzip']);
    expect(opened.startUrl).toMatch(new RegExp(`^${session.serviceUrl}/exb/session-start/${COURSE}/${CONTENT_ID}\\?key=[A-Za-z0-9_-]{43}$`));
    const { page: examBrowser } = await session.proveAndRedeem(opened);
    await examBrowser.close();
  });

  it('an ordinary browser on the quiz page gets the German required-browser page, also in a 360 px window', async () => {
    const { page } = await session.newBrowser();
    // The course launch gives this browser its LMS login and its German session with the tool.
    await launchIntoToolFrame(page, session.lms.launchPageUrl, LAUNCH, session.serviceUrl);
    await page.goto(`${session.lms.baseUrl}/courses/${COURSE}/quizzes/${QUIZ_ID}/take`);
    // The detector, loaded by the LMS theme, links to the required-browser page of this quiz.
    const link = page.locator(`[data-exb-panel] a[href^="${session.serviceUrl}/exb/quiz/${COURSE}/${CONTENT_ID}"]`);
    await link.waitFor({ timeout: PAGE_TIMEOUT_MS });
    await link.click();
    expect(await waitForView(page, 'exb-required')).toMatchObject({ locale: 'de', contentId: CONTENT_ID, assessmentKind: 'classic' });

    await expectGermanPage(page, page.mainFrame(), 'Dieses Quiz erfordert den sicheren Exam-Browser');
    await page.getByRole('heading', { level: 2, name: 'Quiz im Exam-Browser starten' }).waitFor();
    expect(await page.getByText('Der Exam-Browser öffnet das Quiz im LMS und erhält den Zugangscode des Quiz selbst').count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Prüfen, ob der Exam-Browser funktioniert' }).getAttribute('href')).toBe('/exb/check');
    expect(await page.getByRole('link', { name: 'Zurück zum LMS' }).getAttribute('href')).toBe(
      `${session.lms.baseUrl}/courses/${COURSE}/quizzes/${QUIZ_ID}`,
    );
    const download = page.getByRole('button', { name: 'Konfiguration herunterladen' });
    await download.waitFor({ timeout: PAGE_TIMEOUT_MS });
    await session.screenshot(page, 'de-05-required-browser');

    // German's longer words still fit a phone-sized window without sideways scrolling.
    await page.setViewportSize(NARROW);
    await session.screenshot(page, 'de-06-required-browser-360');
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);

    await download.click();
    expect((await session.openInSimulator(await session.handoffLaunchUrl(page.mainFrame(), 'assessment'))).startUrl).toContain(
      `/exb/session-start/${COURSE}/${CONTENT_ID}?key=`,
    );
  });

  it('tells a refused download by its error code in German', async () => {
    const { context, page } = await session.newBrowser({ viewport: NARROW });
    const frame = await launchIntoToolFrame(page, `${session.lms.launchPageUrl}?display=window`, LAUNCH, session.serviceUrl);
    await waitForView(frame, 'student');
    const download = frame.getByRole('button', { name: `Konfiguration herunterladen für „${QUIZ_TITLE}“` });
    await download.waitFor({ timeout: PAGE_TIMEOUT_MS });

    // The API's own message stays English; the page says the code's message in its language.
    const refusals: [number, Record<string, unknown>, string][] = [
      [403, { success: false, error_code: 'LTI_PRINCIPAL_REQUIRED', message: 'Open the tool from your course.' }, 'Öffnen Sie das Tool erneut aus Ihrem Kurs im LMS.'],
      [400, { success: false, error_code: 'EXB_CONFIG_UNAVAILABLE', message: 'Could not be built.' }, 'konnte nicht erstellt werden. Wenden Sie sich an Ihre Lehrenden.'],
      [429, { success: false, error_code: 'RATE_LIMITED', message: 'Too many.' }, 'Zu viele Downloads in kurzer Zeit.'],
    ];
    for (const [status, body, text] of refusals) {
      await context.route(`${session.serviceUrl}/api/exb/config-grant/**`, (route) => route.fulfill({ status, json: body }));
      await download.click();
      await shown(frame, text).waitFor({ timeout: PAGE_TIMEOUT_MS });
      expect(await shown(frame, body.message as string).count()).toBe(0);
      await context.unroute(`${session.serviceUrl}/api/exb/config-grant/**`);
    }
    await session.screenshot(page, 'de-07-refused-download-360');
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('shows the pages without script errors or content-security-policy violations', () => {
    expect(session.problems).toEqual([]);
  });
});
