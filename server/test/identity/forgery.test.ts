import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LaunchOptions } from '../../../e2e/src/lms/index.js';
import { bootstrapOf, Browser, createHarness, launchAs, outcomeOf, TOOL, type Harness } from '../lti/launch-harness.js';
import { createLogger } from '../../src/logger.js';
import { createOAuthServices } from '../../src/oauth/services.js';

/**
 * The trust model against a platform whose custom claim is partly authored by course staff (DESIGN.md, trust model):
 * a link's literal custom values override the tool's substitutions and the platform signs them. Each forgery runs
 * through the real launch chain, OAuth callback and routes on PostgreSQL, against the mocked LMS.
 */

let h: Harness;
beforeEach(async () => {
  h = await createHarness({ complete: true });
});
afterEach(() => h.close());

const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' };

/**
 * A resource link a course author created in their course with literal custom values (as the LMS's resource-link API
 * or deep linking lets teachers and designers do); the LMS merges them over the tool's own fields and signs them.
 */
function authoredLink(courseId: number, custom: Record<string, string>): string {
  return h.lms.state.createResourceLink({ courseId, url: `${TOOL}/lti/launch`, title: 'Course tools', custom }).resourceLinkUuid;
}

async function launch(browser: Browser, options: LaunchOptions): Promise<LightMyRequestResponse> {
  return (await launchAs(h, browser, options)).response;
}

function principalOf(browser: Browser) {
  const cookie = browser.header();
  return h.t.app.inject({ method: 'GET', url: '/lti/launch', headers: { cookie, 'sec-fetch-site': 'same-origin', 'sec-fetch-dest': 'iframe' } });
}

async function request(browser: Browser, method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) {
  const response = await h.t.app.inject({
    method,
    url,
    headers: { cookie: browser.header(), ...(method === 'GET' ? {} : SAME_ORIGIN) },
    // Changes are JSON, as the tool's pages send them.
    ...(method === 'GET' ? {} : { payload: (body ?? {}) as Record<string, unknown> }),
  });
  browser.absorb(response);
  return response;
}

/** The OAuth popup as the person signed in to the LMS: start, approve, callback (same browser session). */
async function connect(browser: Browser, person: string | number, start = '/api/oauth2authorize'): Promise<LightMyRequestResponse> {
  const started = await request(browser, 'GET', start);
  expect(started.statusCode).toBe(302);
  const location = new URL(started.headers.location as string);
  const approval = h.lms.oauth.approve({
    user: person,
    scopes: location.searchParams.get('scope')!.split(' '),
    state: location.searchParams.get('state')!,
    redirectUri: location.searchParams.get('redirect_uri')!,
    clientId: location.searchParams.get('client_id')!,
  });
  const callback = new URL(approval.redirectUrl);
  return request(browser, 'GET', `${callback.pathname}${callback.search}`);
}

/** Changes made through the LMS API (the OAuth token exchange is not one). */
const lmsWrites = () => h.lms.calls.filter((call) => call.method !== 'GET' && call.path.startsWith('/api/')).length;
const sessionTokenCalls = () => h.lms.calls.filter('GET /api/v1/login/session_token').length;

/** The real instructor of course 101 launches and connects: user 2 and course 101 are proven from then on. */
async function honestInstructor(): Promise<Browser> {
  const browser = new Browser();
  expect(outcomeOf(await launch(browser, { person: 'instructor', placement: 'course_navigation', courseId: 101 }))).toBe('teacher');
  expect(bootstrapOf((await connect(browser, 'instructor')).body).view).toBe('lms-oauth-connected');
  expect((await request(browser, 'GET', '/api/quizzes')).statusCode).toBe(200);
  return browser;
}

describe('honest launches', () => {
  it('an instructor is asked to connect before anything course-scoped, then manages the course', async () => {
    const browser = new Browser();
    await launch(browser, { person: 'instructor', placement: 'course_navigation', courseId: 101 });
    const before = await request(browser, 'GET', '/api/quizzes');
    expect(before.statusCode).toBe(401);
    expect(before.json()).toMatchObject({ error_code: 'LMS_AUTHORIZATION_REQUIRED', requiresAuth: true });
    expect(bootstrapOf((await connect(browser, 'instructor')).body).view).toBe('lms-oauth-connected');
    expect((await request(browser, 'GET', '/api/quizzes')).statusCode).toBe(200);
    expect((await request(browser, 'POST', '/api/quizzes/course/101/refresh')).statusCode).toBe(200);
  });

  it('teachers, TAs and designers are instructors; students are students, from the signed roles', async () => {
    for (const [person, view] of [
      ['instructor', 'teacher'],
      ['ta', 'teacher'],
      ['designer', 'teacher'],
      ['student1', 'student'],
    ] as const) {
      expect(outcomeOf(await launch(new Browser(), { person, placement: 'course_navigation', courseId: 101 }))).toBe(view);
    }
  });
});

