import type { Frame, Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { demoSeed, type LmsSeed } from '../src/lms/index.js';
import { browserAvailable } from '../src/support/browser.js';
import { PAGE_TIMEOUT_MS } from '../src/support/tool-frame.js';
import { useAdminSession } from './admin-session.js';

/** A root-account administrator of the demo school whose LMS speaks German; the demo's own people stay as they are. */
const GERMAN_ADMIN = { id: 40, name: 'Greta Gruber', email: 'greta.gruber@example.edu', persona: 'administrator-de', label: 'German-speaking administrator', locale: 'de-DE' };

function germanSchool(): LmsSeed {
  const seed = demoSeed();
  return { ...seed, users: [...seed.users, GERMAN_ADMIN], accountAdmins: [...(seed.accountAdmins ?? []), { userId: GERMAN_ADMIN.id, accountId: 1 }] };
}

/** How wide the tool's frame should be in the narrow step: a phone held upright. */
const NARROW_FRAME_PX = 360;

describe.runIf(browserAvailable())('the administrator dashboard in German in Chromium', { timeout: 180_000 }, () => {
  // Screenshots of every step, to be looked at: `ADMIN_GERMAN_SCREENSHOTS` or a fresh temporary folder.
  const s = useAdminSession({ name: 'admin-german', screenshotsVariable: 'ADMIN_GERMAN_SCREENSHOTS', seed: germanSchool(), settleBeforeScreenshots: true });
  let tool: Frame;

  /** The page is German: its language, and a text of this step in German. */
  async function german(text: Locator) {
    await s.visible(text);
    expect(await tool.evaluate(() => document.documentElement.lang)).toBe('de');
  }

  /** The step as the administrator sees it, and with no serious or critical accessibility violation. */
  async function check(name: string, options: { stretch?: boolean } = {}) {
    await s.screenshot(name, options);
    expect(await s.accessibilityViolations()).toEqual([]);
  }

  it('launches from the account navigation in German and asks for the administrator authorization', async () => {
    tool = await s.launch(`Launch as ${GERMAN_ADMIN.label}`);
    await german(tool.getByRole('heading', { level: 1, name: 'Example University: Exam-Browser-Administration' }));
    await s.visible(tool.getByRole('heading', { name: 'Administrationszugriff autorisieren' }));
    await s.visible(tool.getByText('Angemeldet als Greta Gruber, mit Administrationsrechten für das Hauptkonto.', { exact: false }));
    await check('01-autorisieren');
  });

  it('authorizes and shows the empty dashboard', async () => {
    await s.authorize(tool.getByRole('tab', { name: 'Verbundene Kurse' }), tool.getByRole('button', { name: 'Administrationszugriff im LMS autorisieren' }));
    await german(tool.getByText('Es sind noch keine Kurse verbunden.'));
    await s.visible(tool.getByText('Quizze mit Exam-Browser-Pflicht'));
    await s.visible(tool.getByLabel('Aktuelles Semester'));
    await check('02-leere-uebersicht');
  });

  it('connects a course by its id', async () => {
    await tool.getByRole('tab', { name: 'Kurse verbinden' }).click();
    await german(tool.getByRole('heading', { name: 'Kurse aus dem LMS verbinden' }));
    await s.visible(tool.getByRole('table', { name: 'LMS-Kurse des Kontos' }), 15_000);
    await tool.getByLabel('Kurs-IDs oder Kursadressen').fill('101');
    await s.visible(tool.getByText('1 Kurs erkannt.'));
    await tool.getByRole('button', { name: '1 Kurs verbinden' }).click();
    await s.visible(tool.getByText('1 Kurs verbunden.'));
    await s.visible(tool.getByText('(Kurs 101): verbunden'));
    await check('03-kurs-verbunden');
  });

  it('opens the course and reads its quizzes from the LMS', async () => {
    await tool.getByRole('tab', { name: 'Verbundene Kurse' }).click();
    await tool.getByRole('button', { name: 'Biology 101' }).click();
    await german(tool.getByRole('heading', { name: 'Biology 101', level: 2 }));
    await tool.getByRole('button', { name: 'Aus dem LMS aktualisieren' }).click();
    await s.visible(tool.getByText('6 Quizze im LMS gefunden.'));
    await s.visible(tool.getByRole('table', { name: 'Quizze von Biology 101' }));
    await s.visible(tool.getByRole('button', { name: 'Passwörter und Codes für Midterm exam' }));
    await s.visible(tool.getByLabel('Exam-Browser für Midterm exam verlangen'));
    await check('04-kurs');
  });

  it('sets a new exit password and reveals the course passwords', async () => {
    const passwords = tool.getByRole('region', { name: 'Passwörter des Kurses' });
    await passwords.getByRole('button', { name: 'Neues Exit-Passwort' }).click();
    await german(passwords.getByText('Das Exit-Passwort des Kurses durch ein neues, zufälliges ersetzen?', { exact: false }));
    await passwords.getByRole('button', { name: 'Exit-Passwort ersetzen' }).click();
    await s.visible(passwords.getByText(/^Neues Exit-Passwort \(wird in \d+ s ausgeblendet\)$/));
    const value = await passwords.locator('code.exb-value').first().textContent();
    expect(value).toMatch(/^[0-9a-z]{4}(-[0-9a-z]{4}){3}$/);
    // The course's reveal (its first button) shows the same exit password.
    await passwords.getByRole('button').first().click();
    await s.visible(passwords.getByRole('definition').filter({ hasText: value! }));
    await check('05-passwoerter');
  });

  it('opens the reset dialog, shows what it would remove, and cancels', async () => {
    await tool.getByRole('button', { name: 'Kurs zurücksetzen …' }).click();
    const dialog = tool.getByRole('dialog', { name: 'Biology 101 zurücksetzen' });
    await german(dialog.getByRole('heading', { name: 'Im LMS' }));
    await s.visible(dialog.getByText('Dieses Tool hat in diesem Kurs keinen Zugangscode gesetzt', { exact: false }));
    const confirm = dialog.getByRole('button', { name: 'Kurs zurücksetzen' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Geben Sie zur Bestätigung die Kurs-ID 101 ein').fill('102');
    await s.visible(dialog.getByText('Das ist nicht 101.'));
    await check('06-zuruecksetzen', { stretch: false });
    await dialog.getByRole('button', { name: 'Abbrechen' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await tool.evaluate(() => document.activeElement?.textContent ?? '')).toContain('Kurs zurücksetzen');
  });

  it('refuses a preset without a name at its field, in German, in a 360 px frame', async () => {
    await tool.getByRole('button', { name: 'Alle Kurse' }).click();
    await tool.getByRole('tab', { name: 'Tool-Vorlagen' }).click();
    await german(tool.getByText('Noch keine Vorlagen.'));
    // The LMS page keeps its margins; the viewport is as much wider as the frame is to be narrower than it.
    const margin = await s.page.evaluate(() => window.innerWidth - document.querySelector('iframe#tool_content')!.getBoundingClientRect().width);
    await s.page.setViewportSize({ width: Math.round(NARROW_FRAME_PX + margin), height: 900 });
    expect(Math.round(await s.page.evaluate(() => document.querySelector('iframe#tool_content')!.getBoundingClientRect().width))).toBe(NARROW_FRAME_PX);
    await tool.getByRole('button', { name: 'Neue Vorlage' }).click();
    const form = tool.getByRole('region', { name: 'Neue Tool-Vorlage' });
    await form.getByRole('button', { name: 'Vorlage erstellen' }).click();
    const name = form.getByLabel('Name der Vorlage');
    await s.visible(form.getByText('Geben Sie einen Namen für die Vorlage ein.'));
    // The message belongs to the name field, which has the focus.
    await expect.poll(() => name.evaluate((input) => input === document.activeElement)).toBe(true);
    // InstUI names a field's messages on the field that wraps the input.
    const description = await name.evaluate((input) => {
      const ids = input.closest('[aria-describedby]')?.getAttribute('aria-describedby') ?? '';
      return ids
        .split(/\s+/)
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' ');
    });
    expect(description).toContain('Geben Sie einen Namen für die Vorlage ein.');
    await expect.poll(() => s.fitsWidth(), { timeout: PAGE_TIMEOUT_MS }).toBe(true);
    await check('07-vorlage-ohne-namen-360px');
    await s.page.setViewportSize({ width: 1100, height: 900 });
  });

  it('creates the preset once the name is given', async () => {
    const form = tool.getByRole('region', { name: 'Neue Tool-Vorlage' });
    await form.getByLabel('Name der Vorlage').fill('Taschenrechner der Schule');
    // The tool's own fields follow the name and the description (their words are the instructor editor's).
    const fields = form.getByRole('textbox');
    await fields.nth(2).fill('Taschenrechner');
    await fields.nth(3).fill('https://rechner.example.edu/app');
    await form.getByRole('button', { name: 'Vorlage erstellen' }).click();
    const card = tool.getByRole('article').filter({ has: tool.getByRole('heading', { name: 'Taschenrechner der Schule' }) });
    await german(card.getByText('0 zugewiesen'));
    await s.visible(card.getByRole('button', { name: /^Kurse und Verlauf/ }));
    await check('08-vorlage-erstellt');
  });

  it('offers to roll out an edit of an assigned preset, with one state of its courses', async () => {
    const card = tool.getByRole('article').filter({ has: tool.getByRole('heading', { name: 'Taschenrechner der Schule' }) });
    await card.getByRole('button', { name: /^Kurse und Verlauf/ }).click();
    await tool.getByLabel('Biology 101 auswählen').click({ force: true });
    await tool.getByRole('button', { name: '1 ausgewähltem Kurs zuweisen' }).click();
    await s.visible(card.getByText('Verteilung abgeschlossen'), PAGE_TIMEOUT_MS);
    await s.visible(card.getByText('1 Kurs aktualisiert.'));
    await card.getByRole('button', { name: /^Bearbeiten/ }).click();
    await tool.getByLabel('Name für Studierende').fill('Wissenschaftlicher Taschenrechner');
    await tool.getByRole('button', { name: 'Änderungen speichern' }).click();
    await s.visible(card.getByText('1 ausstehend'), PAGE_TIMEOUT_MS);
    await german(card.getByText('1 Kurs wartet auf die aktuelle Fassung dieser Vorlage.'));
    await s.gone(card.getByText('Verteilung abgeschlossen'));
    await check('09-vorlage-geaendert-verteilen');
    const margin = await s.page.evaluate(() => window.innerWidth - document.querySelector('iframe#tool_content')!.getBoundingClientRect().width);
    await s.page.setViewportSize({ width: Math.round(NARROW_FRAME_PX + margin), height: 900 });
    await expect.poll(() => s.fitsWidth(), { timeout: PAGE_TIMEOUT_MS }).toBe(true);
    await check('09b-vorlage-geaendert-verteilen-360px');
    await s.page.setViewportSize({ width: 1100, height: 900 });
    await card.getByRole('button', { name: 'Kurse jetzt aktualisieren' }).click();
    await s.visible(card.getByText('1 Kurs aktualisiert.'), PAGE_TIMEOUT_MS);
    await s.gone(card.getByText('1 ausstehend'));
    await check('10-vorlage-verteilt');
    expect(s.problems).toEqual([]);
  });
});
