import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_STATE_PURPOSE } from '../../src/lti/login-state.js';
import { LoginStateStore } from '../../src/lti/login-state-store.js';
import { readSession } from '../../src/security/session.js';
import {
  authorize,
  bootstrapOf,
  Browser,
  createHarness,
  getPage,
  launchAs,
  login,
  outcomeOf,
  postLaunch,
  prepareLaunch,
  type Harness,
} from './launch-harness.js';
import { contextIdFor } from '../support/sessions.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

/** The session a cookie carries, decoded with the service's own key. */
function sessionOf(browser: Browser) {
  const cookie = browser.session();
  if (!cookie) return null;
  const decoded = h.t.app.decodeSecureSession(cookie);
  return decoded ? readSession({ session: decoded } as never) : null;
}

describe('POST /lti/launch: roles', () => {
  it('launches an instructor into the teacher view of the course', async () => {
    const browser = new Browser();
    const { response } = await launchAs(h, browser, { person: 'instructor', placement: 'course_navigation', courseId: 101 });
    expect(response.statusCode).toBe(200);
    expect(bootstrapOf(response.body)).toMatchObject({
      view: 'teacher',
      courseId: '101',
      courseName: 'Biology 101',
      lmsUserId: '2',
      userName: 'Ian Instructor',
      lmsReturnUrl: 'https://lms.example.test/courses/101',
      authorizeUrl: '/api/oauth2authorize?course_id=101&user_id=2',
      courseRole: 'teacher',
    });
    expect(sessionOf(browser)?.principal).toEqual({
      kind: 'instructor',
      lmsUserId: '2',
      ltiSubject: h.lms.state.requireUser('instructor').ltiId,
      issuer: h.lms.issuer,
      deploymentId: h.lms.tool.deploymentId,
      ltiContextId: contextIdFor('course', 101),
      courseId: '101',
      name: 'Ian Instructor',
      courseName: 'Biology 101',
      courseRole: 'teacher',
    });
  });

  it('launches a student into the student view', async () => {
    const browser = new Browser();
    const { response } = await launchAs(h, browser, { person: 'student1', placement: 'course_navigation', courseId: 101 });
    expect(response.statusCode).toBe(200);
    expect(bootstrapOf(response.body)).toMatchObject({ view: 'student', courseId: '101', lmsUserId: '3' });
    expect(sessionOf(browser)?.principal.kind).toBe('student');
  });

  it.each([
    ['designer', '5', 'designer'],
    ['ta', '6', 'teaching-assistant'],
  ])('launches a %s as an instructor, greeted by the role the LMS signed', async (person, lmsUserId, courseRole) => {
    const browser = new Browser();
    const { response } = await launchAs(h, browser, { person, placement: 'course_navigation', courseId: 101 });
    expect(bootstrapOf(response.body)).toMatchObject({ view: 'teacher', lmsUserId, courseRole });
    expect(sessionOf(browser)?.principal).toMatchObject({ kind: 'instructor', courseRole });
  });

  it('launches a root-account administrator from the account into the admin view', async () => {
    const browser = new Browser();
    const { response } = await launchAs(h, browser, { person: 'administrator', placement: 'account_navigation', accountId: 1 });
    expect(response.statusCode).toBe(200);
    expect(bootstrapOf(response.body)).toMatchObject({
      view: 'admin',
      accountId: '1',
      accountName: 'Example University',
      lmsUserId: '1',
      lmsReturnUrl: 'https://lms.example.test/accounts/1',
    });
    expect(sessionOf(browser)?.principal).toMatchObject({ kind: 'admin', accountId: '1' });
  });

  it('answers a sub-account administrator, who is no root administrator, with the role-not-authorized page', async () => {
    const browser = new Browser();
    const { response } = await launchAs(h, browser, { person: 'subaccount-admin', placement: 'account_navigation', accountId: 1 });
    expect(response.statusCode).toBe(200);
    expect(outcomeOf(response)).toBe('role-not-authorized');
    expect(sessionOf(browser)).toBeNull();
  });

  it('sends a root administrator who opened a course’s tab to the account navigation, without a session', async () => {
    const browser = new Browser();
    const { response } = await launchAs(h, browser, { person: 'administrator', placement: 'course_navigation', courseId: 101 });
    expect(response.statusCode).toBe(200);
    const bootstrap = bootstrapOf(response.body);
    expect(bootstrap).toMatchObject({
      view: 'role-not-authorized',
      title: 'Open the administration from the account navigation',
      link: { href: 'https://lms.example.test/accounts', text: 'Open the accounts you administer in the LMS' },
    });
    expect(bootstrap.message).toContain('“Exam browser administration”');
    expect(bootstrap.message).not.toMatch(/does not give access/);
    expect(sessionOf(browser)).toBeNull();
    // The account's own refusal (a sub-account administrator there) keeps the general words and no link.
    const subaccount = await launchAs(h, new Browser(), { person: 'subaccount-admin', placement: 'account_navigation', accountId: 1 });
    expect(bootstrapOf(subaccount.response.body)).toMatchObject({ view: 'role-not-authorized', title: 'This tool is not available to you' });
    expect(bootstrapOf(subaccount.response.body)).not.toHaveProperty('link');
  });

  it('answers an unknown role with 200 and the role-not-authorized page, dropping any earlier principal', async () => {
    const browser = new Browser();
    await launchAs(h, browser, { person: 'student1', placement: 'course_navigation', courseId: 101 });
    expect(sessionOf(browser)?.principal.kind).toBe('student');
    // An administrator of a sub-account has no enrollment in the course: no instructor or student role.
    const { response } = await launchAs(h, browser, { person: 'subaccount-admin', placement: 'course_navigation', courseId: 101 });
    expect(response.statusCode).toBe(200);
    expect(outcomeOf(response)).toBe('role-not-authorized');
    expect(sessionOf(browser)).toBeNull();
  });

  it('refuses a deep-linking launch with 410', async () => {
    const browser = new Browser();
    const { response } = await launchAs(h, browser, {
      person: 'instructor',
      placement: 'course_navigation',
      courseId: 101,
      messageType: 'LtiDeepLinkingRequest',
    });
    expect(response.statusCode).toBe(410);
    expect(outcomeOf(response)).toBe('LTI_DEEP_LINKING_UNSUPPORTED');
    expect(sessionOf(browser)).toBeNull();
  });

  it('refuses a launch without the registration’s custom fields as LmsLtiConfigurationError', async () => {
    const browser = new Browser();
    const { response } = await launchAs(h, browser, {
      person: 'instructor',
      placement: 'course_navigation',
      courseId: 101,
      customFields: {},
    });
    expect(response.statusCode).toBe(400);
    expect(outcomeOf(response)).toBe('LmsLtiConfigurationError');
    expect(bootstrapOf(response.body).message).toMatch(/developer key/);
  });

  it('refuses a launch whose substitution the LMS left unexpanded, naming the field', async () => {
    const browser = new Browser();
    const placement = h.lms.platform.registration.placements.get('course_navigation')!;
    const { response } = await launchAs(h, browser, {
      person: 'instructor',
      placement: 'course_navigation',
      courseId: 101,
      customFields: { ...placement.customFields, lms_course_id: '$Canvas.course.unknownVariable' },
    });
    expect(response.statusCode).toBe(400);
    const bootstrap = bootstrapOf(response.body);
    expect(bootstrap.errorCode).toBe('LmsLtiConfigurationError');
    expect(JSON.stringify(bootstrap.details)).toContain('lms_course_id');
    expect(JSON.stringify(bootstrap.details)).toContain('$Canvas.course.unknownVariable');
  });

  it('refuses a launch from a developer key made from the older document: Canvas sends the $Lms names back literally', async () => {
    const browser = new Browser();
    const { COURSE_CUSTOM_FIELDS } = await import('@exb/shared/lti-custom-fields.js');
    const older = Object.fromEntries(
      Object.entries(COURSE_CUSTOM_FIELDS).map(([key, value]) => [key, value.replace(/^\$Canvas\./, '$Lms.').replace(/^\$com\.Instructure\./, '$com.Lms.')]),
    );
    const { response } = await launchAs(h, browser, { person: 'instructor', placement: 'course_navigation', courseId: 101, customFields: older });
    expect(response.statusCode).toBe(400);
    const bootstrap = bootstrapOf(response.body);
    expect(bootstrap.errorCode).toBe('LmsLtiConfigurationError');
    expect(bootstrap.message).toMatch(/Developer Keys/);
    const details = JSON.stringify(bootstrap.details);
    for (const name of ['lms_user_id', 'lms_membership_roles', 'lms_lis_membership_roles', 'lms_course_id', 'lms_membership_permissions']) {
      expect(details).toContain(name);
    }
    expect(details).toContain('$Lms.user.id');
    // The page shows the code's message (`errors` catalogue), which names the fix in both languages.
    const { translator } = await import('../../src/i18n/translator.js');
    expect(translator('en')('errors:LmsLtiConfigurationError')).toMatch(/update the tool’s LTI developer key: in Admin → Developer Keys/);
    expect(translator('de')('errors:LmsLtiConfigurationError')).toMatch(/LTI-Entwicklerschlüssel des Tools aktualisieren/);
  });

  it('takes identifiers from the signed token only, never from the query or the form', async () => {
    const browser = new Browser();
    const launch = h.lms.platform.buildLaunch({ person: 'student1', placement: 'course_navigation', courseId: 101 });
    const started = await login(h, browser, launch.loginParams);
    const fields = await authorize(h, started.location, 'student1');
    const response = await postLaunch(h, browser, { ...fields, lms_user_id: '2', user_id: '2', course_id: '102' }, {
      path: '/lti/launch?user_id=2&course_id=102',
    });
    expect(bootstrapOf(response.body)).toMatchObject({ view: 'student', lmsUserId: '3', courseId: '101' });
  });
});

