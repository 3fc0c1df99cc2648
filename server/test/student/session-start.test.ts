import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStudentHarness, LMS, NEW_QUIZ, QUIZ, SERVICE, student, type StudentHarness } from './harness.js';
import { SESSION_START_TTL_SECONDS } from '../../src/domain/exam-browser/config-grants.js';

/**
 * The configuration's start URL: a one-time service URL of the download. Opening it mints the LMS session token then,
 * because the LMS accepts one only within 30 seconds of its minting (`lib/session_token.rb`, `VALIDITY_PERIOD = 30`).
 */

let h: StudentHarness;
beforeAll(async () => {
  h = await createStudentHarness();
  await h.enforce(QUIZ);
  await h.enforce(NEW_QUIZ);
  await h.authorizeStudent(3);
});
afterAll(() => h.close());

async function startUrl(contentId = QUIZ): Promise<string> {
  return (await h.start(student(), contentId)).opened.startUrl;
}

/** Whether the LMS logs a browser in from the session URL now; otherwise it sends it to its login page. */
async function lmsSignsIn(sessionUrl: string): Promise<boolean> {
  const response = await fetch(sessionUrl, { redirect: 'manual' });
  return response.status === 302 && !/^\/login/.test(response.headers.get('location') ?? '') && response.headers.has('set-cookie');
}

/** Moves the service's and the LMS's clocks together, as real time passes on both. */
function wait(seconds: number): void {
  h.clock.advance(seconds);
  h.lms.clock.advance(seconds * 1000);
}

describe('GET /exb/session-start/:courseId/:contentId', () => {
  it('redirects the exam browser to a session URL minted now, returning to the quiz, never cached or referred', async () => {
    const url = await startUrl();
    expect(url).toMatch(new RegExp(`^${SERVICE}/exb/session-start/101/${QUIZ}\\?key=[A-Za-z0-9_-]{43}$`));
    const response = await h.openStart(url);
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toMatch(new RegExp(`^${LMS}/courses/101/quizzes/201\\?session_token=`));
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(await lmsSignsIn(response.headers.location as string)).toBe(true);
  });

  it('still signs the student in when the exam browser opens the file 35 seconds after the download', async () => {
    const url = await startUrl();
    wait(35);
    const response = await h.openStart(url);
    expect(response.statusCode).toBe(302);
    // Minted at the first page: valid for the LMS now, where a token minted at the download would be 35 seconds old.
    expect(await lmsSignsIn(response.headers.location as string)).toBe(true);
    h.lms.clock.advance(31_000);
    expect(await lmsSignsIn(response.headers.location as string)).toBe(false);
  });

  it('starts once: a second open gets an explanation with a way back to the quiz, in the browser\'s language', async () => {
    const url = await startUrl();
    expect((await h.openStart(url)).statusCode).toBe(302);
    const again = await h.openStart(url);
    expect(again.statusCode).toBe(410);
    expect(again.headers['content-type']).toContain('text/html');
    expect(again.body).toContain('This configuration was already started');
    expect(again.body).toContain(`href="${LMS}/courses/101/quizzes/201"`);
    expect(again.body).not.toContain('session_token');
    const german = await h.openStart(url, { 'accept-language': 'de-DE,de;q=0.9' });
    expect(german.body).toContain('Diese Konfiguration wurde bereits gestartet');
    expect(german.body).toContain('Zurück zum Quiz');
  });

  it('expires after its lifetime, unopened', async () => {
    const url = await startUrl();
    wait(SESSION_START_TTL_SECONDS + 1);
    const expired = await h.openStart(url);
    expect(expired.statusCode).toBe(410);
    expect(expired.body).toContain('This configuration has expired');
  });

  it('refuses a start URL of another quiz, an unknown key and a malformed one, linking to the course', async () => {
    const url = new URL(await startUrl(NEW_QUIZ));
    const foreign = await h.openStart(`${SERVICE}/exb/session-start/101/${QUIZ}${url.search}`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).toContain('This start link belongs to another quiz');
    expect(foreign.body).toContain(`href="${LMS}/courses/101"`);
    // The refusal did not take it: the right quiz still starts.
    expect((await h.openStart(url.href)).statusCode).toBe(302);

    for (const key of ['A'.repeat(43), 'short', '']) {
      const unknown = await h.openStart(`${SERVICE}/exb/session-start/101/${QUIZ}?key=${key}`);
      expect(unknown.statusCode, key).toBe(404);
      expect(unknown.body).toContain('This start link is not valid');
    }
    expect((await h.openStart(`${SERVICE}/exb/session-start/101/classicquiz_0201?key=${'A'.repeat(43)}`)).statusCode).toBe(404);
    expect((await h.openStart(`${SERVICE}/exb/session-start/abc/${QUIZ}`)).statusCode).toBe(404);
  });

  it('explains a missing grant and starts once the student connected their account again', async () => {
    const url = await startUrl();
    await h.t.db.orm.em.getConnection().execute(`delete from lms_oauth_token where lms_user_id = '3'`);
    try {
      const refused = await h.openStart(url);
      expect(refused.statusCode).toBe(403);
      expect(refused.body).toContain('The exam tool may no longer sign you in');
      expect(refused.body).toContain(`href="${LMS}/courses/101/quizzes/201"`);
    } finally {
      await h.authorizeStudent(3);
    }
    expect((await h.openStart(url)).statusCode).toBe(302);
  });

  it('has no HEAD, which would spend the start', async () => {
    const url = new URL(await startUrl());
    const head = await h.app.inject({ method: 'HEAD', url: `${url.pathname}${url.search}` });
    expect(head.statusCode).toBe(404);
    expect((await h.openStart(url.href)).statusCode).toBe(302);
  });

  it('of many parallel opens exactly one is redirected', async () => {
    const url = await startUrl();
    const statuses = (await Promise.all(Array.from({ length: 8 }, () => h.openStart(url)))).map((r) => r.statusCode).sort();
    expect(statuses).toEqual([302, 410, 410, 410, 410, 410, 410, 410]);
  });

  it('works for a new quiz, returning to its assignment page', async () => {
    const response = await h.openStart(await startUrl(NEW_QUIZ));
    expect(response.headers.location).toMatch(new RegExp(`^${LMS}/courses/101/assignments/301\\?session_token=`));
  });
});
