import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { carriedExbLaunches, decideExbLaunch, EXB_LAUNCH_MEMORY_MS, recentExbLaunches } from '../../src/domain/exam-browser/launch-decision.js';
import { LOGIN_STATE_PURPOSE, loginStateSchema } from '../../src/lti/login-state.js';
import { SESSION_COOKIE_NAME } from '../../src/security/session-cookie.js';
import type { SessionData } from '../../src/security/session.js';
import { sessionFor } from '../support/sessions.js';
import {
  authorize,
  bootstrapOf,
  Browser,
  createHarness,
  getPage,
  launchAs,
  LMS,
  login,
  outcomeOf,
  postLaunch,
  TOOL,
  type Harness,
} from './launch-harness.js';

const EXAM_BROWSER_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120 SEB/3.7.1';
const QUIZ = { person: 'student1', placement: 'assessment', contentId: 'classicquiz_201' } as const;

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());
afterEach(() => {
  h.requirement.required = false;
});

describe('exam-browser launch through /lti/launch', () => {
  it('redirects to the LMS assessment when enforcement is not required', async () => {
    const { response } = await launchAs(h, new Browser(), QUIZ);
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe(`${LMS}/courses/101/quizzes/201`);
  });

  it('redirects a new quiz to its assignment page', async () => {
    const { response } = await launchAs(h, new Browser(), { ...QUIZ, contentId: 'newquiz:101:301' });
    expect(response.headers.location).toBe(`${LMS}/courses/101/assignments/301`);
  });

  it('shows the required-browser view when enforcement is required and this is an ordinary browser', async () => {
    h.requirement.required = true;
    const { response } = await launchAs(h, new Browser(), QUIZ);
    expect(response.statusCode).toBe(200);
    expect(bootstrapOf(response.body)).toMatchObject({
      view: 'exb-required',
      courseId: '101',
      contentId: 'classicquiz_201',
      assessmentKind: 'classic',
      lmsUserId: '3',
      assessmentUrl: `${LMS}/courses/101/quizzes/201`,
      lmsReturnUrl: `${LMS}/courses/101`,
      reloadUrl: '/exb/launch/classicquiz_201',
    });
  });

  it('sends the exam browser to the assessment once, then a second load to the course home', async () => {
    h.requirement.required = true;
    const browser = new Browser(EXAM_BROWSER_UA);
    const first = await launchAs(h, browser, QUIZ);
    expect(first.response.headers.location).toBe(`${LMS}/courses/101/quizzes/201`);
    // The LMS launches the link again after the assessment: a new launch, a new session, the record carried over.
    const second = await launchAs(h, browser, QUIZ);
    expect(second.response.statusCode).toBe(302);
    expect(second.response.headers.location).toBe(`${LMS}/courses/101`);
    // A reload of the launch page does the same.
    const reload = await getPage(h, browser, '/exb/launch/classicquiz_201');
    expect(reload.headers.location).toBe(`${LMS}/courses/101`);
    // Other assessments are not affected.
    const other = await launchAs(h, browser, { ...QUIZ, contentId: 'classicquiz_202' });
    expect(other.response.headers.location).toBe(`${LMS}/courses/101/quizzes/202`);
  });

  it('carries the completed launch over even from a session past its maximum age', async () => {
    h.requirement.required = true;
    const browser = new Browser(EXAM_BROWSER_UA);
    await launchAs(h, browser, QUIZ);
    // The same session, sealed as if its launch had been 13 hours ago.
    const current = h.t.app.decodeSecureSession(browser.session()!)!.get('data') as SessionData;
    const aged = sessionFor(h.t.app, current.principal, { ...current, createdAt: Date.now() - 13 * 3_600_000 });
    browser.cookies.set(SESSION_COOKIE_NAME, aged.cookie.slice(SESSION_COOKIE_NAME.length + 1));
    expect((await getPage(h, browser, '/exb/launch/classicquiz_201')).headers.location).toBe('/login');
    const relaunch = await launchAs(h, browser, QUIZ);
    expect(relaunch.response.headers.location).toBe(`${LMS}/courses/101`);
  });

  it('recognizes the exam browser by its key headers too', async () => {
    h.requirement.required = true;
    const browser = new Browser();
    const launch = h.lms.platform.buildLaunch(QUIZ);
    const started = await login(h, browser, launch.loginParams);
    const fields = await authorize(h, started.location, 'student1');
    const response = await postLaunch(h, browser, fields, { headers: { 'x-safeexambrowser-configkeyhash': 'a'.repeat(64) } });
    expect(response.headers.location).toBe(`${LMS}/courses/101/quizzes/201`);
  });

  it('does not carry a completed launch over to another person in the same browser', async () => {
    h.requirement.required = true;
    const browser = new Browser(EXAM_BROWSER_UA);
    await launchAs(h, browser, QUIZ);
    const other = await launchAs(h, browser, { ...QUIZ, person: 'student2' });
    expect(other.response.headers.location).toBe(`${LMS}/courses/101/quizzes/201`);
  });

  it('refuses a new quiz of another course than the launch’s', async () => {
    const { response } = await launchAs(h, new Browser(), { ...QUIZ, courseId: 101, contentId: 'newquiz:102:303' });
    expect(response.statusCode).toBe(403);
    expect(outcomeOf(response)).toBe('EXB_LAUNCH_COURSE_MISMATCH');
  });

  it('refuses an exam-browser target launched from the account', async () => {
    const { response } = await launchAs(h, new Browser(), {
      person: 'administrator',
      placement: 'account_navigation',
      accountId: 1,
      targetLinkUri: `${TOOL}/exb/launch/classicquiz_201`,
    });
    expect(response.statusCode).toBe(403);
    expect(outcomeOf(response)).toBe('EXB_LAUNCH_NOT_FOR_ADMIN');
  });
});

