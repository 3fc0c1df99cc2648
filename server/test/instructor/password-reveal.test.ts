import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { student } from '../support/sessions.js';
import { COURSE, createInstructorBed, type InstructorBed } from './harness.js';

const COURSE_REVEAL = `/api/quizzes/course/${COURSE}/passwords/reveal`;
const QUIZ_REVEAL = `/api/quizzes/${COURSE}/201/passwords/reveal`;

function expectNoStore(response: LightMyRequestResponse) {
  expect(response.headers['cache-control']).toMatch(/no-store/);
  expect(response.headers.pragma).toBe('no-cache');
  expect(response.headers.expires).toBe('0');
}

describe('password reveals (instructor routes)', () => {
  let t: InstructorBed;
  let managedApp: FastifyInstance;

  beforeAll(async () => {
    t = await createInstructorBed();
    managedApp = await t.appWith((config) => ({ ...config, exb: { ...config.exb, managedQuitPassword: 'managed-exit-secret' } }));
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    await t.reset();
    await t.grant();
    await t.discover();
  });

  const reveal = (url: string, app?: FastifyInstance) => t.request('POST', url, app ? { app } : {});

  it('course reveal: the course passwords, briefly and uncached', async () => {
    await t.request('PUT', `/api/quizzes/course/${COURSE}/defaults`, { body: { quitPassword: 'course-exit', startPassword: 'course-start' } });
    const response = await reveal(COURSE_REVEAL);
    expect(response.statusCode).toBe(200);
    expectNoStore(response);
    expect(response.json()).toEqual({
      success: true,
      expiresInSeconds: 30,
      passwords: { start: { value: 'course-start', source: 'course' }, exit: { value: 'course-exit', source: 'course' } },
    });
  });

  it('the typed procedure answers with the same headers', async () => {
    await t.request('PUT', `/api/quizzes/course/${COURSE}/defaults`, { body: { quitPassword: 'course-exit' } });
    const response = await t.request('POST', '/trpc/instructor.passwords.revealCourse', { body: { courseId: COURSE } });
    expect(response.statusCode).toBe(200);
    expectNoStore(response);
    expect(response.json().result.data.passwords.exit).toEqual({ value: 'course-exit', source: 'course' });
  });

  it('course reveal: none configured, or only the managed default whose value is never returned', async () => {
    const none = await reveal(COURSE_REVEAL);
    expect(none.json().passwords).toEqual({ start: { value: null, source: 'none' }, exit: { value: null, source: 'none' } });
    const managed = await reveal(COURSE_REVEAL, managedApp);
    expect(managed.statusCode).toBe(200);
    expectNoStore(managed);
    expect(managed.json().passwords.exit).toEqual({ value: null, source: 'managed' });
    expect(managed.body).not.toContain('managed-exit-secret');
  });

  it('assessment reveal: assessment override, then course, then managed, then none', async () => {
    expect((await reveal(QUIZ_REVEAL)).json().passwords).toEqual({ start: { value: null, source: 'none' }, exit: { value: null, source: 'none' } });
    const managed = await reveal(QUIZ_REVEAL, managedApp);
    expect(managed.json().passwords.exit).toEqual({ value: null, source: 'managed' });
    expect(managed.body).not.toContain('managed-exit-secret');

    await t.request('PUT', `/api/quizzes/course/${COURSE}/defaults`, { body: { quitPassword: 'course-exit', startPassword: 'course-start' } });
    expect((await reveal(QUIZ_REVEAL, managedApp)).json().passwords).toEqual({
      start: { value: 'course-start', source: 'course' },
      exit: { value: 'course-exit', source: 'course' },
    });

    await t.request('POST', '/api/quizzes/exb-config-structured?userId=2', {
      body: { quizId: '201', quitPasswordOverride: true, quitPassword: 'quiz-exit', startPasswordOverride: true, startPassword: 'quiz-start' },
    });
    const response = await reveal(QUIZ_REVEAL);
    expect(response.statusCode).toBe(200);
    expectNoStore(response);
    expect(response.json()).toEqual({
      success: true,
      expiresInSeconds: 30,
      passwords: { start: { value: 'quiz-start', source: 'assessment' }, exit: { value: 'quiz-exit', source: 'assessment' } },
    });
    // The access code is never part of an instructor reveal.
    expect((await t.request('POST', `/api/quizzes/${COURSE}/201/exb/enable`)).statusCode).toBe(200);
    const code = t.bed.lms.state.quizzes.get(201)!.accessCode!;
    expect((await reveal(QUIZ_REVEAL)).body).not.toContain(code);
  });

  it('refuses other courses, students, missing sessions and cross-site requests', async () => {
    await t.request('PUT', `/api/quizzes/course/${COURSE}/defaults`, { body: { quitPassword: 'course-exit' } });
    const cases: [string, { cookie?: string | null; site?: string }, number, string][] = [
      ['/api/quizzes/course/102/passwords/reveal', {}, 403, 'COURSE_MISMATCH'],
      ['/api/quizzes/102/205/passwords/reveal', {}, 403, 'COURSE_MISMATCH'],
      [`/api/quizzes/${COURSE}/205/passwords/reveal`, {}, 404, 'ASSESSMENT_NOT_FOUND'],
      [COURSE_REVEAL, { cookie: t.sessionCookie(student()) }, 403, 'INSTRUCTOR_REQUIRED'],
      [COURSE_REVEAL, { cookie: null }, 401, 'UNAUTHORIZED'],
      [COURSE_REVEAL, { site: 'cross-site' }, 403, 'CROSS_SITE_REQUEST'],
      [QUIZ_REVEAL, { site: 'same-site' }, 403, 'CROSS_SITE_REQUEST'],
    ];
    for (const [url, options, status, code] of cases) {
      const response = await t.request('POST', url, options);
      expect(response.statusCode, url).toBe(status);
      expect(response.json()).toMatchObject({ success: false, error_code: code });
      expect(response.body).not.toContain('course-exit');
    }
  });

  it('no secret reaches the log', async () => {
    await t.request('PUT', `/api/quizzes/course/${COURSE}/defaults`, { body: { quitPassword: 'course-exit-logged?', startPassword: 'course-start-logged?' } });
    await reveal(COURSE_REVEAL);
    await t.request('POST', `/api/quizzes/${COURSE}/201/exb/enable`);
    await t.request('POST', `/api/quizzes/${COURSE}/201/exb/regenerate-code`);
    const code = t.bed.lms.state.quizzes.get(201)!.accessCode!;
    const logs = t.bed.logs.join('\n');
    expect(logs).toContain('/passwords/reveal');
    for (const secret of ['course-exit-logged?', 'course-start-logged?', code]) expect(logs).not.toContain(secret);
  });
});
