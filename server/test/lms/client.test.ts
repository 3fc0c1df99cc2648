import { ADMIN_AND_APPLICATION_SCOPES, APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  LmsAuthorizationRequiredError,
  LmsInvalidResponseError,
  LmsNotFoundError,
  LmsPermissionDeniedError,
  LmsRateLimitedError,
  LmsRequestRejectedError,
  LmsTimeoutError,
  LmsUnavailableError,
} from '../../src/lms/errors.js';
import { createOAuthTestbed, LMS_URL, storeGrant, type OAuthTestbed } from '../support/oauth-testbed.js';
import { holderFor } from '../support/sessions.js';

describe('LMS API client against the mocked LMS', () => {
  let bed: OAuthTestbed;

  beforeAll(async () => {
    bed = await createOAuthTestbed();
  });
  afterAll(() => bed?.close());
  beforeEach(async () => {
    bed.lms.reset();
    bed.logs.length = 0;
    await bed.t.db.orm.em.getConnection().execute('delete from lms_oauth_token', [], 'run');
  });

  const api = (userId: string, options: Parameters<OAuthTestbed['services']>[0] = {}) => bed.services(options).lms.forPrincipal(holderFor(userId));

  describe('application scope set (instructor)', () => {
    beforeEach(() => storeGrant(bed, 2, APPLICATION_SCOPES));

    it('lists courses across pages, sending the bearer token only to the LMS', async () => {
      const courses = await api('2', { lms: { perPage: 2 } }).listCourses({ enrollmentType: 'teacher', include: ['term'] });
      // The concluded course 103 is not in the default state filter.
      expect(courses.map((course) => course.id)).toEqual(['101', '102', '105']);
      expect(courses[0]).toMatchObject({ name: 'Biology 101', courseCode: 'BIO101', term: { id: '4', name: 'Fall 2026' } });
      const calls = bed.lms.calls.filter('GET /api/v1/courses');
      expect(calls).toHaveLength(2);
      expect(calls[0]!.query).toMatchObject({ enrollment_type: 'teacher', include: ['term'], per_page: '2' });
      expect(calls.every((call) => call.userId === 2)).toBe(true);
    });

    it('lists classic quizzes with their access codes and assignments recognising new quizzes', async () => {
      const quizzes = await api('2').listQuizzes('101');
      expect(quizzes.find((quiz) => quiz.id === '204')).toMatchObject({ title: 'Lab safety check', accessCode: 'lab-2026', assignmentId: '314' });
      expect(quizzes.find((quiz) => quiz.id === '201')!.accessCode).toBeNull();
      const assignments = await api('2').listAssignments('101');
      expect(assignments.find((assignment) => assignment.id === '301')).toMatchObject({ isNewQuiz: true, isClassicQuiz: false });
      expect(assignments.find((assignment) => assignment.id === '320')).toMatchObject({ isNewQuiz: false });
    });

    it('updates a classic quiz access code without notifying students', async () => {
      const updated = await api('2').updateQuiz('101', '201', { accessCode: 'secret-code' });
      expect(updated.accessCode).toBe('secret-code');
      expect(bed.lms.state.quizzes.get(201)!.accessCode).toBe('secret-code');
      expect(bed.lms.calls.last('PUT /api/v1/courses/:course_id/quizzes/:id')!.body).toMatchObject({ quiz: { access_code: 'secret-code', notify_of_update: false } });
      expect((await api('2').updateQuiz('101', '201', { accessCode: null })).accessCode).toBeNull();
    });

    it('reads and patches a new quiz', async () => {
      expect(await api('2').getNewQuiz('101', '301')).toMatchObject({ assignmentId: '301', requireStudentAccessCode: false, studentAccessCode: null });
      const patched = await api('2').patchNewQuiz('101', '301', { requireStudentAccessCode: true, studentAccessCode: '4711' });
      expect(patched).toMatchObject({ requireStudentAccessCode: true, studentAccessCode: '4711' });
    });

    it('creates a session token URL on the LMS origin', async () => {
      const session = await api('2').createSessionToken(`${LMS_URL}/courses/101/quizzes/201`);
      expect(session.sessionUrl.startsWith(`${LMS_URL}/courses/101/quizzes/201?session_token=`)).toBe(true);
      await expect(api('2').createSessionToken('https://elsewhere.example/x')).rejects.toThrow(RangeError);
    });

    it('maps an administrator call on an application grant to "authorization required" (insufficient scope)', async () => {
      const error = await api('2').getAccount('1').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(LmsAuthorizationRequiredError);
      expect((error as LmsAuthorizationRequiredError).reason).toBe('insufficient-scope');
      expect(bed.lms.calls.count('POST /login/oauth2/token')).toBe(0);
    });

    it('maps 403 to permission denied and 404 to not found', async () => {
      await expect(api('2').listQuizzes('104')).rejects.toBeInstanceOf(LmsPermissionDeniedError);
      await expect(api('2').getNewQuiz('101', '999')).rejects.toBeInstanceOf(LmsNotFoundError);
      bed.lms.faults.forbidden('GET /api/v1/courses/:course_id/quizzes');
      await expect(api('2').listQuizzes('101')).rejects.toBeInstanceOf(LmsPermissionDeniedError);
    });

    it('maps the older 401 permission answer to permission denied, not to a refresh', async () => {
      bed.lms.faults.next('GET /api/v1/courses/:course_id/quizzes', {
        status: 401,
        body: { status: 'unauthorized', errors: [{ message: 'user not authorized to perform that action' }] },
        headers: { 'content-type': 'application/json' },
      });
      await expect(api('2').listQuizzes('101')).rejects.toBeInstanceOf(LmsPermissionDeniedError);
      expect(bed.lms.calls.count('POST /login/oauth2/token')).toBe(0);
    });

    it('maps a rejected update to a request error', async () => {
      bed.lms.faults.next('PUT /api/v1/courses/:course_id/quizzes/:id', { status: 400, body: { errors: { quiz: 'invalid' } } });
      await expect(api('2').updateQuiz('101', '201', { accessCode: 'x' })).rejects.toBeInstanceOf(LmsRequestRejectedError);
    });

    it.each(['429', '403'] as const)('retries the %s rate-limit form with backoff and succeeds', async (form) => {
      bed.lms.faults.rateLimit('PUT /api/v1/courses/:course_id/quizzes/:id', { form, times: 2 });
      const updated = await api('2').updateQuiz('101', '201', { accessCode: 'after-throttle' });
      expect(updated.accessCode).toBe('after-throttle');
      expect(bed.lms.calls.count('PUT /api/v1/courses/:course_id/quizzes/:id')).toBe(3);
    });

    it('gives up on throttling within the deadline', async () => {
      bed.lms.faults.rateLimit('GET /api/v1/courses', { times: 50 });
      const fast = { lms: { callDeadlineMs: 400, listDeadlineMs: 400, backoff: { maxAttempts: 20, baseDelayMs: 100, maxDelayMs: 100 } } };
      const started = Date.now();
      await expect(api('2', fast).listCourses()).rejects.toBeInstanceOf(LmsRateLimitedError);
      expect(Date.now() - started).toBeLessThan(1500);
    });

    it('sends a read once more after a server error or a dropped connection, a write never', async () => {
      bed.lms.faults.next('GET /api/v1/courses/:course_id/quizzes', { status: 503 });
      expect((await api('2').listQuizzes('101')).length).toBeGreaterThan(0);
      bed.lms.faults.next('GET /api/v1/courses/:course_id/quizzes', { kind: 'network-error' });
      expect((await api('2').listQuizzes('101')).length).toBeGreaterThan(0);
      expect(bed.lms.calls.count('GET /api/v1/courses/:course_id/quizzes')).toBe(4);

      bed.lms.faults.next('PUT /api/v1/courses/:course_id/quizzes/:id', { status: 502 });
      await expect(api('2').updateQuiz('101', '201', { accessCode: 'x' })).rejects.toBeInstanceOf(LmsUnavailableError);
      expect(bed.lms.calls.count('PUT /api/v1/courses/:course_id/quizzes/:id')).toBe(1);
    });

    it('does not retry a read past its deadline', async () => {
      bed.lms.faults.timeout('GET /api/v1/courses/:course_id/quizzes', { ms: 10_000, times: 2 });
      const started = Date.now();
      await expect(api('2', { lms: { listDeadlineMs: 400 } }).listQuizzes('101')).rejects.toBeInstanceOf(LmsTimeoutError);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(bed.lms.calls.count('GET /api/v1/courses/:course_id/quizzes')).toBe(1);
      bed.lms.faults.clear();
    });

    it('enforces the call deadline and the response size cap', async () => {
      bed.lms.faults.timeout('GET /api/v1/courses/:course_id/quizzes', { ms: 10_000 });
      await expect(api('2', { lms: { listDeadlineMs: 300 } }).listQuizzes('101')).rejects.toBeInstanceOf(LmsTimeoutError);
      bed.lms.faults.oversized('GET /api/v1/courses/:course_id/quizzes', { bytes: 200_000 });
      await expect(api('2', { lms: { maxResponseBytes: 100_000 } }).listQuizzes('101')).rejects.toBeInstanceOf(LmsInvalidResponseError);
    });

    it('rejects non-numeric ids before calling the LMS', async () => {
      await expect(api('2').getNewQuiz('101', '../../accounts/1')).rejects.toThrow(RangeError);
      expect(bed.lms.calls.count()).toBe(0);
    });
  });

  describe('administrator scope set', () => {
    beforeEach(() => storeGrant(bed, 1, ADMIN_AND_APPLICATION_SCOPES));

    it('reads the account, permissions, terms, account courses (paged) and single course and quiz', async () => {
      const client = api('1', { lms: { perPage: 2 } });
      expect(await client.getAccount('1')).toMatchObject({ id: '1', name: 'Example University', parentAccountId: null });
      const permissions = await client.getAccountPermissions('1', ['manage_courses_admin', 'manage_courses']);
      expect(typeof permissions.manage_courses_admin).toBe('boolean');
      const terms = await client.listTerms('1');
      expect(terms.map((term) => term.name)).toEqual(expect.arrayContaining(['Fall 2026', 'Default Term']));
      expect(terms).toHaveLength(4);

      // The demo school's courses plus its catalog of 60 more, over every page; another school's course is not among them.
      const all = await client.listAccountCourses('1', { include: ['term'] });
      expect(all.map((course) => course.id)).toEqual(expect.arrayContaining(['101', '102', '103', '104', '105', '106', '165']));
      expect(new Set(all.map((course) => course.id)).size).toBe(65);
      expect(all.map((course) => course.id)).not.toContain('170');
      const first = await client.listAccountCoursesPage('1', {}, { perPage: 2 });
      expect(first.items).toHaveLength(2);
      expect(first.nextPage).not.toBeNull();
      const second = await client.listAccountCoursesPage('1', {}, { perPage: 2, page: first.nextPage! });
      expect(second.items.map((course) => course.id)).not.toEqual(first.items.map((course) => course.id));

      expect(await client.getCourse('104')).toMatchObject({ id: '104', name: 'History 110' });
      expect(await client.getQuiz('104', '206')).toMatchObject({ id: '206', title: 'Primary sources quiz' });
    });
  });

  describe('authorization required', () => {
    it('without a stored grant, no LMS call is made', async () => {
      const error = await api('2').listCourses().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(LmsAuthorizationRequiredError);
      expect((error as LmsAuthorizationRequiredError).reason).toBe('no-grant');
      expect(bed.lms.calls.count()).toBe(0);
    });

    it('a token the LMS expired early is refreshed once and the call retried', async () => {
      const issued = await storeGrant(bed, 2, APPLICATION_SCOPES);
      bed.lms.oauth.expire(issued.response.access_token);
      const courses = await api('2').listCourses();
      expect(courses.length).toBeGreaterThan(0);
      expect(bed.lms.calls.count('POST /login/oauth2/token')).toBe(1);
      expect(bed.lms.calls.filter('GET /api/v1/courses').map((call) => call.status)).toEqual([401, 200]);
    });

    it('a revoked grant marks the user as needing reauthorization; later calls do not reach the LMS', async () => {
      const issued = await storeGrant(bed, 2, APPLICATION_SCOPES);
      bed.lms.oauth.revoke(issued.response.access_token);
      const error = await api('2').listCourses().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(LmsAuthorizationRequiredError);
      expect((error as LmsAuthorizationRequiredError).reason).toBe('reauthorization-required');
      expect((await bed.services().oauth.tokens.findMetadata('2'))!.reauthorizationRequired).toBe(true);

      const before = bed.lms.calls.count();
      await expect(api('2').listCourses()).rejects.toBeInstanceOf(LmsAuthorizationRequiredError);
      expect(bed.lms.calls.count()).toBe(before);
    });

    it('never puts tokens into errors or logs', async () => {
      const issued = await storeGrant(bed, 2, APPLICATION_SCOPES);
      bed.lms.oauth.revoke(issued.response.access_token);
      const error = (await api('2').listCourses().catch((caught: unknown) => caught)) as Error;
      const everything = `${error.message}\n${error.stack}\n${JSON.stringify(error)}\n${bed.logs.join('\n')}`;
      expect(everything).not.toContain(issued.response.access_token);
      expect(everything).not.toContain(issued.response.refresh_token!);
    });
  });
});