describe('POST /exb/launch/:contentId', () => {
  async function fieldsFor(browser: Browser) {
    const started = await login(h, browser, h.lms.platform.buildLaunch(QUIZ).loginParams);
    return authorize(h, started.location, 'student1');
  }

  it('validates like /lti/launch and shows the result for its content', async () => {
    h.requirement.required = true;
    const browser = new Browser();
    const response = await postLaunch(h, browser, await fieldsFor(browser), { path: '/exb/launch/classicquiz_201' });
    expect(bootstrapOf(response.body)).toMatchObject({ view: 'exb-required', contentId: 'classicquiz_201' });
  });

  it('refuses a token issued for another content id', async () => {
    const browser = new Browser();
    const response = await postLaunch(h, browser, await fieldsFor(browser), { path: '/exb/launch/classicquiz_202' });
    expect(response.statusCode).toBe(400);
    expect(outcomeOf(response)).toBe('LTI_TOKEN_TARGET');
  });

  it('runs the same chain: a missing transaction cookie is refused', async () => {
    const fields = await fieldsFor(new Browser());
    const response = await postLaunch(h, new Browser(), fields, { path: '/exb/launch/classicquiz_201' });
    expect(outcomeOf(response)).toBe('LTI_LAUNCH_TRANSACTION_MISSING');
  });

  it.each(['512', 'classicquiz_0', 'newquiz:1', 'x'])('answers the malformed content id %s with 404', async (contentId) => {
    const path = `/exb/launch/${encodeURIComponent(contentId)}`;
    expect((await h.t.app.inject({ method: 'POST', url: path, payload: {} })).statusCode).toBe(404);
    expect((await h.t.app.inject({ method: 'GET', url: path })).statusCode).toBe(404);
    expect((await h.t.app.inject({ method: 'GET', url: `${path}/login` })).statusCode).toBe(404);
  });
});

describe('GET /exb/launch/:contentId', () => {
  it('reloads the launch result from the session', async () => {
    h.requirement.required = true;
    const browser = new Browser();
    await launchAs(h, browser, QUIZ);
    const reload = await getPage(h, browser, '/exb/launch/classicquiz_201?connected=1', { 'sec-fetch-site': 'same-origin' });
    expect(bootstrapOf(reload.body)).toMatchObject({ view: 'exb-required', contentId: 'classicquiz_201' });
  });

  it('reloads a new quiz launch, whose content id carries colons', async () => {
    h.requirement.required = true;
    const browser = new Browser();
    const { response } = await launchAs(h, browser, { ...QUIZ, contentId: 'newquiz:101:301' });
    expect(bootstrapOf(response.body)).toMatchObject({ view: 'exb-required', assessmentKind: 'newquiz', reloadUrl: '/exb/launch/newquiz:101:301' });
    const reload = await getPage(h, browser, '/exb/launch/newquiz:101:301');
    expect(bootstrapOf(reload.body)).toMatchObject({ view: 'exb-required', contentId: 'newquiz:101:301' });
    const encoded = await getPage(h, browser, '/exb/launch/newquiz%3A101%3A301');
    expect(bootstrapOf(encoded.body)).toMatchObject({ view: 'exb-required', contentId: 'newquiz:101:301' });
  });

  it('redirects to /login without a session', async () => {
    const response = await getPage(h, new Browser(), '/exb/launch/classicquiz_201');
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe('/login');
  });

  it('refuses a content id the session’s launch did not target', async () => {
    const browser = new Browser();
    await launchAs(h, browser, QUIZ);
    const response = await getPage(h, browser, '/exb/launch/classicquiz_204');
    expect(response.statusCode).toBe(403);
    expect(outcomeOf(response)).toBe('EXB_LAUNCH_NOT_FOR_SESSION');
  });

  it('refuses a cross-site iframe navigation', async () => {
    const browser = new Browser();
    await launchAs(h, browser, QUIZ);
    const response = await getPage(h, browser, '/exb/launch/classicquiz_201', { 'sec-fetch-site': 'cross-site', 'sec-fetch-dest': 'iframe' });
    expect(response.statusCode).toBe(403);
  });
});

