import type { Frame } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { demoSeed, type LmsSeed } from '../src/lms/index.js';
import { browserAvailable } from '../src/support/browser.js';
import { PAGE_TIMEOUT_MS } from '../src/support/tool-frame.js';
import { useAdminSession } from './admin-session.js';

/** A root-account administrator of the demo school whose LMS speaks German. */
const GERMAN_ADMIN = { id: 40, name: 'Greta Gruber', email: 'greta.gruber@example.edu', persona: 'administrator-de', label: 'German-speaking administrator', locale: 'de-DE' };

function germanSchool(): LmsSeed {
  const seed = demoSeed();
  return { ...seed, users: [...seed.users, GERMAN_ADMIN], accountAdmins: [...(seed.accountAdmins ?? []), { userId: GERMAN_ADMIN.id, accountId: 1 }] };
}

/** The words of each step, as the administrator reads them in either language. */
const LANGUAGES = [
  {
    lang: 'en',
    launch: 'Launch as administrator',
    seed: undefined,
    authorize: 'Authorize administrator access in the LMS',
    connectedTab: 'Connected courses',
    connectTab: 'Connect courses',
    pasteLabel: 'Course ids or course addresses',
    connectOne: 'Connect 1 course',
    connected: 'Connected 1 course.',
    refresh: 'Refresh from LMS',
    found: 'Found 6 quizzes in the LMS.',
    newExit: 'New exit password',
    replaceExit: 'Replace exit password',
    require: (title: string) => `Require the exam browser for ${title}`,
    required: 'Required',
    missingBadge: 'Not protected in the LMS',
    unmanagedBadge: 'Access code not managed here',
    staleBadge: 'LMS code changed',
    missingReason: 'The LMS has no access code on this quiz, so any browser can open it.',
    staleReason: 'The LMS has another access code than the one the service gives to exam browsers.',
    reapply: 'Re-apply protection',
    accept: 'Accept the LMS’s code',
    reapplied: 'Protection is back in place: the LMS holds the access code again.',
    accepted: 'The LMS’s access code is now the one released to exam browsers.',
    manage: (title: string) => `Passwords and codes of ${title}`,
    newCode: 'New access code',
    confirmCode: 'Every exam-browser configuration students already downloaded for this quiz stops working',
    replaceCode: 'Replace the access code',
    cancel: 'Cancel',
    codeReplaced: 'A new access code is in place; the previous one no longer works.',
    notRead: 'Not read from the LMS yet',
    neverRefreshed: 'Never',
    detailNotRead: 'quizzes not read from the LMS yet: choose “Refresh from LMS”',
    detailRefreshed: 'refreshed just now',
    auditTab: 'Audit trail',
    auditReapplied: 'Protection re-applied in the LMS',
    auditAccepted: 'The LMS’s access code accepted',
    passwordsRegion: 'Course passwords',
    newShown: /^New exit password \(hidden in \d+ s\)$/,
    reveal: 'Reveal passwords',
    lmsDisagrees: 'The LMS disagrees: The LMS has another access code than the one the service gives to exam browsers. Repair it in the quiz list.',
    close: (title: string) => `Close the actions of ${title}`,
  },
  {
    lang: 'de',
    launch: `Launch as ${GERMAN_ADMIN.label}`,
    seed: germanSchool(),
    authorize: 'Administrationszugriff im LMS autorisieren',
    connectedTab: 'Verbundene Kurse',
    connectTab: 'Kurse verbinden',
    pasteLabel: 'Kurs-IDs oder Kursadressen',
    connectOne: '1 Kurs verbinden',
    connected: '1 Kurs verbunden.',
    refresh: 'Aus dem LMS aktualisieren',
    found: '6 Quizze im LMS gefunden.',
    newExit: 'Neues Exit-Passwort',
    replaceExit: 'Exit-Passwort ersetzen',
    require: (title: string) => `Exam-Browser für ${title} verlangen`,
    required: 'Pflicht',
    missingBadge: 'Im LMS nicht geschützt',
    unmanagedBadge: 'Fremder Zugangscode',
    staleBadge: 'Code im LMS geändert',
    missingReason: 'Im LMS hat dieses Quiz keinen Zugangscode, daher kann jeder Browser es öffnen.',
    staleReason: 'Im LMS ist ein anderer Zugangscode hinterlegt als der, den der Dienst an Exam-Browser ausgibt.',
    reapply: 'Schutz erneut anwenden',
    accept: 'Code aus dem LMS übernehmen',
    reapplied: 'Der Schutz ist wiederhergestellt: Der Zugangscode ist wieder im LMS hinterlegt.',
    accepted: 'Der Zugangscode aus dem LMS ist jetzt der Code, den Exam-Browser erhalten.',
    manage: (title: string) => `Passwörter und Codes für ${title}`,
    newCode: 'Neuer Zugangscode',
    confirmCode: 'Jede Exam-Browser-Konfiguration, die Studierende für dieses Quiz bereits heruntergeladen haben, funktioniert dann nicht mehr',
    replaceCode: 'Zugangscode ersetzen',
    cancel: 'Abbrechen',
    codeReplaced: 'Ein neuer Zugangscode ist eingerichtet; der bisherige gilt nicht mehr.',
    notRead: 'Noch nicht aus dem LMS gelesen',
    neverRefreshed: 'Noch nie',
    detailNotRead: 'Quizze noch nicht aus dem LMS gelesen: Wählen Sie „Aus dem LMS aktualisieren“',
    detailRefreshed: 'aktualisiert gerade eben',
    auditTab: 'Änderungsprotokoll',
    auditReapplied: 'Schutz im LMS erneut angewendet',
    auditAccepted: 'Zugangscode aus dem LMS übernommen',
    passwordsRegion: 'Passwörter des Kurses',
    newShown: /^Neues Exit-Passwort \(wird in \d+ s ausgeblendet\)$/,
    reveal: 'Passwörter anzeigen',
    lmsDisagrees:
      'Das LMS weicht ab: Im LMS ist ein anderer Zugangscode hinterlegt als der, den der Dienst an Exam-Browser ausgibt. Beheben Sie es in der Quizliste.',
    close: (title: string) => `Aktionen für ${title} schließen`,
  },
] as const;

