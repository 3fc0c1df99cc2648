import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendServiceUnavailable } from '../../src/http/kit/service-unavailable.js';
import { bootstrapOf } from '../exb-public/helpers.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { GERMAN_BROWSER, languageOf } from '../support/page-language.js';
import { instructor, sessionFor } from '../support/sessions.js';

const LMS = 'https://lms.example.test';
const BROWSER = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
const GERMAN = { ...BROWSER, ...GERMAN_BROWSER };

describe('pages the server words itself, in German and by default in English', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { BASE_URL: 'https://tool.example.test', LMS_URL: LMS } });
  });
  afterAll(() => t.close());

  const get = (url: string, headers: Record<string, string>) => t.app.inject({ method: 'GET', url, headers });

  it('the not-found page', async () => {
    const german = await get('/no-such-page', GERMAN);
    expect(german.statusCode).toBe(404);
    expect(languageOf(german)).toEqual({ lang: 'de', title: 'Seite nicht gefunden', locale: 'de' });
    expect(bootstrapOf(german.body)).toMatchObject({ locale: 'de', view: 'not-found', title: 'Seite nicht gefunden', lmsReturnUrl: LMS });
    expect(german.body).toContain('<noscript>Diese Seite benötigt JavaScript.</noscript>');
    const english = await get('/no-such-page', BROWSER);
    expect(languageOf(english)).toEqual({ lang: 'en', title: 'Page not found', locale: 'en' });
  });

  // Unknown addresses are answered outside the session's scope (no cookie is read for them), so the browser's language
  // decides, as for every page without a session.
  it('the not-found page follows the browser’s language; the JSON 404 stays English', async () => {
    expect(languageOf(await get('/no-such-page', GERMAN)).lang).toBe('de');
    const { cookie } = sessionFor(t.app, instructor(), { locale: 'de' });
    expect(languageOf(await get('/no-such-page', { ...BROWSER, cookie, 'accept-language': 'en' })).lang).toBe('en');
    const api = await get('/api/nothing-here', GERMAN);
    expect(api.json()).toEqual({ success: false, error_code: 'NOT_FOUND', message: 'No such API route.' });
  });

  it('the page for a tool opened outside the LMS', async () => {
    const german = await get('/login', GERMAN);
    expect(languageOf(german)).toEqual({ lang: 'de', title: 'Öffnen Sie dieses Tool aus Ihrem LMS' });
    expect(german.body).toContain('<h1>Öffnen Sie dieses Tool aus Ihrem LMS</h1>');
    expect(languageOf(await get('/login', BROWSER))).toEqual({ lang: 'en', title: 'Open this tool from your LMS' });
  });

  it('the setup check and its quit page', async () => {
    expect(languageOf(await get('/exb/check', GERMAN))).toEqual({ lang: 'de', title: 'Einrichtungstest für den Exam-Browser', locale: 'de' });
    const quit = await get('/exb/check/quit', GERMAN);
    expect(quit.headers['x-exb-quit']).toBe('true');
    expect(languageOf(quit)).toEqual({ lang: 'de', title: 'Einrichtungstest abgeschlossen' });
    expect(languageOf(await get('/exb/check/quit', BROWSER))).toEqual({ lang: 'en', title: 'Setup check finished' });
  });

  it('the video player frame', async () => {
    const german = await get('/exb/tool/video/dQw4w9WgXcQ', GERMAN);
    expect(languageOf(german).lang).toBe('de');
    expect(german.body).toContain('title="Videoplayer"');
  });

  it('an OAuth callback failure: German title, message and labels, the failure code unchanged', async () => {
    const response = await get('/api/oauth2callback?error=access_denied&error_description=Nope', GERMAN);
    expect(response.statusCode).toBe(400);
    expect(bootstrapOf(response.body)).toMatchObject({
      locale: 'de',
      view: 'oauth-error',
      errorCode: 'lms-access-denied',
      title: 'Die LMS-Autorisierung wurde nicht abgeschlossen',
      message: 'Die Autorisierung wurde im LMS abgebrochen. Das Tool kann das LMS erst in Ihrem Namen nutzen, wenn Sie es autorisieren. Starten Sie die Autorisierung erneut aus dem Tool.',
      details: [
        { label: 'LMS-Fehler', value: 'access_denied' },
        { label: 'Meldung des LMS', value: 'Nope' },
      ],
    });
  });

  it('a refused OAuth start: a German page for a browser, the contract’s English JSON for a script', async () => {
    const page = await get('/api/oauth2authorize', GERMAN);
    expect(page.statusCode).toBe(401);
    expect(languageOf(page)).toEqual({ lang: 'de', title: 'Die LMS-Autorisierung wurde nicht gestartet' });
    expect(page.body).toContain('Öffnen Sie zuerst das Tool aus dem LMS und starten Sie die Autorisierung dann dort.');
    const crossSite = await get('/api/oauth2authorize', { ...GERMAN, 'sec-fetch-site': 'cross-site' });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.body).toContain('Die LMS-Autorisierung lässt sich nur aus dem Tool selbst starten.');
    const wrongRole = await get('/api/student-session-authorize', { ...GERMAN, cookie: sessionFor(t.app, instructor()).cookie });
    expect(wrongRole.statusCode).toBe(403);
    expect(wrongRole.body).toContain('für Studierende des Kurses');
    const json = await get('/api/oauth2authorize', { accept: 'application/json', 'accept-language': 'de' });
    expect(json.json()).toEqual({
      success: false,
      error_code: 'LTI_PRINCIPAL_REQUIRED',
      message: 'Open the tool from the LMS first, then start the authorization from it.',
    });
  });
});

describe('the database-outage page', () => {
  it('speaks the browser’s language without a session', async () => {
    const app = Fastify();
    app.get('/page', (request, reply) => sendServiceUnavailable(request, reply, LMS));
    try {
      const german = await app.inject({ method: 'GET', url: '/page', headers: GERMAN });
      expect(german.statusCode).toBe(503);
      expect(languageOf(german)).toEqual({ lang: 'de', title: 'Der Dienst ist kurz nicht erreichbar' });
      expect(languageOf(await app.inject({ method: 'GET', url: '/page', headers: BROWSER })).lang).toBe('en');
    } finally {
      await app.close();
    }
  });
});