describe('GET /exb/launch/:contentId/login', () => {
  it('forwards the login initiation, targeting its own content by default', async () => {
    const params = { ...h.lms.platform.buildLaunch(QUIZ).loginParams };
    delete params.target_link_uri;
    const started = await login(h, new Browser(), params, { method: 'GET', path: '/exb/launch/classicquiz_201/login' });
    expect(started.response.statusCode).toBe(302);
    expect(started.location.searchParams.get('redirect_uri')).toBe(`${TOOL}/lti/launch`);
    const stored = loginStateSchema.parse(await h.states.peek(LOGIN_STATE_PURPOSE, started.state));
    expect(stored.target).toBe('/exb/launch/classicquiz_201');
  });

  it('completes a launch started there', async () => {
    const browser = new Browser();
    const launch = h.lms.platform.buildLaunch(QUIZ);
    const started = await login(h, browser, launch.loginParams, { method: 'GET', path: '/exb/launch/classicquiz_201/login' });
    const response = await postLaunch(h, browser, await authorize(h, started.location, 'student1'));
    expect(response.headers.location).toBe(`${LMS}/courses/101/quizzes/201`);
  });

  it('refuses a target_link_uri naming another page', async () => {
    const params = h.lms.platform.buildLaunch(QUIZ).loginParams;
    const started = await login(h, new Browser(), params, { method: 'GET', path: '/exb/launch/classicquiz_202/login' });
    expect(started.response.statusCode).toBe(400);
    expect(outcomeOf(started.response)).toBe('LTI_LOGIN_TARGET');
  });

  it('applies every other login check', async () => {
    const params = { ...h.lms.platform.buildLaunch(QUIZ).loginParams, iss: 'https://evil.example.test' };
    const started = await login(h, new Browser(), params, { method: 'GET', path: '/exb/launch/classicquiz_201/login' });
    expect(outcomeOf(started.response)).toBe('LTI_LOGIN_ISSUER');
  });
});

describe('exam-browser launch decision', () => {
  const student = {
    kind: 'student' as const,
    issuer: 'https://lms.example',
    ltiSubject: 'sub-1',
    lmsUserId: '7',
    deploymentId: 'd',
    ltiContextId: 'ctx',
    courseId: '101',
  };
  const deps = (required: boolean) => ({ lmsUrl: LMS, requirement: { isRequired: async () => required } });
  const launch = { principal: student, contentId: 'newquiz:101:301', completedLaunches: {}, fromExamBrowser: false, now: 5 * EXB_LAUNCH_MEMORY_MS };

  it('goes to the assessment without enforcement, and records the launch only for the exam browser', async () => {
    expect(await decideExbLaunch(deps(false), launch)).toEqual({
      kind: 'assessment',
      url: `${LMS}/courses/101/assignments/301`,
      completed: null,
    });
    const fromBrowser = await decideExbLaunch(deps(true), { ...launch, fromExamBrowser: true, completedLaunches: { old: 0 } });
    expect(fromBrowser).toMatchObject({ kind: 'assessment', completed: { 'newquiz:101:301': launch.now } });
  });

  it('sends a relaunch within a day to the course home, refuses other courses and administrators', async () => {
    const relaunch = { ...launch, completedLaunches: { 'newquiz:101:301': launch.now - 1000 } };
    expect(await decideExbLaunch(deps(true), relaunch)).toEqual({ kind: 'course-home', url: `${LMS}/courses/101` });
    expect(await decideExbLaunch(deps(true), { ...launch, contentId: 'newquiz:102:301' })).toEqual({ kind: 'course-mismatch' });
    const admin = { ...student, kind: 'admin' as const, accountId: '1' };
    expect(await decideExbLaunch(deps(true), { ...launch, principal: admin })).toEqual({ kind: 'not-for-admin' });
    expect(await decideExbLaunch(deps(true), launch)).toMatchObject({ kind: 'exb-required', courseHomeUrl: `${LMS}/courses/101` });
  });

  it('carries completed launches over only to the same person', () => {
    const previous = { principal: student, exbLaunches: { a: launch.now - 1, b: 0 } };
    expect(carriedExbLaunches(previous, student, launch.now)).toEqual({ a: launch.now - 1 });
    expect(carriedExbLaunches(previous, { ...student, ltiSubject: 'sub-2' }, launch.now)).toEqual({});
    expect(carriedExbLaunches(null, student, launch.now)).toEqual({});
  });
});

describe('completed launch record', () => {
  it('keeps launches for 24 hours', () => {
    const now = 10 * EXB_LAUNCH_MEMORY_MS;
    expect(recentExbLaunches({ a: now - EXB_LAUNCH_MEMORY_MS + 1, b: now - EXB_LAUNCH_MEMORY_MS }, now)).toEqual({
      a: now - EXB_LAUNCH_MEMORY_MS + 1,
    });
  });
});
