import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionGenerations } from '../../src/security/session-generations.js';
import { readSessionOfAnyAge } from '../../src/security/session.js';
import { Browser, createHarness, launchAs, type Harness } from './launch-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

function sessionOf(browser: Browser) {
  const cookie = browser.session();
  const decoded = cookie === undefined ? null : h.t.app.decodeSecureSession(cookie);
  return decoded ? readSessionOfAnyAge({ session: decoded } as never) : null;
}

/** A session-scoped read of the teacher view: 200 while the session lives. */
function ensure(browser: Browser) {
  return h.t.app.inject({ method: 'GET', url: '/trpc/instructor.authorization.ensure', headers: { cookie: browser.header() } });
}

describe('a launch and the session generation', () => {
  it('stores the person’s current generation; a relaunch does not end the sessions the person has open elsewhere', async () => {
    const laptop = new Browser();
    const tablet = new Browser();
    await launchAs(h, laptop, { person: 'instructor', placement: 'course_navigation', courseId: 101 });
    await launchAs(h, tablet, { person: 'instructor', placement: 'course_navigation', courseId: 101 });
    expect(sessionOf(laptop)?.generation).toBe(0);
    expect(sessionOf(tablet)?.generation).toBe(0);
    // Both stay usable: the second launch ended nothing.
    expect((await ensure(laptop)).statusCode).toBe(200);
    expect((await ensure(tablet)).statusCode).toBe(200);

    const user = h.lms.state.requireUser('instructor');
    await new SessionGenerations(h.t.db.pool).endSessions({ issuer: h.lms.issuer, subject: user.ltiId });
    // The launch reads past any cache, so a relaunch right after the end starts a valid session.
    await launchAs(h, laptop, { person: 'instructor', placement: 'course_navigation', courseId: 101 });
    expect(sessionOf(laptop)?.generation).toBe(1);
    expect((await ensure(laptop)).statusCode).toBe(200);
    // The session ended meanwhile is refused.
    const ended = await ensure(tablet);
    expect(ended.statusCode).toBe(401);
    expect(ended.json()).toMatchObject({ error: { data: { errorCode: 'UNAUTHORIZED' } } });
  });
});