describe('grants stored before identity binding', () => {
  it('act for nobody until the user’s next successful authorization, which binds them', async () => {
    const browser = await honestInstructor();
    // What the migration leaves on a record written before the binding existed.
    await h.t.db.orm.em.getConnection().execute('update lms_oauth_token set lti_issuer = null, lti_subject = null', [], 'run');
    const legacy = await request(browser, 'GET', '/api/quizzes');
    expect(legacy.statusCode).toBe(401);
    expect(legacy.json()).toMatchObject({ error_code: 'LMS_AUTHORIZATION_REQUIRED', requiresAuth: true });
    expect(bootstrapOf((await connect(browser, 'instructor', '/api/oauth2reauthorize')).body).view).toBe('lms-oauth-connected');
    expect((await request(browser, 'GET', '/api/quizzes')).statusCode).toBe(200);
  });
});

describe('forged user ids', () => {
  it('a teacher of another course cannot launch as a proven instructor (refused, nothing revealed or changed)', async () => {
    const victim = await honestInstructor();
    expect((await request(victim, 'PUT', '/api/quizzes/course/101/defaults', { quitPassword: 'course-exit-1' })).statusCode).toBe(200);
    const writes = lmsWrites();

    const attacker = new Browser();
    const forged = await launch(attacker, {
      person: 'other-teacher',
      placement: 'course_navigation',
      courseId: 104,
      resourceLinkId: authoredLink(104, { lms_user_id: '2', lms_course_id: '101' }),
    });
    expect(forged.statusCode).toBe(400);
    expect(outcomeOf(forged)).toBe('LTI_IDENTITY_CONFLICT');
    expect(attacker.session()).toBeUndefined();
    const reveal = await request(attacker, 'POST', '/api/quizzes/course/101/passwords/reveal');
    expect(reveal.statusCode).toBe(401);
    expect(reveal.body).not.toContain('course-exit-1');
    expect(lmsWrites()).toBe(writes);
  });

  it('an unproven forged user id gets no grant and no course secrets, and cannot be proven by another LMS user', async () => {
    const attacker = new Browser();
    const forged = await launch(attacker, {
      person: 'other-teacher',
      placement: 'course_navigation',
      courseId: 104,
      resourceLinkId: authoredLink(104, { lms_user_id: '2' }),
    });
    expect(outcomeOf(forged)).toBe('teacher');
    const listing = await request(attacker, 'GET', '/api/quizzes');
    expect(listing.statusCode).toBe(401);
    expect(listing.json()).toMatchObject({ error_code: 'LMS_AUTHORIZATION_REQUIRED' });
    // The LMS authorizes the person actually signed in (user 7): the callback refuses to bind that grant to user 2.
    const callback = await connect(attacker, 'other-teacher');
    expect(callback.statusCode).toBe(400);
    expect(bootstrapOf(callback.body)).toMatchObject({ view: 'oauth-error', errorCode: 'user-mismatch' });
    expect((await request(attacker, 'GET', '/api/quizzes')).statusCode).toBe(401);
    expect(await h.t.db.orm.em.getConnection().execute('select 1 from lms_oauth_token')).toHaveLength(0);
  });

  it('a grant acts only for the subject that authorized it: a forged launch never uses the victim’s stored grant', async () => {
    await honestInstructor();
    const attacker = new Browser();
    // Same user id, but a course the victim never connected: the user binding already refuses the launch.
    const forged = await launch(attacker, {
      person: 'other-teacher',
      placement: 'course_navigation',
      courseId: 104,
      resourceLinkId: authoredLink(104, { lms_user_id: '2', lms_course_id: '104' }),
    });
    expect(outcomeOf(forged)).toBe('LTI_IDENTITY_CONFLICT');
  });
});

describe('forged courses', () => {
  it('a course id from another context is refused once the course is proven', async () => {
    await honestInstructor();
    const attacker = new Browser();
    const forged = await launch(attacker, {
      person: 'other-teacher',
      placement: 'course_navigation',
      courseId: 104,
      resourceLinkId: authoredLink(104, { lms_course_id: '101' }),
    });
    expect(outcomeOf(forged)).toBe('LTI_IDENTITY_CONFLICT');
  });

  it('before the course is proven, the LMS itself refutes the claimed course: no management, no LMS change', async () => {
    const attacker = new Browser();
    const forged = await launch(attacker, {
      person: 'other-teacher',
      placement: 'course_navigation',
      courseId: 104,
      resourceLinkId: authoredLink(104, { lms_course_id: '101' }),
    });
    expect(outcomeOf(forged)).toBe('teacher');
    expect(bootstrapOf((await connect(attacker, 'other-teacher')).body).view).toBe('lms-oauth-connected');
    const listing = await request(attacker, 'GET', '/api/quizzes');
    expect(listing.statusCode).toBe(403);
    expect(listing.json()).toMatchObject({ error_code: 'COURSE_MISMATCH' });
    expect((await request(attacker, 'PUT', '/api/quizzes/course/101/defaults', { quitPassword: 'mine-now' })).statusCode).toBe(403);
    expect(lmsWrites()).toBe(0);
    // The real course 101 is still unclaimed: its instructor proves it as usual.
    await honestInstructor();
  });

  it('students get no configuration grant for a course nobody proved', async () => {
    const browser = new Browser();
    const response = await launch(browser, { person: 'student1', placement: 'course_navigation', courseId: 101 });
    const { actionToken } = bootstrapOf(response.body) as { actionToken: string };
    const grant = await request(browser, 'POST', '/api/exb/config-grant/101/classicquiz_201', { actionToken });
    expect(grant.statusCode).toBe(403);
    expect(grant.json()).toMatchObject({ error_code: 'LMS_COURSE_UNVERIFIED' });
  });
});

