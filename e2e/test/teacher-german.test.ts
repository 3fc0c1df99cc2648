import type { Locator } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../src/support/axe.js';
import { browserAvailable } from '../src/support/browser.js';
import { PAGE_TIMEOUT_MS } from '../src/support/tool-frame.js';
import { TeacherSession, type ConnectWords, type LeaveWords } from './teacher-session.js';

const EXIT_PASSWORD = 'verlassen-42';
const MIDTERM = 'classicquiz_201';

/** The tool's words the walk's shared steps act on. */
const GERMAN: ConnectWords & { leave: LeaveWords } = {
  authorize: 'Tool im LMS autorisieren',
  refresh: 'Aus dem LMS aktualisieren',
  connected: /^LMS:\s*Verbunden$/,
  leave: {
    title: 'Ohne Speichern verlassen?',
    text: 'Die Änderungen an den Prüfungseinstellungen von Midterm exam sind nicht gespeichert.',
    stay: 'Weiter bearbeiten',
  },
};

/**
 * The refusals the walk provokes on purpose: requiring the exam browser before an exit password exists (409) and
 * policies the rules refuse (400). Any other error answer of the service counts as a problem.
 */
function provokedRefusal(url: string, status: number): boolean {
  const procedures = decodeURIComponent(new URL(url).pathname.replace(/^\/trpc\//, '')).split(',');
  const provoked: Record<number, string> = { 400: 'instructor.policy.saveStructured', 409: 'instructor.enforcement.setRequired' };
  return url.includes('/trpc/') && procedures.includes(provoked[status] ?? '');
}

/**
 * A German-speaking instructor's whole walk through the development LMS: every step speaks German, including the
 * refusals of the policy rules, which the server words in English for its API.
 */
describe.runIf(browserAvailable())('the teacher view in German', { timeout: 180_000 }, () => {
  let s: TeacherSession;

  beforeAll(async () => {
    s = await TeacherSession.start({ screenshotsVariable: 'TEACHER_GERMAN_SCREENSHOTS', provokedRefusal, locale: 'de' });
  });
  afterAll(async () => {
    await s?.close();
  });
  afterEach(async (test) => {
    if (test.task.result?.state === 'fail' && s?.tool) await s.screenshot(`failed-${test.task.name.replace(/\W+/g, '-')}`).catch(() => {});
  });

  const tool = () => s.tool;
  const isFocused = (locator: Locator) => locator.evaluate((element) => element === document.activeElement);
  const row = (title: string) => tool().getByRole('row').filter({ has: tool().getByRole('rowheader', { name: title, exact: true }) });
  const accessible = () => seriousViolations(s.page, { frame: 'iframe#tool_content' });
  const noSidewaysScrolling = () => tool().evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

  it('launches in German and asks to connect the LMS', async () => {
    await s.launch();
    await expect.poll(() => tool().evaluate(() => document.documentElement.lang), { timeout: PAGE_TIMEOUT_MS }).toBe('de');
    await s.visible(tool().getByRole('heading', { name: 'Mit dem LMS verbinden' }), PAGE_TIMEOUT_MS);
    await s.visible(tool().getByText(/^LMS:\s*Nicht verbunden$/));
    await s.visible(tool().getByText('Angemeldet als Ian Instructor, Lehrperson in diesem Kurs.', { exact: false }));
    await s.screenshot('01-connect');
    expect(await accessible()).toEqual([]);
  });

  it('authorizes in the LMS popup and lists the quizzes in German', async () => {
    await s.authorize(GERMAN);
    await tool().getByRole('button', { name: GERMAN.refresh }).click();
    await s.visible(tool().getByText('6 Prüfungen gefunden.'));
    await s.visible(tool().getByRole('columnheader', { name: 'Prüfung', exact: true }));
    expect(await row('Final exam (New Quizzes)').getByRole('cell').first().textContent()).toBe('Neues Quiz');
    expect(await row('Midterm exam').getByRole('cell').first().textContent()).toBe('Klassisches Quiz');
    // Before it is required, a new quiz says that its students will be shown the code in the exam browser.
    await s.visible(row('Final exam (New Quizzes)').getByText('sehen die Studierenden den Zugangscode im Exam-Browser', { exact: false }));
    await s.visible(tool().getByText('Die Einrichtung dieses Kurses ist noch nicht abgeschlossen.', { exact: false }));
    await s.screenshot('02-assessments');
    expect(await accessible()).toEqual([]);
  });

  it('asks for an exit password first, then requires the exam browser for a classic and a new quiz', async () => {
    await tool().getByLabel('Exam-Browser für Midterm exam verlangen').click({ force: true });
    await s.visible(tool().getByText('Zuerst wird ein Exit-Passwort benötigt.'));
    await s.screenshot('03-exit-password-needed');
    await tool().getByRole('button', { name: 'Exit-Passwort für den Kurs festlegen' }).click();

    await s.visible(tool().getByRole('heading', { name: 'Kursvorgaben', level: 2 }));
    // The link left with its tab; the focus is on the field it asked to set, not dropped.
    await expect.poll(() => isFocused(tool().getByLabel(/^Exit-Passwort festlegen/))).toBe(true);
    await tool().getByLabel(/^Exit-Passwort festlegen/).fill(EXIT_PASSWORD);
    await tool().getByLabel('Die Einrichtung dieses Kurses ist abgeschlossen').click({ force: true });
    await tool().getByRole('button', { name: 'Website hinzufügen' }).click();
    await tool().getByRole('group', { name: 'Kurswebsite 1' }).getByLabel('Adresse der Seite').fill('https://dictionary.example.org/define');
    await tool().getByRole('button', { name: 'Website hinzufügen' }).click();
    const wholeSite = tool().getByRole('group', { name: 'Kurswebsite 2' });
    await wholeSite.getByLabel('Zulassen', { exact: true }).click();
    await tool().getByRole('option', { name: 'Gesamte Website' }).click();
    await wholeSite.getByLabel(/^Website/).fill('de.wikipedia.org');
    await wholeSite.getByLabel('de.wikipedia.org und alle Subdomains davon zulassen').click({ force: true });
    await tool().getByRole('button', { name: 'Kursvorgaben speichern' }).click();
    await s.visible(tool().getByText('Kursvorgaben gespeichert.'));
    await s.visible(tool().getByLabel(/^Neues Exit-Passwort/));
    await s.screenshot('04-course-defaults');
    expect(await accessible()).toEqual([]);

    await tool().getByRole('tab', { name: 'Prüfungen' }).click();
    for (const title of ['Midterm exam', 'Final exam (New Quizzes)']) {
      await tool().getByLabel(`Exam-Browser für ${title} verlangen`).click({ force: true });
      await s.visible(row(title).getByText('Exam-Browser erforderlich'));
    }
    expect(s.lms.state.quizzes.get(201)!.accessCode).toEqual(expect.any(String));
    expect(s.lms.state.assignments.get(301)!.newQuiz!.quizSettings.require_student_access_code).toBe(true);
    await s.screenshot('05-enforced');
  });

  it('shows the refusals of the exam-settings rules in German, at their fields', async () => {
    await tool().getByRole('button', { name: 'Einstellungen für Midterm exam' }).click();
    await s.visible(tool().getByRole('heading', { name: 'Midterm exam', level: 2 }));
    await s.visible(tool().getByRole('heading', { name: 'Aktivität' }));
    // Dates in the page's language: 25.11.2026, 14:05:09.
    await s.visible(tool().getByTestId('activity-panel').getByText(/\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}:\d{2}/));
    await s.visible(tool().getByTestId('activity-panel').getByText('Exam-Browser verlangt'));

    // The course's list, a whole site with its subdomains.
    const courseList = tool().getByRole('list', { name: 'Websites des Kurses' });
    await s.visible(courseList.getByText('de.wikipedia.org mit allen Subdomains'));
    expect(await courseList.locator('code').allTextContents()).toEqual(['https://dictionary.example.org/define', 'de.wikipedia.org']);
    // The summary names the exact page by its whole address and the site with its subdomains, as the list does.
    const summary = tool().locator('section[aria-labelledby="summary-heading"]');
    await expect
      .poll(() => summary.getByRole('definition').filter({ hasText: 'dictionary.example.org' }).first().textContent())
      .toBe('https://dictionary.example.org/define, de.wikipedia.org mit allen Subdomains');
    await s.screenshotOf(summary, '05b-summary-exact-page');

    await tool().getByLabel('Eigene Liste für diese Prüfung verwenden').click({ force: true });
    await tool().getByRole('button', { name: 'Website hinzufügen' }).click();
    const third = tool().getByRole('group', { name: 'Website 3' });
    const address = third.getByLabel('Adresse der Seite');
    await address.fill('http://insecure.example.com/page');
    // The switch waits while the form holds changes.
    await s.visible(tool().getByText('Speichern oder verwerfen Sie zuerst die Änderungen unten', { exact: false }));
    await tool().getByRole('button', { name: 'Einstellungen speichern' }).click();
    await s.visible(third.getByText('Nur genaue https://-Adressen sind zulässig'));
    await expect.poll(() => isFocused(address)).toBe(true);
    expect(await address.getAttribute('aria-invalid')).toBe('true');
    await s.visible(tool().getByText('Die Einstellungen wurden nicht gespeichert: Nur genaue https://-Adressen sind zulässig'));
    await s.screenshot('06-refused-in-german');
    await s.screenshotOf(third, '06b-refused-field');
    expect(await accessible()).toEqual([]);

    // An address no filter expression can mean, refused at the field in German.
    await address.fill('https://woerterbuch.example.org/suche?mail=ana%40schule.example.org');
    await tool().getByRole('button', { name: 'Einstellungen speichern' }).click();
    await s.visible(third.getByText('Der Exam-Browser liest, was vor einem "@" steht, als Benutzernamen', { exact: false }));
    await expect.poll(() => isFocused(address)).toBe(true);
    await s.screenshotOf(third, '06c-at-sign-refused');
    // The editor's help states the freedoms of an exact page.
    await s.visible(tool().getByText('lässt bei einer Adresse ohne Abfrage jede Abfrage zu (?page=2)', { exact: false }));

    // A whole site is confirmed with the words the refusal quotes. The address's refusal goes with the address.
    await third.getByLabel('Zulassen', { exact: true }).click();
    await tool().getByRole('option', { name: 'Gesamte Website' }).click();
    await expect.poll(() => third.getByText('Der Exam-Browser liest, was vor einem "@" steht', { exact: false }).count()).toBe(0);
    await s.screenshotOf(third, '06d-refusal-gone-after-switch');
    // InstUI puts a field's message inside its label, so the accessible name starts with the label text.
    await third.getByLabel(/^Website/).fill('example.com');
    await tool().getByRole('button', { name: 'Einstellungen speichern' }).click();
    await s.visible(third.getByText('bestätigen Sie dies mit dem Häkchen bei „example.com und alle Subdomains davon zulassen“', { exact: false }));
    await expect.poll(() => isFocused(third.getByLabel('example.com und alle Subdomains davon zulassen'))).toBe(true);
    await s.screenshotOf(third, '07-whole-site-confirmation');
    await third.getByLabel('example.com und alle Subdomains davon zulassen').click({ force: true });

    // A rule the server checks beyond the input schema: the launch address of a tool for this assessment only.
    await tool().getByRole('button', { name: 'Tool für diese Prüfung hinzufügen' }).click();
    await tool().getByRole('group', { name: 'Prüfungs-Tool 1' }).getByLabel('Name für Studierende').fill('Rechner');
    const launch = tool().getByRole('group', { name: 'Prüfungs-Tool 1' }).getByLabel(/^Startadresse/);
    await launch.fill('http://rechner.example.com/app');
    await tool().getByRole('button', { name: 'Einstellungen speichern' }).click();
    await s.visible(tool().getByRole('group', { name: 'Prüfungs-Tool 1' }).getByText('Startadresse: Nur genaue https://-Adressen sind zulässig'));
    await expect.poll(() => isFocused(launch)).toBe(true);
    await s.screenshotOf(tool().getByRole('group', { name: 'Prüfungs-Tool 1' }), '07b-launch-address-refused');

    // The form's own rule, before anything is sent.
    await tool().getByRole('radiogroup', { name: 'Exit-Passwort' }).getByLabel('Eigenes für diese Prüfung festlegen').click({ force: true });
    await tool().getByRole('button', { name: 'Einstellungen speichern' }).click();
    await s.visible(tool().getByText('Geben Sie das Exit-Passwort für diese Prüfung ein oder wählen Sie „Unverändert lassen“', { exact: false }));
    expect(await isFocused(tool().getByLabel(/^Exit-Passwort für diese Prüfung/))).toBe(true);
  });

  it('asks before leaving unsaved changes, in German', async () => {
    await s.stayOnLeaveQuestion(tool().getByRole('button', { name: 'Alle Prüfungen' }), GERMAN.leave, async () => {
      await s.screenshot('08-leave-question');
      expect(await accessible()).toEqual([]);
    });

    await tool().getByRole('radiogroup', { name: 'Exit-Passwort' }).getByLabel('Unverändert lassen').click({ force: true });
    await tool().getByRole('group', { name: 'Prüfungs-Tool 1' }).getByLabel(/^Startadresse/).fill('https://rechner.example.com/app');
    await tool().getByRole('button', { name: 'Einstellungen speichern' }).click();
    await s.visible(tool().getByText('Prüfungseinstellungen gespeichert.'));
    expect((await s.settings.loadAssessmentSettings('101', MIDTERM))?.urlRules).toEqual([
      expect.objectContaining({ match: 'exact', value: 'https://dictionary.example.org/define' }),
      expect.objectContaining({ match: 'domain', value: 'de.wikipedia.org', broadDomainConfirmed: true }),
      expect.objectContaining({ match: 'domain', value: 'example.com', broadDomainConfirmed: true }),
    ]);
  });

  it('reveals the passwords with a countdown in German', async () => {
    await tool().getByRole('button', { name: 'Passwörter anzeigen' }).click();
    await s.visible(tool().getByRole('definition').filter({ hasText: EXIT_PASSWORD }));
    await s.visible(tool().getByText('Passwörter für diese Prüfung'));
    await s.visible(tool().getByText('Vorgabe des Kurses'));
    await s.visible(tool().getByText(/^Wird in \d+ s ausgeblendet$/));
    await s.screenshot('09-passwords-revealed');
    expect(await accessible()).toEqual([]);
    await tool().getByRole('button', { name: 'Jetzt ausblenden' }).click();
    await expect.poll(() => tool().getByText(EXIT_PASSWORD).count()).toBe(0);
    await s.visible(tool().getByRole('button', { name: 'Passwörter anzeigen' }));
  });

  it('fits a 360 px frame without scrolling sideways', async () => {
    await s.page.setViewportSize({ width: 360, height: 800 });
    await s.visible(tool().getByRole('heading', { name: 'Midterm exam', level: 2 }));
    expect(await noSidewaysScrolling()).toBe(true);
    await s.screenshot('10-narrow-editor');
    await tool().getByRole('button', { name: 'Alle Prüfungen' }).click();
    await s.visible(tool().getByRole('rowheader', { name: 'Midterm exam' }));
    expect(await noSidewaysScrolling()).toBe(true);
    await s.screenshot('11-narrow-assessments');
    expect(await accessible()).toEqual([]);
    await tool().getByRole('tab', { name: 'Kursvorgaben' }).click();
    await s.visible(tool().getByRole('heading', { name: 'Kursvorgaben', level: 2 }));
    expect(await noSidewaysScrolling()).toBe(true);
    // The panel fades in; the picture is of the page as it then stands.
    await s.page.waitForTimeout(500);
    await s.screenshot('12-narrow-course-defaults');
    await s.page.setViewportSize({ width: 1100, height: 900 });
  });

  it('renders without script errors or unexpected refusals', () => {
    expect(s.problems).toEqual([]);
  });
});
