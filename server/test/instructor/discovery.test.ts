import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { instructor, student } from '../support/sessions.js';
import { COURSE, createInstructorBed, LMS_ROUTES, type InstructorBed } from './harness.js';

describe('assessment discovery and the cache (instructor routes)', () => {
  let t: InstructorBed;

  beforeAll(async () => {
    t = await createInstructorBed();
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    await t.reset();
  });

  const lmsCalls = () => t.bed.lms.calls.list().length;

  describe('POST /api/quizzes/course/:courseId/refresh', () => {
    it('reads classic quizzes and new-quiz assignments with the instructor grant and stores them', async () => {
      await t.grant();
      const response = await t.request('POST', `/api/quizzes/course/${COURSE}/refresh`);
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body).toMatchObject({ success: true, quizCount: 6 });
      expect(typeof body.message).toBe('string');
      expect(body.quizzes).toEqual(
        expect.arrayContaining([
          { id: 'classicquiz_201', title: 'Midterm exam', lmsQuizId: '201' },
          { id: 'classicquiz_202', title: 'Weekly practice quiz', lmsQuizId: '202' },
          { id: 'classicquiz_203', title: 'Final exam (draft)', lmsQuizId: '203' },
          { id: 'classicquiz_204', title: 'Lab safety check', lmsQuizId: '204' },
          { id: 'newquiz:101:301', title: 'Final exam (New Quizzes)', lmsQuizId: '301' },
          { id: 'newquiz:101:302', title: 'Unit 3 check (New Quizzes)', lmsQuizId: '302' },
        ]),
      );
      // Classic-quiz assignments and other assignments are not new quizzes; other courses' quizzes never appear.
      expect(JSON.stringify(body)).not.toMatch(/311|320|205|303/);
      const calls = t.bed.lms.calls.filter((call) => call.route === LMS_ROUTES.listQuizzes || call.route === LMS_ROUTES.listAssignments);
      expect(calls.map((call) => call.userId)).toEqual([2, 2]);
      expect(calls.every((call) => call.params.course_id === COURSE)).toBe(true);
    });

    it('drops assessments the LMS no longer lists and updates changed titles', async () => {
      await t.grant();
      await t.discover();
      t.bed.lms.state.quizzes.get(202)!.deleted = true;
      t.bed.lms.state.quizzes.get(201)!.title = 'Midterm exam (renamed)';
      const response = await t.request('POST', `/api/quizzes/course/${COURSE}/refresh`);
      expect(response.json().quizCount).toBe(5);
      const list = (await t.request('GET', '/api/quizzes')).json() as { id: string; title: string }[];
      expect(list.map((item) => item.id)).not.toContain('classicquiz_202');
      expect(list.find((item) => item.id === 'classicquiz_201')?.title).toBe('Midterm exam (renamed)');
    });

    it('answers requiresAuth with a re-authorization URL when there is no usable grant', async () => {
      const response = await t.request('POST', `/api/quizzes/course/${COURSE}/refresh`);
      expect(response.statusCode).toBe(401);
      const body = response.json();
      expect(body).toMatchObject({ success: false, requiresAuth: true, error_code: 'LMS_AUTHORIZATION_REQUIRED' });
      expect(body.authUrl).toMatch(/^\/api\/oauth2reauthorize\?/);
      expect(new URLSearchParams(body.authUrl.split('?')[1]).get('course_id')).toBe(COURSE);
    });

    it('answers requiresAuth when the LMS revoked the grant, and keeps the cache as it was', async () => {
      const issued = await t.grant();
      await t.discover();
      const before = (await t.request('GET', '/api/quizzes')).json();
      t.bed.lms.oauth.revoke(issued.response.access_token);
      t.bed.lms.state.quizzes.get(202)!.deleted = true;
      const response = await t.request('POST', `/api/quizzes/course/${COURSE}/refresh`);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ success: false, requiresAuth: true });
      expect(response.json().authUrl.startsWith('/api/oauth2reauthorize')).toBe(true);
      expect((await t.request('GET', '/api/quizzes')).json()).toEqual(before);
    });

    it('leaves the cache unchanged when the LMS fails', async () => {
      await t.grant();
      await t.discover();
      const before = (await t.request('GET', '/api/quizzes')).json();
      t.bed.lms.state.quizzes.get(202)!.deleted = true;
      t.bed.lms.faults.next(LMS_ROUTES.listAssignments, { status: 500, times: 10 });
      const response = await t.request('POST', `/api/quizzes/course/${COURSE}/refresh`);
      expect(response.statusCode).toBe(502);
      expect(response.json()).toMatchObject({ success: false, error_code: 'LMS_UNAVAILABLE' });
      expect((await t.request('GET', '/api/quizzes')).json()).toEqual(before);
    });

    it('refuses another course, students, missing sessions and cross-site requests before calling the LMS', async () => {
      await t.grant();
      const other = await t.request('POST', '/api/quizzes/course/102/refresh');
      expect(other.statusCode).toBe(403);
      expect(other.json()).toMatchObject({ success: false, error_code: 'COURSE_MISMATCH' });

      const asStudent = await t.request('POST', `/api/quizzes/course/${COURSE}/refresh`, { cookie: t.sessionCookie(student()) });
      expect(asStudent.statusCode).toBe(403);
      expect(asStudent.json().error_code).toBe('INSTRUCTOR_REQUIRED');

      const anonymous = await t.request('POST', `/api/quizzes/course/${COURSE}/refresh`, { cookie: null });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toMatchObject({ success: false, error_code: 'UNAUTHORIZED' });

      for (const site of ['cross-site', 'same-site', 'none']) {
        const crossSite = await t.request('POST', `/api/quizzes/course/${COURSE}/refresh`, { site });
        expect(crossSite.statusCode).toBe(403);
        expect(crossSite.json()).toMatchObject({ success: false, error_code: 'CROSS_SITE_REQUEST' });
      }
      expect(lmsCalls()).toBe(0);
    });

    it('answers COURSE_UPDATE_IN_PROGRESS to a second refresh while the first still runs', async () => {
      await t.grant();
      t.slowLms('get', '/api/v1/courses/101/quizzes', 300);
      const [first, second] = await Promise.all([
        t.request('POST', `/api/quizzes/course/${COURSE}/refresh`),
        (async () => {
          await new Promise((resolve) => setTimeout(resolve, 100));
          return t.request('POST', `/api/quizzes/course/${COURSE}/refresh`);
        })(),
      ]);
      expect(first.statusCode).toBe(200);
      expect(second.statusCode).toBe(409);
      expect(second.json()).toMatchObject({ success: false, error_code: 'COURSE_UPDATE_IN_PROGRESS' });
    });
  });

  describe('reads from the cache', () => {
    beforeEach(async () => {
      await t.grant();
      await t.discover();
      t.bed.lms.calls.clear();
    });

    it('GET /api/quizzes is a bare array of cached assessments and calls no LMS', async () => {
      const response = await t.request('GET', '/api/quizzes');
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const list = response.json();
      expect(Array.isArray(list)).toBe(true);
      expect(list).toHaveLength(6);
      expect(list).toContainEqual({ id: 'classicquiz_203', title: 'Final exam (draft)', courseId: COURSE, contentType: 'CLASSIC_QUIZ', published: false, unmanagedAccessCode: false });
      expect(list).toContainEqual({ id: 'newquiz:101:301', title: 'Final exam (New Quizzes)', courseId: COURSE, contentType: 'NEW_QUIZ', published: true, unmanagedAccessCode: false });
      expect(lmsCalls()).toBe(0);
    });

    it('GET /api/quizzes/:quizId accepts a content id or a bare classic quiz id', async () => {
      const bare = await t.request('GET', '/api/quizzes/201');
      expect(bare.statusCode).toBe(200);
      expect(bare.json()).toEqual({
        id: 'classicquiz_201',
        title: 'Midterm exam',
        courseId: COURSE,
        contentType: 'CLASSIC_QUIZ',
        published: true,
        unmanagedAccessCode: false,
      });
      expect((await t.request('GET', '/api/quizzes/classicquiz_201')).json()).toEqual(bare.json());
      const newQuiz = await t.request('GET', `/api/quizzes/${encodeURIComponent('newquiz:101:301')}`);
      expect(newQuiz.json()).toMatchObject({ id: 'newquiz:101:301', contentType: 'NEW_QUIZ' });
      expect((await t.request('GET', '/api/quizzes/newquiz:101:302')).json()).toMatchObject({ id: 'newquiz:101:302', published: false });
      expect(lmsCalls()).toBe(0);
    });

    it('GET /api/quizzes/:quizId answers ASSESSMENT_NOT_FOUND for other courses and malformed ids', async () => {
      for (const id of ['205', 'classicquiz_205', 'newquiz:102:303', 'newquiz:101:303', 'classicquiz_0201', 'quiz', '999999']) {
        const response = await t.request('GET', `/api/quizzes/${encodeURIComponent(id)}`);
        expect(response.statusCode, id).toBe(404);
        expect(response.json()).toMatchObject({ success: false, error_code: 'ASSESSMENT_NOT_FOUND' });
      }
    });

    it('GET /api/quizzes/exb-settings is the redacted map, not a quiz lookup', async () => {
      await t.courseExitPassword();
      expect((await t.request('POST', `/api/quizzes/${COURSE}/201/exb/enable`)).statusCode).toBe(200);
      const response = await t.request('GET', '/api/quizzes/exb-settings');
      expect(response.statusCode).toBe(200);
      const map = response.json();
      expect(Object.keys(map).sort()).toEqual([
        'classicquiz_201',
        'classicquiz_202',
        'classicquiz_203',
        'classicquiz_204',
        'newquiz:101:301',
        'newquiz:101:302',
      ]);
      expect(map.classicquiz_201).toEqual({ exbRequired: true, enabled: true, hasAccessCode: true, usesCourseDefaults: true });
      expect(map.classicquiz_202).toEqual({ exbRequired: false, enabled: false, hasAccessCode: false, usesCourseDefaults: true });
      const code = t.bed.lms.state.quizzes.get(201)!.accessCode!;
      expect(response.body).not.toContain(code);
      expect(response.body).not.toContain('course-exit-1');
    });

    it('another course’s instructor sees none of this course’s cache', async () => {
      await t.grant(7);
      const otherCookie = t.sessionCookie(instructor({ courseId: '104', lmsUserId: '7' }));
      expect((await t.request('GET', '/api/quizzes', { cookie: otherCookie })).json()).toEqual([]);
      expect((await t.request('GET', '/api/quizzes/201', { cookie: otherCookie })).statusCode).toBe(404);
      expect((await t.request('GET', '/api/quizzes/exb-settings', { cookie: otherCookie })).json()).toEqual({});
    });
  });
});