const MIDTERM = 'Midterm exam';
const FINAL = 'Final exam (New Quizzes)';

describe.runIf(browserAvailable()).each(LANGUAGES)('the administrator repairs what the LMS changed, in Chromium ($lang)', { timeout: 180_000 }, (words) => {
  // Screenshots of every step, to be looked at: `ADMIN_REPAIRS_SCREENSHOTS` or a fresh temporary folder.
  const s = useAdminSession({
    name: `admin-repairs-${words.lang}`,
    screenshotsVariable: 'ADMIN_REPAIRS_SCREENSHOTS',
    settleBeforeScreenshots: true,
    clock: true,
    ...(words.seed ? { seed: words.seed } : {}),
  });
  let tool: Frame;

  function row(name: string) {
    return tool.getByRole('row').filter({ has: tool.getByRole('rowheader', { name, exact: false }) });
  }

  /** The text alignment of every row header (the course's or quiz's name) of the tables on screen. */
  function rowHeaderAlignment(): Promise<string[]> {
    return tool.evaluate(() => [...document.querySelectorAll('th[scope="row"]')].map((cell) => getComputedStyle(cell).textAlign));
  }

  async function check(name: string, options: { stretch?: boolean } = {}) {
    await s.screenshot(`${words.lang}-${name}`, options);
    expect(await s.accessibilityViolations()).toEqual([]);
  }

  it('connects a course, reads it and enforces two quizzes', async () => {
    tool = await s.launch(words.launch);
    await s.authorize(tool.getByRole('tab', { name: words.connectedTab }), tool.getByRole('button', { name: words.authorize }));
    expect(await tool.evaluate(() => document.documentElement.lang)).toBe(words.lang);
    await tool.getByRole('tab', { name: words.connectTab }).click();
    await tool.getByLabel(words.pasteLabel).fill('101');
    await tool.getByRole('button', { name: words.connectOne }).click();
    await s.visible(tool.getByText(words.connected), PAGE_TIMEOUT_MS);
    await tool.getByRole('tab', { name: words.connectedTab }).click();
    // Before its first read a course has no counts to show, and says so.
    const listed = row('Biology 101');
    await s.visible(listed.getByText(words.notRead));
    await s.visible(listed.getByRole('cell', { name: words.neverRefreshed, exact: true }));
    // The course's name starts at the left like the other columns, not centred.
    expect(new Set(await rowHeaderAlignment())).toEqual(new Set(['start']));
    await check('00-course-not-read-yet');
    await tool.getByRole('button', { name: 'Biology 101' }).click();
    await s.visible(tool.getByText(words.detailNotRead, { exact: false }));
    await tool.getByRole('button', { name: words.refresh }).click();
    await s.visible(tool.getByText(words.found), PAGE_TIMEOUT_MS);
    await s.visible(tool.getByText(words.detailRefreshed, { exact: false }));
    // The seed's Lab safety check carries an access code set in the LMS, which nobody enforces here.
    await s.visible(row('Lab safety check').getByText(words.unmanagedBadge, { exact: true }));
    expect(await row(MIDTERM).getByText(words.unmanagedBadge, { exact: true }).count()).toBe(0);
    await tool.getByRole('button', { name: words.newExit }).click();
    await tool.getByRole('button', { name: words.replaceExit }).click();
    // Enforcing needs the course's exit password: a switch clicked while the password is still being saved is refused
    // and asks for one, so the walk waits until the new password is on screen.
    await s.visible(tool.getByText(words.newShown), PAGE_TIMEOUT_MS);
    for (const title of [MIDTERM, FINAL]) {
      await tool.getByLabel(words.require(title)).click({ force: true });
      await s.visible(row(title).getByText(words.required, { exact: true }), PAGE_TIMEOUT_MS);
    }
    expect(new Set(await rowHeaderAlignment())).toEqual(new Set(['start']));
  });

  it('shows only the current exit password once a new one is set', async () => {
    const passwords = tool.getByRole('region', { name: words.passwordsRegion });
    // The exit password set before enforcing is shown once, for 30 seconds.
    await s.page.clock.fastForward(31_000);
    await s.visible(passwords.getByRole('button', { name: words.newExit, exact: true }));
    await passwords.getByRole('button', { name: words.reveal }).click();
    // The exit password is the revealed list's only value: the course has no start password.
    const revealed = passwords.locator('dd code.exb-value');
    await s.visible(revealed);
    expect(await revealed.count()).toBe(1);
    const old = (await revealed.textContent())!;
    expect(old).toMatch(/^[0-9a-z]{4}(-[0-9a-z]{4}){3}$/);
    await passwords.getByRole('button', { name: words.newExit, exact: true }).click();
    await passwords.getByRole('button', { name: words.replaceExit }).click();
    await s.visible(passwords.getByText(words.newShown), PAGE_TIMEOUT_MS);
    const current = passwords.locator('code.exb-value');
    expect(await current.count()).toBe(1);
    expect(await current.textContent()).not.toBe(old);
    expect(await tool.getByText(old).count()).toBe(0);
    await s.visible(passwords.getByRole('button', { name: words.reveal }));
    await check('01-only-the-new-exit-password');
  });

  it('explains a code the LMS lost or replaced, with the teacher’s two repairs', async () => {
    s.lms.state.quizzes.get(201)!.accessCode = null;
    Object.assign(s.lms.state.newQuizSettings(301), { require_student_access_code: true, student_access_code: 'set-by-hand' });
    await tool.getByRole('button', { name: words.refresh }).click();
    await s.visible(row(MIDTERM).getByText(words.missingBadge), PAGE_TIMEOUT_MS);
    await s.visible(row(MIDTERM).getByText(words.missingReason));
    await s.visible(row(FINAL).getByText(words.staleBadge));
    await s.visible(row(FINAL).getByText(words.staleReason));
    // A lost code can only be put back; a replaced one may also be kept.
    expect(await row(MIDTERM).getByRole('button', { name: words.accept }).count()).toBe(0);
    await s.visible(row(FINAL).getByRole('button', { name: words.accept }));
    await check('02-drift-explained');

    // The reveal of the replaced code says that exam browsers receive another one.
    await tool.getByRole('button', { name: words.manage(FINAL) }).click();
    const panel = tool.getByRole('region', { name: FINAL });
    await panel.getByRole('button', { name: words.reveal }).click();
    await s.visible(panel.getByRole('definition').filter({ hasText: 'set-by-hand' }), PAGE_TIMEOUT_MS);
    await s.visible(panel.getByText(words.lmsDisagrees));
    await check('03-reveal-lms-disagrees');
    await tool.getByRole('button', { name: words.close(FINAL) }).click();

    // Each repair is an LMS write and a read back: its outcome is awaited, then the badge is gone.
    await row(MIDTERM).getByRole('button', { name: words.reapply }).click();
    await s.visible(tool.getByText(`${MIDTERM}: ${words.reapplied}`), PAGE_TIMEOUT_MS);
    await s.gone(row(MIDTERM).getByText(words.missingBadge));
    expect(s.lms.state.quizzes.get(201)!.accessCode).toMatch(/^[0-9a-z]{24}$/);

    await row(FINAL).getByRole('button', { name: words.accept }).click();
    await s.visible(tool.getByText(`${FINAL}: ${words.accepted}`), PAGE_TIMEOUT_MS);
    await s.gone(row(FINAL).getByText(words.staleBadge));
    const stored = await s.sql<{ verification_status: string }>("select verification_status from assessment_setting where content_id = 'newquiz:101:301'");
    expect(stored).toEqual([{ verification_status: 'verified' }]);
    await check('04-drift-repaired');
  });

  it('asks before a new access code, saying what it voids', async () => {
    const before = s.lms.state.quizzes.get(201)!.accessCode;
    await tool.getByRole('button', { name: words.manage(MIDTERM) }).click();
    await tool.getByRole('button', { name: words.newCode }).click();
    await s.visible(tool.getByText(words.confirmCode, { exact: false }));
    // The confirmation takes the focus, so a keyboard user answers it next.
    await expect.poll(() => tool.evaluate(() => document.activeElement?.textContent ?? ''), { timeout: PAGE_TIMEOUT_MS }).toBe(words.replaceCode);
    await check('05-new-code-confirm');
    await tool.getByRole('button', { name: words.cancel, exact: true }).click();
    await s.gone(tool.getByText(words.confirmCode, { exact: false }));
    expect(s.lms.state.quizzes.get(201)!.accessCode).toBe(before);

    await tool.getByRole('button', { name: words.newCode }).click();
    await tool.getByRole('button', { name: words.replaceCode }).click();
    await s.visible(tool.getByText(words.codeReplaced), PAGE_TIMEOUT_MS);
    expect(s.lms.state.quizzes.get(201)!.accessCode).not.toBe(before);
  });

  it('names the repairs in the audit trail in the page’s language', async () => {
    await tool.getByRole('button', { name: words.lang === 'en' ? 'All courses' : 'Alle Kurse' }).click();
    await tool.getByRole('tab', { name: words.auditTab }).click();
    await s.visible(tool.getByRole('cell', { name: words.auditReapplied, exact: true }), PAGE_TIMEOUT_MS);
    await s.visible(tool.getByRole('cell', { name: words.auditAccepted, exact: true }));
    // Courses and quizzes by their names, not their ids.
    await s.visible(tool.getByRole('cell', { name: 'Biology 101 · Midterm exam', exact: true }));
    await s.visible(tool.getByRole('cell', { name: 'Biology 101 · Final exam (New Quizzes)', exact: true }));
    expect(await tool.getByText(/classicquiz_201|newquiz:101:301/).count()).toBe(0);
    // No action shows its stored name.
    expect(await tool.getByText(/^(enforcement|course|policy|password|tool-preset|exam-tool|course-defaults)\.[a-z-]+$/).count()).toBe(0);
    await check('05b-audit-trail');
    await tool.getByRole('tab', { name: words.connectedTab }).click();
    await tool.getByRole('button', { name: 'Biology 101' }).click();
    await s.visible(tool.getByRole('button', { name: words.refresh }), PAGE_TIMEOUT_MS);
  });

  it('fits a 360 px frame with the repairs shown', async () => {
    s.lms.state.quizzes.get(201)!.accessCode = null;
    await tool.getByRole('button', { name: words.refresh }).click();
    await s.visible(row(MIDTERM).getByText(words.missingReason), PAGE_TIMEOUT_MS);
    const margin = await s.page.evaluate(() => window.innerWidth - document.querySelector('iframe#tool_content')!.getBoundingClientRect().width);
    await s.page.setViewportSize({ width: Math.round(360 + margin), height: 900 });
    // The frame's media query fires after the resize and the tables re-render stacked (a `div` with role table instead
    // of a `table`); measured before that, the wide table still overflows.
    await s.visible(tool.locator('div[role="table"]'), PAGE_TIMEOUT_MS);
    await s.gone(tool.locator('table'));
    // What sticks out of the frame; a list that scrolls sideways on its own (the exam-day board's tabs) holds what does
    // not fit within its own box, which must fit.
    const wide = await tool.evaluate(() =>
      [...document.querySelectorAll('body *')]
        .filter((element) => element.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
        .filter((element) => {
          for (let parent = element.parentElement; parent !== null && parent !== document.body; parent = parent.parentElement) {
            const scrolls = ['auto', 'scroll'].includes(getComputedStyle(parent).overflowX);
            if (scrolls) return parent.getBoundingClientRect().right > document.documentElement.clientWidth + 1;
          }
          return true;
        })
        .slice(0, 5)
        .map((element) => `${element.tagName}.${element.className}: ${element.textContent?.slice(0, 60)}`),
    );
    expect(wide, JSON.stringify(wide)).toEqual([]);
    await check('06-narrow');
    await s.page.setViewportSize({ width: 1100, height: 900 });
    await s.visible(tool.locator('table'), PAGE_TIMEOUT_MS);
    expect(s.problems).toEqual([]);
  });
});
