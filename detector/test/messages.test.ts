import { describe, expect, it } from 'vitest';
import { runDetector } from '../src/detector-run.js';
import { createText, interpolate, pageLocale } from '../src/messages.js';
import { EMPTY_PANEL, PANEL_ATTRIBUTE, renderPanel } from '../src/panel.js';
import { LMS, MESSAGES, SERVICE, asDomWindow, createWindow, detectorSetup } from './support.js';

const TAKE_URL = `${LMS}/courses/1234/quizzes/512/take?user_id=55`;

/** A page declaring `lang` on its root element and, where given, the LMS's `ENV`. */
function page(lang: string | null, env?: unknown): Window {
  const win = createWindow(`${LMS}/courses/1/quizzes/2/take`);
  if (lang !== null) win.document.documentElement.setAttribute('lang', lang);
  if (env !== undefined) Object.defineProperty(win, 'ENV', { configurable: true, get: () => (typeof env === 'function' ? env() : env) });
  return asDomWindow(win);
}

describe('the LMS page’s language', () => {
  it.each([
    ['de', 'de'],
    ['de-DE', 'de'],
    ['de_AT', 'de'],
    ['DE-ch', 'de'],
    ['en', 'en'],
    ['en-GB', 'en'],
  ] as const)('<html lang="%s"> speaks %s', (lang, locale) => {
    expect(pageLocale(page(lang))).toBe(locale);
  });

  it('reads the LMS’s ENV.LOCALE when the page declares no language', () => {
    expect(pageLocale(page(null, { LOCALE: 'de' }))).toBe('de');
    expect(pageLocale(page('', { LOCALE: 'de-DE' }))).toBe('de');
  });

  it('prefers the declared page language, and answers a language the service does not speak in English', () => {
    expect(pageLocale(page('en', { LOCALE: 'de' }))).toBe('en');
    expect(pageLocale(page('fr', { LOCALE: 'de' }))).toBe('en');
    expect(pageLocale(page('pt-BR'))).toBe('en');
  });

  it('falls back to English without any declaration, and when the page’s ENV throws or is not an object', () => {
    expect(pageLocale(page(null))).toBe('en');
    expect(pageLocale(page(null, () => { throw new Error('page getter'); }))).toBe('en');
    expect(pageLocale(page(null, 'de'))).toBe('en');
    expect(pageLocale(page(null, { LOCALE: 42 }))).toBe('en');
  });
});

describe('prompts', () => {
  it('fills {{values}}, literally, and leaves a placeholder without a value as written', () => {
    expect(interpolate('{{label}} (x)', { label: 'Calc $& $1' })).toBe('Calc $& $1 (x)');
    expect(interpolate('{{ label }} and {{other}}', { label: 'A' })).toBe('A and {{other}}');
    expect(interpolate('{{toString}}', {})).toBe('{{toString}}');
  });

  it('speaks the chosen language and falls back to English, then to the key', () => {
    expect(createText(MESSAGES, 'de')('requiredHeading')).toBe('Sicherer Exam-Browser erforderlich');
    expect(createText(MESSAGES, 'en')('requiredHeading')).toBe('Secure exam browser required');
    const partial = { en: MESSAGES.en, de: { ...MESSAGES.de, exitLink: undefined } } as unknown as typeof MESSAGES;
    expect(createText(partial, 'de')('exitLink')).toBe('Exit the exam browser');
    expect(createText(undefined, 'de')('exitLink')).toBe('exitLink');
  });

  it('renders the panel in German, tools named as opening a new window', () => {
    const doc = page('de').document;
    const german = createText(MESSAGES, 'de');
    const tools = [{ id: 'calc', label: 'Rechner', url: 'https://tools.example.edu/calc' }];
    const required = renderPanel(doc, { ...EMPTY_PANEL, notice: { kind: 'exam-browser-required', setupUrl: `${SERVICE}/exb/quiz/1/classicquiz_2` } }, german)!;
    expect(required.querySelector('h2')?.textContent).toBe('Sicherer Exam-Browser erforderlich');
    expect(required.querySelector('a')?.textContent).toBe('Konfiguration für den Exam-Browser herunterladen');
    const quitUrl = `${SERVICE}/exb/exit/session/1/classicquiz_2/${'E'.repeat(42)}A`;
    const submitted = renderPanel(doc, { ...EMPTY_PANEL, tools, quitUrl }, german)!;
    expect(submitted.querySelector('h2')?.textContent).toBe('Quiz abgegeben');
    expect(submitted.querySelector('h3')?.textContent).toBe('Prüfungswerkzeuge');
    const [exit, tool] = Array.from(submitted.querySelectorAll('a'));
    expect(exit?.textContent).toBe('Exam-Browser beenden');
    expect(exit?.hasAttribute('aria-label')).toBe(false);
    expect(tool?.textContent).toBe('Rechner');
    expect(tool?.getAttribute('aria-label')).toBe('Rechner (öffnet in einem neuen Fenster)');
  });
});

describe('detector on a German LMS page', () => {
  it('tells an ordinary browser in German that the exam browser is required', async () => {
    const { ctx } = detectorSetup({
      url: TAKE_URL,
      lang: 'de',
      routes: { [`GET ${SERVICE}/api/exb/requirement/1234/classicquiz_512`]: () => ({ status: 200, body: { success: true, exbRequired: true } }) },
    });
    expect((await runDetector(ctx)).outcome).toBe('exam-browser-required');
    const panel = ctx.document.querySelector(`[${PANEL_ATTRIBUTE}]`);
    expect(panel?.querySelector('h2')?.textContent).toBe('Sicherer Exam-Browser erforderlich');
    expect(panel?.textContent).toContain('Laden Sie hier, in diesem Browser, die einmalige Konfiguration herunter');
  });
});