describe('forged roles', () => {
  it('a learner whose link says "teacher" is a student', async () => {
    const browser = new Browser();
    const response = await launch(browser, {
      person: 'student1',
      placement: 'course_navigation',
      courseId: 101,
      resourceLinkId: authoredLink(101, { lms_membership_roles: 'TeacherEnrollment', lms_lis_membership_roles: 'http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor' }),
    });
    expect(outcomeOf(response)).toBe('student');
    expect((await request(browser, 'GET', '/api/quizzes')).statusCode).toBe(403);
  });

  it('a designer launching as a student is no student: no session URL is ever minted with the student’s grant', async () => {
    // The real student connected once, so their user id is bound to their subject.
    const student = new Browser();
    await launch(student, { person: 'student1', placement: 'course_navigation', courseId: 101 });
    expect(bootstrapOf((await connect(student, 'student1', '/api/student-session-authorize')).body).view).toBe('student-session-connected');

    const designer = new Browser();
    const forged = await launch(designer, {
      person: 'designer',
      placement: 'course_navigation',
      courseId: 101,
      resourceLinkId: authoredLink(101, { lms_user_id: '3', lms_membership_roles: 'StudentEnrollment' }),
    });
    expect(outcomeOf(forged)).toBe('LTI_IDENTITY_CONFLICT');
    expect(sessionTokenCalls()).toBe(0);
  });

  it('a designer with an unbound forged student id stays an instructor of that id and acts with no one’s grant', async () => {
    const designer = new Browser();
    const forged = await launch(designer, {
      person: 'designer',
      placement: 'course_navigation',
      courseId: 101,
      resourceLinkId: authoredLink(101, { lms_user_id: '4', lms_membership_roles: 'StudentEnrollment' }),
    });
    expect(outcomeOf(forged)).toBe('teacher');
    expect((await request(designer, 'GET', '/api/quizzes')).statusCode).toBe(401);
    expect(sessionTokenCalls()).toBe(0);
  });
});

describe('forged administrators', () => {
  it('a sub-account administrator launching a course link as a root administrator is not authorized', async () => {
    const browser = new Browser();
    const response = await launch(browser, {
      person: 'subaccount-admin',
      placement: 'course_navigation',
      courseId: 101,
      resourceLinkId: authoredLink(101, {
        exb_launch_surface: 'account_admin',
        lms_user_is_root_account_admin: 'true',
        lms_root_account_id: '1',
        lms_account_id: '1',
      }),
    });
    expect(response.statusCode).toBe(200);
    expect(outcomeOf(response)).not.toBe('admin');
    // No principal of any kind survives: the session reload goes to the sign-in fallback.
    expect((await principalOf(browser)).statusCode).toBe(302);
  });

  it('the root-account administrator launches from the account navigation into the admin view', async () => {
    const browser = new Browser();
    const response = await launch(browser, { person: 'administrator', placement: 'account_navigation', accountId: 1 });
    expect(outcomeOf(response)).toBe('admin');
  });
});

describe('whose grant acts without anyone at the keyboard', () => {
  /** The stored grant the background verifier and a reset's recovery would act with for course 101. */
  const managerOf101 = (preferred: string | null = null) =>
    createOAuthServices(h.t.config, h.t.db.orm, h.states, createLogger('silent')).oauth.tokens.courseManagerHolder('101', preferred);

  it('is never a student’s, even one who proved the course; an instructor who acts in the course becomes its manager', async () => {
    // A student connects first, which proves course 101 with the student's own grant.
    const student = new Browser();
    await launch(student, { person: 'student1', placement: 'course_navigation', courseId: 101 });
    expect(bootstrapOf((await connect(student, 'student1', '/api/student-session-authorize')).body).view).toBe('student-session-connected');
    expect(await h.t.db.orm.em.getConnection().execute(`select proven_by_lms_user_id as by from lti_context_binding where lms_id = '101'`)).toEqual([
      { by: '3' },
    ]);
    expect(await managerOf101()).toBeNull();
    // Not even when a record names the student as the last checker.
    expect(await managerOf101('3')).toBeNull();

    await honestInstructor();
    expect(await managerOf101()).toMatchObject({ lmsUserId: '2' });
    expect(await managerOf101('3')).toMatchObject({ lmsUserId: '2' });
  });
});