describe('POST /lti/launch: session and state', () => {
  it('regenerates the session id on every launch, so a fixed session is worthless', async () => {
    const browser = new Browser();
    await launchAs(h, browser, { person: 'instructor', placement: 'course_navigation', courseId: 101 });
    const first = sessionOf(browser)!;
    await launchAs(h, browser, { person: 'instructor', placement: 'course_navigation', courseId: 101 });
    const second = sessionOf(browser)!;
    expect(second.sid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(second.sid).not.toBe(first.sid);
  });

  it('sets the session cookie with attributes for the LMS frame and clears the transaction cookie', async () => {
    const browser = new Browser();
    const { response } = await launchAs(h, browser, { person: 'instructor', placement: 'course_navigation', courseId: 101 });
    const cookies = ([] as string[]).concat(response.headers['set-cookie'] ?? []);
    const session = cookies.find((cookie) => cookie.startsWith('exb_session='))!;
    expect(session).toContain('HttpOnly');
    expect(session).toContain('Secure');
    expect(session).toContain('SameSite=None');
    expect(session).toContain('Partitioned');
    expect(browser.transactionCookies()).toEqual([]);
  });

  it('consumes the login state', async () => {
    const browser = new Browser();
    const { login: started } = await launchAs(h, browser, { person: 'instructor', placement: 'course_navigation', courseId: 101 });
    expect(await h.states.peek(LOGIN_STATE_PURPOSE, started.state)).toBeNull();
  });

  it('does not claim the login state for a launch whose client is gone, so the browser can post it again', async () => {
    const browser = new Browser();
    const { login: started, claims } = await prepareLaunch(h, browser, { person: 'instructor', placement: 'course_navigation', courseId: 101 });
    const gone = new AbortController();
    gone.abort(new Error('client gone'));
    await expect(new LoginStateStore(h.states).claim(started.state, gone.signal)).rejects.toThrow('client gone');
    expect(await h.states.peek(LOGIN_STATE_PURPOSE, started.state)).not.toBeNull();
    const response = await postLaunch(h, browser, { id_token: await h.lms.platform.signIdToken(claims), state: started.state });
    expect(response.statusCode).toBe(200);
    expect(await h.states.peek(LOGIN_STATE_PURPOSE, started.state)).toBeNull();
  });

  it('keeps launches of two tabs apart: each has its own transaction cookie', async () => {
    const browser = new Browser();
    const first = h.lms.platform.buildLaunch({ person: 'instructor', placement: 'course_navigation', courseId: 101 });
    const second = h.lms.platform.buildLaunch({ person: 'instructor', placement: 'course_navigation', courseId: 102 });
    const loginA = await login(h, browser, first.loginParams);
    const loginB = await login(h, browser, second.loginParams);
    const fieldsA = await authorize(h, loginA.location, 'instructor');
    const fieldsB = await authorize(h, loginB.location, 'instructor');
    expect(bootstrapOf((await postLaunch(h, browser, fieldsB)).body)).toMatchObject({ courseId: '102' });
    expect(bootstrapOf((await postLaunch(h, browser, fieldsA)).body)).toMatchObject({ courseId: '101' });
  });
});

describe('GET /lti/launch', () => {
  it('reloads the role view from the session', async () => {
    const browser = new Browser();
    await launchAs(h, browser, { person: 'instructor', placement: 'course_navigation', courseId: 101 });
    const response = await getPage(h, browser, '/lti/launch?connected=1', { 'sec-fetch-site': 'same-origin', 'sec-fetch-dest': 'iframe' });
    expect(response.statusCode).toBe(200);
    expect(bootstrapOf(response.body)).toMatchObject({ view: 'teacher', courseId: '101' });
  });

  it('redirects to /login without a principal', async () => {
    const response = await getPage(h, new Browser(), '/lti/launch');
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe('/login');
  });

  it('refuses a cross-site iframe navigation with 403', async () => {
    const browser = new Browser();
    await launchAs(h, browser, { person: 'instructor', placement: 'course_navigation', courseId: 101 });
    const response = await getPage(h, browser, '/lti/launch', { 'sec-fetch-site': 'cross-site', 'sec-fetch-dest': 'iframe' });
    expect(response.statusCode).toBe(403);
    expect(outcomeOf(response)).toBe('LTI_CROSS_SITE_FRAME');
    // A cross-site top-level navigation or a same-site frame is fine.
    expect((await getPage(h, browser, '/lti/launch', { 'sec-fetch-site': 'cross-site', 'sec-fetch-dest': 'document' })).statusCode).toBe(200);
    expect((await getPage(h, browser, '/lti/launch', { 'sec-fetch-site': 'same-site', 'sec-fetch-dest': 'iframe' })).statusCode).toBe(200);
  });

  it('checks course_id and user_id against the principal', async () => {
    const browser = new Browser();
    await launchAs(h, browser, { person: 'instructor', placement: 'course_navigation', courseId: 101 });
    expect((await getPage(h, browser, '/lti/launch?course_id=101&user_id=2')).statusCode).toBe(200);
    const wrongCourse = await getPage(h, browser, '/lti/launch?course_id=102');
    expect(wrongCourse.statusCode).toBe(403);
    expect(outcomeOf(wrongCourse)).toBe('LTI_SESSION_MISMATCH');
    expect((await getPage(h, browser, '/lti/launch?user_id=3')).statusCode).toBe(403);
    expect((await getPage(h, browser, '/lti/launch?course_id=101&course_id=101')).statusCode).toBe(403);
  });

  it('refuses course_id for an administrator, who has no course', async () => {
    const browser = new Browser();
    await launchAs(h, browser, { person: 'administrator', placement: 'account_navigation', accountId: 1 });
    expect((await getPage(h, browser, '/lti/launch')).statusCode).toBe(200);
    expect((await getPage(h, browser, '/lti/launch?course_id=1')).statusCode).toBe(403);
  });
});
