import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { DomainError } from '../../src/domain-error.js';
import { BindingRepository } from '../../src/identity/binding-repository.js';
import { IdentityService, ROLE_CONFIRMATION_TTL_MS } from '../../src/identity/identity-service.js';
import { createLogger } from '../../src/logger.js';
import { storeGrant } from '../support/oauth-testbed.js';
import { instructor } from '../support/sessions.js';
import { COURSE, createInstructorBed, LMS_ROUTES, type InstructorBed } from '../instructor/harness.js';

/**
 * A session lives for hours, but being an instructor of a course can end in the LMS at any moment. Before a secret is
 * revealed or a course setting is written, the LMS must still list the instructor in the course (asked with the
 * instructor's own grant, trusted for a few minutes per person and course).
 */
let t: InstructorBed;
beforeAll(async () => {
  t = await createInstructorBed();
});
afterAll(() => t?.close());
beforeEach(async () => {
  await t.reset();
  await t.grant();
  await t.discover();
  await t.courseExitPassword('course-exit-1');
});

const courseCalls = () => t.bed.lms.calls.filter((call) => call.route === LMS_ROUTES.listCourses).length;

describe('an instructor removed from the course in the LMS', () => {
  async function expectRefused(app: Awaited<ReturnType<InstructorBed['appWith']>>) {
    const reveal = await t.request('POST', `/api/quizzes/course/${COURSE}/passwords/reveal`, { app });
    expect(reveal.statusCode).toBe(403);
    expect(reveal.json()).toMatchObject({ error_code: 'INSTRUCTOR_REQUIRED' });
    expect(reveal.body).not.toContain('course-exit-1');

    const change = await t.request('PUT', `/api/quizzes/course/${COURSE}/defaults`, { app, body: { quitPassword: 'taken-over' } });
    expect(change.statusCode).toBe(403);
    expect(change.json()).toMatchObject({ error_code: 'INSTRUCTOR_REQUIRED' });
    const enable = await t.request('POST', `/api/quizzes/${COURSE}/201/exb/enable`, { app });
    expect(enable.statusCode).toBe(403);

    expect((await t.settings.loadCourseDefaults(COURSE))?.exitPassword).toBe('course-exit-1');
  }

  it('cannot reveal the exit password or write a setting with the old session once the enrollment is deleted', async () => {
    // The same session still works while the LMS lists the teacher.
    expect((await t.request('POST', `/api/quizzes/course/${COURSE}/passwords/reveal`)).statusCode).toBe(200);
    expect(t.bed.lms.state.removeFromCourse(2, Number(COURSE), 'delete')).toBe(1);
    // Another instance, which has confirmed nobody yet, asks the LMS at once.
    await expectRefused(await t.appWith((config) => config));
  });

  it('is refused once the enrollment is concluded, or is only a student enrollment now', async () => {
    t.bed.lms.state.removeFromCourse(2, Number(COURSE), 'conclude');
    await expectRefused(await t.appWith((config) => config));

    t.bed.lms.state.enrollments.set(9_001, { id: 9_001, userId: 2, courseId: Number(COURSE), type: 'student', state: 'active' });
    await expectRefused(await t.appWith((config) => config));
  });

  it('still manages other courses it teaches, and reads cost no LMS call', async () => {
    t.bed.lms.state.removeFromCourse(2, Number(COURSE), 'delete');
    const app = await t.appWith((config) => config);
    const before = courseCalls();
    expect((await t.request('GET', '/api/quizzes', { app })).statusCode).toBe(200);
    expect(courseCalls()).toBe(before);
    const other = t.sessionCookie(instructor({ courseId: '102' }), app);
    const save = await t.request('PUT', '/api/quizzes/course/102/defaults', { app, cookie: other, body: { quitPassword: 'chem-exit' } });
    expect(save.statusCode).toBe(200);
  });
});

describe('the cached confirmation', () => {
  it('is trusted for a few minutes per person and course, then asked again, which stops a removed instructor', async () => {
    let now = Date.now();
    const { oauth, lms } = t.bed.services();
    const identity = new IdentityService(new BindingRepository(t.bed.t.db.orm), oauth.tokens, lms, createLogger('silent'), () => now);
    await storeGrant(t.bed, 2, APPLICATION_SCOPES);
    const before = courseCalls();
    await identity.requireInstructor(instructor());
    await identity.requireInstructor(instructor());
    expect(courseCalls()).toBe(before + 1);
    // Per course: another course is confirmed on its own.
    await identity.requireInstructor(instructor({ courseId: '102' }));
    expect(courseCalls()).toBe(before + 2);

    t.bed.lms.state.removeFromCourse(2, Number(COURSE), 'delete');
    now += ROLE_CONFIRMATION_TTL_MS - 1_000;
    await identity.requireInstructor(instructor());
    expect(courseCalls()).toBe(before + 2);

    now += 2_000;
    const refusal = await identity.requireInstructor(instructor()).then(() => null, (error: unknown) => error);
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({ status: 403, errorCode: 'INSTRUCTOR_REQUIRED' });
    // A refusal is not remembered: being enrolled again works at the next action.
    t.bed.lms.state.enrollments.set(9_002, { id: 9_002, userId: 2, courseId: Number(COURSE), type: 'teacher', state: 'active' });
    await identity.requireInstructor(instructor());
  });
});
