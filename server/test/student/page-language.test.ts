import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapOf } from '../exb-public/helpers.js';
import { GERMAN_BROWSER as GERMAN, languageOf } from '../support/page-language.js';
import { sessionFor } from '../support/sessions.js';
import { COURSE, createStudentHarness, LMS, NEW_QUIZ, QUIZ, student, type StudentHarness } from './harness.js';

const ENGLISH = { 'accept-language': 'en-US,en;q=0.9' };

let h: StudentHarness;
beforeAll(async () => {
  h = await createStudentHarness();
  await h.enforce(QUIZ);
  await h.authorizeStudent(3);
});
afterAll(() => h.close());

const get = (url: string, headers: Record<string, string> = {}) => h.app.inject({ method: 'GET', url, headers });

async function handoffUrl(): Promise<string> {
  const grant = await h.grant(student(), QUIZ);
  expect(grant.statusCode, grant.body).toBe(200);
  return (grant.json() as { handoffUrl: string }).handoffUrl;
}

describe('the hand-off page', () => {
  it('speaks German to a browser asking for German, the same data in its bootstrap, and English by default', async () => {
    const german = await get(await handoffUrl(), GERMAN);
    expect(german.statusCode).toBe(200);
    expect(languageOf(german)).toEqual({ lang: 'de', title: 'Der Exam-Browser wird gestartet', locale: 'de' });
    expect(german.body).toContain('Exam-Browser öffnen');
    expect(german.body).toContain('Die Konfiguration lässt sich nur einmal und nur in den nächsten zwei Minuten verwenden.');
    expect(bootstrapOf(german.body)).toMatchObject({ view: 'exb-launch-handoff', available: true, lmsReturnUrl: `${LMS}/courses/${COURSE}` });

    const english = await get(await handoffUrl());
    expect(languageOf(english)).toEqual({ lang: 'en', title: 'Starting the exam browser', locale: 'en' });
    expect(english.body).toContain('Open the exam browser');
    expect(english.body).not.toContain('Exam-Browser öffnen');
  });

  it('speaks the language of a German launch’s session, whatever the browser asks for', async () => {
    const { cookie } = sessionFor(h.app, student(), { locale: 'de' });
    const response = await get(await handoffUrl(), { cookie, ...ENGLISH });
    expect(languageOf(response)).toEqual({ lang: 'de', title: 'Der Exam-Browser wird gestartet', locale: 'de' });
  });

  it('words a spent and an unknown hand-off in German', async () => {
    const url = await handoffUrl();
    await get(url);
    const used = await get(url, GERMAN);
    expect(languageOf(used)).toEqual({ lang: 'de', title: 'Der Exam-Browser wurde bereits gestartet', locale: 'de' });
    expect(used.body).toContain('Zurück zum Kurs');
    const unknown = await get('/exb/launch-handoff?key=nothing', GERMAN);
    expect(unknown.statusCode).toBe(404);
    expect(languageOf(unknown)).toEqual({ lang: 'de', title: 'Dieser Link ist nicht gültig', locale: 'de' });
  });
});

describe('exit pages', () => {
  it('words the manual exit page in German, and in English by default', async () => {
    const german = await get(`/exb/exit/${COURSE}/${QUIZ}`, GERMAN);
    expect(german.statusCode).toBe(200);
    expect(languageOf(german)).toEqual({ lang: 'de', title: 'Den Exam-Browser verlassen', locale: 'de' });
    expect(bootstrapOf(german.body)).toEqual({ view: 'exb-exit-manual', courseId: COURSE, contentId: QUIZ, locale: 'de' });
    expect(german.body).toContain('Diese Seite schließt den Exam-Browser nicht und gibt Ihr Quiz nicht ab.');
    const english = await get(`/exb/exit/${COURSE}/${QUIZ}`);
    expect(languageOf(english)).toEqual({ lang: 'en', title: 'Leaving the exam browser', locale: 'en' });
  });

  it('refuses an exit link in German with the same status, and says a retired link is gone', async () => {
    const refused = await get(`/exb/exit/session/${COURSE}/${QUIZ}`, GERMAN);
    expect(refused.statusCode).toBe(403);
    expect(languageOf(refused)).toEqual({ lang: 'de', title: 'Dieser Link zum Beenden ist nicht gültig', locale: 'de' });
    expect(refused.body).toContain(`href="${LMS}/courses/${COURSE}">Zurück zum Kurs</a>`);
    const gone = await get(`/exb/exit/manual/${COURSE}/${QUIZ}`, GERMAN);
    expect(gone.statusCode).toBe(410);
    expect(languageOf(gone)).toEqual({ lang: 'de', title: 'Dieser Link zum Beenden ist nicht mehr verfügbar', locale: 'de' });
  });
});

describe('notices of the required-browser view', () => {
  it('words a notice in German on the server, keeping its error code and status', async () => {
    const response = await get(`/exb/quiz/${COURSE}/${NEW_QUIZ}`, GERMAN);
    expect(response.statusCode).toBe(403);
    expect(languageOf(response)).toEqual({ lang: 'de', title: 'Öffnen Sie dieses Quiz aus dem LMS', locale: 'de' });
    expect(bootstrapOf(response.body)).toMatchObject({
      view: 'notice',
      title: 'Öffnen Sie dieses Quiz aus dem LMS',
      message: 'Diese Seite ist nur für klassische Quizze gedacht; öffnen Sie das Quiz über seine Aufgabe im LMS.',
      details: [{ label: 'Fehlercode', value: 'EXB_CLASSIC_QUIZ_ONLY' }],
    });
  });
});
