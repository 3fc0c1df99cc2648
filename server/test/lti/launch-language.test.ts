import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LTI_CLAIM } from '../../../e2e/src/lms/index.js';
import { GERMAN_BROWSER as GERMAN, languageOf } from '../support/page-language.js';
import { sessionFor, student } from '../support/sessions.js';
import { bootstrapOf, Browser, createHarness, getPage, postLaunch, prepareLaunch, type Harness } from './launch-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const ENGLISH = { 'accept-language': 'en-US,en;q=0.9' };
const LAUNCH_PRESENTATION = `${LTI_CLAIM}launch_presentation`;

/** A launch form without a token: refused at the envelope, before any session exists. */
const tokenlessLaunch = (headers: Record<string, string>) =>
  h.t.app.inject({
    method: 'POST',
    url: '/lti/launch',
    payload: new URLSearchParams({ state: 'x' }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });

/** A launch whose LMS user works in German: the LMS signs `launch_presentation.locale`. */
async function germanLaunch(browser: Browser, options: Parameters<typeof prepareLaunch>[2], headers: Record<string, string>) {
  const { login, claims } = await prepareLaunch(h, browser, options);
  claims[LAUNCH_PRESENTATION] = { ...(claims[LAUNCH_PRESENTATION] as object), locale: 'de-DE' };
  const idToken = await h.lms.platform.signIdToken(claims);
  return postLaunch(h, browser, { id_token: idToken, state: login.state }, { headers });
}

describe('refused launches before a session: the browser’s Accept-Language decides', () => {
  it('words the refusal in German, with the same status, code and view as in English', async () => {
    const german = await tokenlessLaunch(GERMAN);
    const english = await tokenlessLaunch({});
    expect([german.statusCode, english.statusCode]).toEqual([400, 400]);
    expect(languageOf(german)).toEqual({ lang: 'de', title: 'Der Aufruf konnte nicht überprüft werden', locale: 'de' });
    expect(bootstrapOf(german.body)).toMatchObject({
      view: 'lti-error',
      errorCode: 'LTI_LAUNCH_INVALID_ENVELOPE',
      title: 'Der Aufruf konnte nicht überprüft werden',
      message: 'Der Aufruf enthält kein id_token.',
      details: [{ label: 'Fehlercode', value: 'LTI_LAUNCH_INVALID_ENVELOPE' }],
    });
    expect(languageOf(english)).toEqual({ lang: 'en', title: 'The launch could not be verified', locale: 'en' });
    expect(bootstrapOf(english.body)).toMatchObject({
      view: 'lti-error',
      errorCode: 'LTI_LAUNCH_INVALID_ENVELOPE',
      message: 'The launch does not carry an id_token.',
      details: [{ label: 'Error code', value: 'LTI_LAUNCH_INVALID_ENVELOPE' }],
    });
  });

  it('is not swayed by a German session an earlier launch left in the browser', async () => {
    const { cookie } = sessionFor(h.t.app, student(), { locale: 'de' });
    expect(languageOf(await tokenlessLaunch({ cookie, ...ENGLISH })).lang).toBe('en');
  });

  it('words a refused login in German, values and detail lines included', async () => {
    const response = await h.t.app.inject({ method: 'GET', url: '/lti/login?iss=https%3A%2F%2Flms.example.test', headers: GERMAN });
    expect(response.statusCode).toBe(400);
    expect(bootstrapOf(response.body)).toMatchObject({
      locale: 'de',
      errorCode: 'LTI_LOGIN_INVALID_REQUEST',
      title: 'Das Tool konnte nicht geöffnet werden',
      message: 'In der Anmeldeanfrage fehlen Angaben: login_hint, target_link_uri.',
    });
  });
});

describe('verified launches: the launch’s own locale decides', () => {
  it('answers a German LMS user whose role the tool does not serve in German, whatever the browser asks for', async () => {
    const response = await germanLaunch(new Browser(), { person: 'subaccount-admin', placement: 'course_navigation', courseId: 101 }, ENGLISH);
    expect(response.statusCode).toBe(200);
    // An administrator in a course's tab is sent to the account navigation, in German.
    const title = 'Die Administration öffnen Sie über die Kontonavigation';
    expect(languageOf(response)).toEqual({ lang: 'de', title, locale: 'de' });
    expect(bootstrapOf(response.body)).toMatchObject({
      view: 'role-not-authorized',
      title,
      link: { text: 'Die von Ihnen verwalteten Konten im LMS öffnen' },
    });
  });

  it('keeps German in the session, so a later refusal of a reload is German too', async () => {
    const browser = new Browser();
    const launched = await germanLaunch(browser, { person: 'instructor', placement: 'course_navigation', courseId: 101 }, ENGLISH);
    expect(launched.statusCode).toBe(200);
    expect(languageOf(launched)).toMatchObject({ lang: 'de', locale: 'de' });
    const reload = await getPage(h, browser, '/lti/launch?course_id=999', ENGLISH);
    expect(reload.statusCode).toBe(403);
    expect(bootstrapOf(reload.body)).toMatchObject({
      locale: 'de',
      errorCode: 'LTI_SESSION_MISMATCH',
      title: 'Diese Seite gehört zu einem anderen Aufruf',
      details: [{ label: 'Fehlercode', value: 'LTI_SESSION_MISMATCH' }],
    });
  });
});
