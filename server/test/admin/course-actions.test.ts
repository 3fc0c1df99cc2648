import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { delay, http } from 'msw';
import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { storeGrant } from '../support/oauth-testbed.js';
import { instructor, sessionFor } from '../support/sessions.js';
import { createAdminBed, LMS_ROUTES, LMS_URL, type AdminBed } from './harness.js';

/**
 * What an administrator changes inside a connected course: discovery, passwords and enforcement, through the same
 * domain services as instructors, with the administrator's grant, the course write lock and the counts kept exact.
 */
let t: AdminBed;

beforeAll(async () => {
  t = await createAdminBed();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.reset();
  await t.grant();
  await t.connect('101', '102');
});

const COURSE = '/api/admin/courses/101';
const MIDTERM = `${COURSE}/assessments/classicquiz_201`;
const FINAL = `${COURSE}/assessments/${encodeURIComponent('newquiz:101:301')}`;

async function ok(method: 'POST' | 'PUT', path: string, body?: unknown) {
  const response = await t.request(method, path, { body });
  expect(response.statusCode, response.body).toBe(200);
  return response;
}

async function refresh() {
  return (await ok('POST', `${COURSE}/refresh`)).json();
}

async function courseExit(value = 'course-exit-7') {
  await t.settings.saveCourseDefaults('101', { courseId: '101', urlRules: [], externalTools: [], startPassword: 'start-7', exitPassword: value, setupCompleted: true });
}

async function counts(courseId = '101') {
  const [row] = await t.sql<{ assessment_count: number; enabled_assessment_count: number; issue_count: number }>(
    'select assessment_count, enabled_assessment_count, issue_count from admin_course where course_id = ?',
    [courseId],
  );
  return row;
}

describe('refresh', () => {
  it('discovers the course’s assessments with the administrator’s grant and counts them', async () => {
    const body = await refresh();
    expect(body).toMatchObject({ success: true, assessmentCount: 6 });
    expect(body.assessments).toContainEqual({ id: 'classicquiz_201', title: 'Midterm exam', exbRequired: false });
    expect(body.assessments).toContainEqual({ id: 'newquiz:101:301', title: 'Final exam (New Quizzes)', exbRequired: false });
    expect(t.bed.lms.calls.last(LMS_ROUTES.listQuizzes)?.userId).toBe(1);
    expect(await counts()).toEqual({ assessment_count: 6, enabled_assessment_count: 0, issue_count: 0 });
  });

  it('refuses a course that is not connected, or that the LMS moved out of the root account', async () => {
    for (const path of ['/api/admin/courses/103/refresh', '/api/admin/courses/170/refresh']) {
      const response = await t.request('POST', path);
      expect(response.statusCode).toBe(404);
      expect(response.json().error_code).toBe('ADMIN_COURSE_NOT_CONNECTED');
    }
    // Moved to another school: the LMS no longer shows it to this administrator.
    t.bed.lms.state.courses.get(102)!.accountId = 4;
    const moved = await t.request('POST', '/api/admin/courses/102/refresh');
    expect(moved.statusCode).toBe(403);
    expect(moved.json().error_code).toBe('LMS_PERMISSION_DENIED');
    expect(t.bed.lms.calls.count(LMS_ROUTES.listQuizzes)).toBe(0);
  });

  it('answers 409 COURSE_UPDATE_IN_PROGRESS to a refresh that overlaps another course write', async () => {
    const responses = await Promise.all([t.request('POST', `${COURSE}/refresh`), t.request('POST', `${COURSE}/refresh`)]);
    expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 409]);
    expect(responses.find((response) => response.statusCode === 409)!.json().error_code).toBe('COURSE_UPDATE_IN_PROGRESS');
  });
});

describe('course passwords', () => {
  it('reveals the effective start and exit passwords for 30 seconds with the no-store headers', async () => {
    await courseExit();
    const response = await ok('POST', `${COURSE}/passwords/reveal`);
    expect(response.json()).toEqual({
      success: true,
      expiresInSeconds: 30,
      passwords: { start: { value: 'start-7', source: 'course' }, exit: { value: 'course-exit-7', source: 'course' } },
    });
    expect(response.headers).toMatchObject({ 'cache-control': 'no-store, max-age=0', pragma: 'no-cache', 'referrer-policy': 'no-referrer' });
  });

  it('never reveals the managed default exit password', async () => {
    await refresh();
    const none = (await ok('POST', `${COURSE}/passwords/reveal`)).json();
    expect(none.passwords.exit).toEqual({ value: null, source: 'none' });
    const managed = await t.appWith((config) => ({ ...config, exb: { ...config.exb, managedQuitPassword: 'school-wide-secret' } }));
    const response = await t.request('POST', `${COURSE}/passwords/reveal`, { app: managed });
    expect(response.statusCode).toBe(200);
    expect(response.json().passwords.exit).toEqual({ value: null, source: 'managed' });
    expect(response.body).not.toContain('school-wide-secret');
    const assessment = await t.request('POST', `${MIDTERM}/passwords/reveal`, { app: managed });
    expect(assessment.json().passwords.exit).toEqual({ value: null, source: 'managed' });
  });

  it('rotates the exit password to a new random course override and shows it once', async () => {
    await courseExit();
    const first = (await ok('POST', `${COURSE}/quit-password/rotate`)).json();
    expect(first).toEqual({ success: true, expiresInSeconds: 30, passwords: { exit: { value: expect.stringMatching(/^[0-9a-z]{4}(-[0-9a-z]{4}){3}$/), source: 'course' } } });
    const second = (await ok('POST', `${COURSE}/quit-password/rotate`)).json();
    expect(second.passwords.exit.value).not.toBe(first.passwords.exit.value);
    const stored = await t.settings.loadCourseDefaults('101');
    expect(stored).toMatchObject({ exitPassword: second.passwords.exit.value, startPassword: 'start-7', setupCompleted: true });
    const rotated = await ok('POST', `${COURSE}/quit-password/rotate`);
    expect(rotated.headers['cache-control']).toBe('no-store, max-age=0');
    // Nothing of it in any log line.
    expect(t.bed.logs.join('\n')).not.toContain(second.passwords.exit.value);
  });
});

describe('assessment actions', () => {
  beforeEach(async () => {
    await refresh();
    await courseExit();
  });

  it('enables and disables enforcement in the LMS, keeping the connection record’s counts exact', async () => {
    const on = (await ok('PUT', `${MIDTERM}/exb`, { required: true })).json();
    expect(on).toMatchObject({ success: true, setting: { exbRequired: true, enabled: true, hasAccessCode: true, configValid: true } });
    const code = t.bed.lms.state.quizzes.get(201)!.accessCode;
    expect(code).toMatch(/^[0-9a-z]{24}$/);
    expect(t.bed.lms.calls.last(LMS_ROUTES.updateQuiz)?.userId).toBe(1);
    await ok('PUT', `${FINAL}/exb`, { required: true });
    expect(await counts()).toEqual({ assessment_count: 6, enabled_assessment_count: 2, issue_count: 0 });
    const list = (await t.request('GET', '/api/admin/courses?includePast=true')).json();
    expect(list.courses.find((row: { id: string }) => row.id === '101')).toMatchObject({ enabledAssessmentCount: 2, assessmentCount: 6 });

    const off = (await ok('PUT', `${MIDTERM}/exb`, { required: false })).json();
    expect(off).toMatchObject({ success: true, setting: { exbRequired: false, enabled: false, hasAccessCode: false } });
    expect(t.bed.lms.state.quizzes.get(201)!.accessCode).toBeNull();
    expect(await counts()).toEqual({ assessment_count: 6, enabled_assessment_count: 1, issue_count: 0 });
  });

  it('keeps the counts when an LMS call fails: nothing changes locally', async () => {
    t.bed.lms.faults.next(LMS_ROUTES.updateQuiz, { kind: 'forbidden' });
    const refused = await t.request('PUT', `${MIDTERM}/exb`, { body: { required: true } });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error_code).toBe('LMS_PERMISSION_DENIED');
    expect(await counts()).toEqual({ assessment_count: 6, enabled_assessment_count: 0, issue_count: 0 });
    expect(await t.settings.loadAssessmentSettings('101', 'classicquiz_201')).toBeNull();
  });

  it('answers parallel changes in one course with one success and 409s', async () => {
    // A slow LMS keeps the first change in flight while the others arrive.
    const slow = async () => {
      await delay(250);
    };
    t.bed.msw.use(http.put(`${LMS_URL}/api/v1/courses/101/quizzes/:id`, slow), http.patch(`${LMS_URL}/api/quiz/v1/courses/101/quizzes/:id`, slow));
    const paths = [MIDTERM, FINAL, `${COURSE}/assessments/classicquiz_202`];
    const responses = await Promise.all(paths.map((path) => t.request('PUT', `${path}/exb`, { body: { required: true } })));
    expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 409, 409]);
    for (const response of responses.filter((candidate) => candidate.statusCode === 409)) {
      expect(['COURSE_UPDATE_IN_PROGRESS', 'ASSESSMENT_OPERATION_IN_PROGRESS']).toContain(response.json().error_code);
    }
    const succeeded = responses.filter((response) => response.statusCode === 200).length;
    expect((await counts())?.enabled_assessment_count).toBe(succeeded);
    // Parallel requests on the same assessment: one wins, the rest are refused.
    const enforced = responses.findIndex((response) => response.statusCode === 200);
    const same = await Promise.all([1, 2, 3].map(() => t.request('POST', `${paths[enforced]}/regenerate-code`)));
    expect(same.map((response) => response.statusCode).sort()).toEqual([200, 409, 409]);
    expect(same.filter((response) => response.statusCode === 409).map((response) => response.json().error_code)).toEqual([
      'ASSESSMENT_OPERATION_IN_PROGRESS',
      'ASSESSMENT_OPERATION_IN_PROGRESS',
    ]);
  });

  it('reveals the start, exit and access code (read from the LMS) of an assessment', async () => {
    await ok('PUT', `${MIDTERM}/exb`, { required: true });
    const response = await ok('POST', `${MIDTERM}/passwords/reveal`);
    expect(response.json()).toEqual({
      success: true,
      expiresInSeconds: 30,
      passwords: {
        start: { value: 'start-7', source: 'course' },
        exit: { value: 'course-exit-7', source: 'course' },
        accessCode: { value: t.bed.lms.state.quizzes.get(201)!.accessCode, source: 'lms', mismatch: null },
      },
    });
    expect(response.headers['cache-control']).toBe('no-store, max-age=0');
    await ok('PUT', `${FINAL}/exb`, { required: true });
    const final = (await ok('POST', `${FINAL}/passwords/reveal`)).json();
    expect(final.passwords.accessCode).toEqual({ value: expect.stringMatching(/^[0-9a-z]{24}$/), source: 'lms', mismatch: null });
    const none = (await ok('POST', `${COURSE}/assessments/classicquiz_202/passwords/reveal`)).json();
    expect(none.passwords.accessCode).toEqual({ value: null, source: 'lms', mismatch: null });
  });

  it('says where the LMS holds another access code than the stored one when it reveals it', async () => {
    await ok('PUT', `${MIDTERM}/exb`, { required: true });
    t.bed.lms.state.quizzes.get(201)!.accessCode = 'set-by-hand';
    const changed = (await ok('POST', `${MIDTERM}/passwords/reveal`)).json();
    expect(changed.passwords.accessCode).toEqual({
      value: 'set-by-hand',
      source: 'lms',
      mismatch: 'The LMS has another access code than the one the service gives to exam browsers.',
    });
    t.bed.lms.state.quizzes.get(201)!.accessCode = null;
    const lost = (await ok('POST', `${MIDTERM}/passwords/reveal`)).json();
    expect(lost.passwords.accessCode).toEqual({ value: null, source: 'lms', mismatch: 'The LMS has no access code on this quiz, so any browser can open it.' });
  });

  it('resets the assessment’s exit password and its policy, keeping enforcement and the code', async () => {
    await t.settings.saveAssessmentSettings('101', {
      ...(await t.settings.loadAssessmentSettings('101', 'classicquiz_201') ?? {
        courseId: '101',
        contentId: 'classicquiz_201',
        exbRequired: false,
        enabled: false,
        accessCode: null,
        verificationStatus: 'unverified',
        version: 0,
      }),
      usesCourseDefaults: false,
      urlRules: [{ id: 'r1', match: 'exact', value: 'https://example.org/page' }],
      externalToolIds: [],
      quizOnlyTools: [],
      startPasswordOverride: 'own-start',
      exitPasswordOverride: 'own-exit',
    });
    await ok('PUT', `${MIDTERM}/exb`, { required: true });
    const code = t.bed.lms.state.quizzes.get(201)!.accessCode;

    const exit = (await ok('POST', `${MIDTERM}/quit-password/reset`)).json();
    expect(exit).toMatchObject({ success: true, setting: { exbRequired: true, usesCourseDefaults: false, configValid: true } });
    expect(await t.settings.loadAssessmentSettings('101', 'classicquiz_201')).toMatchObject({ exitPasswordOverride: null, startPasswordOverride: 'own-start' });

    const reset = (await ok('POST', `${MIDTERM}/reset-defaults`)).json();
    expect(reset).toMatchObject({ success: true, setting: { exbRequired: true, enabled: true, hasAccessCode: true, usesCourseDefaults: true } });
    expect(await t.settings.loadAssessmentSettings('101', 'classicquiz_201')).toMatchObject({
      urlRules: [],
      externalToolIds: null,
      startPasswordOverride: null,
      exitPasswordOverride: null,
      exbRequired: true,
      accessCode: code,
    });
    expect(t.bed.lms.state.quizzes.get(201)!.accessCode).toBe(code);
  });

  it('regenerates the access code of an enforced assessment, and refuses with 409 EXB_NOT_ENABLED otherwise', async () => {
    const refused = await t.request('POST', `${MIDTERM}/regenerate-code`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error_code).toBe('EXB_NOT_ENABLED');
    await ok('PUT', `${FINAL}/exb`, { required: true });
    const old = (await ok('POST', `${FINAL}/passwords/reveal`)).json().passwords.accessCode.value;
    const body = (await ok('POST', `${FINAL}/regenerate-code`)).json();
    expect(body).toMatchObject({ success: true, setting: { exbRequired: true, enabled: true, hasAccessCode: true } });
    expect(JSON.stringify(body)).not.toContain(old);
    const now = (await ok('POST', `${FINAL}/passwords/reveal`)).json().passwords.accessCode.value;
    expect(now).not.toBe(old);
    expect(t.bed.lms.calls.last(LMS_ROUTES.patchNewQuiz)?.userId).toBe(1);
  });

  it.each([
    ['a bare quiz id', `${COURSE}/assessments/201`],
    ['another course’s new quiz', `${COURSE}/assessments/${encodeURIComponent('newquiz:102:303')}`],
    ['an unknown quiz', `${COURSE}/assessments/classicquiz_999`],
    ['a malformed id', `${COURSE}/assessments/${'x'.repeat(3000)}`],
  ])('answers %s with 404 ASSESSMENT_NOT_FOUND', async (_name, path) => {
    const response = await t.request('PUT', `${path}/exb`, { body: { required: true } });
    expect(response.statusCode).toBe(404);
    expect(['ASSESSMENT_NOT_FOUND', 'NOT_FOUND']).toContain(response.json().error_code);
  });

  it('answers a course of another account with 404 ADMIN_COURSE_NOT_CONNECTED before any LMS call', async () => {
    await t.sql(`insert into admin_course (course_id, account_id, name, origin) values ('170', '4', 'Northfield', 'admin')`);
    const calls = t.bed.lms.calls.count();
    for (const path of ['/api/admin/courses/170/passwords/reveal', '/api/admin/courses/170/assessments/classicquiz_1/exb']) {
      const response = await t.request(path.endsWith('/exb') ? 'PUT' : 'POST', path, { body: { required: true } });
      expect(response.statusCode).toBe(404);
      expect(response.json().error_code).toBe('ADMIN_COURSE_NOT_CONNECTED');
    }
    expect(t.bed.lms.calls.count()).toBe(calls);
  });

  it('refuses a missing or non-boolean `required` with 400 and changes nothing', async () => {
    for (const body of [{}, { required: 'yes' }, { required: null }]) {
      const response = await t.request('PUT', `${MIDTERM}/exb`, { body });
      expect(response.statusCode).toBe(400);
    }
    expect(t.bed.lms.calls.count(LMS_ROUTES.updateQuiz)).toBe(0);
  });

  it('refuses changes while a reset of the course runs (409 COURSE_RESET_IN_PROGRESS)', async () => {
    await t.sql(`insert into lease (name, owner, expires_at) values ('course-reset:101', 'reset', now() + interval '1 minute')`);
    for (const [method, path] of [['PUT', `${MIDTERM}/exb`], ['POST', `${COURSE}/quit-password/rotate`], ['POST', `${COURSE}/refresh`]] as const) {
      const response = await t.request(method, path, { body: { required: true } });
      expect({ path, status: response.statusCode, code: response.json().error_code }).toEqual({ path, status: 409, code: 'COURSE_RESET_IN_PROGRESS' });
    }
  });
});

describe('instructor changes', () => {
  it('keep the connection record’s counts exact as well', async () => {
    await refresh();
    await courseExit();
    await storeGrant(t.bed, 2, APPLICATION_SCOPES);
    const cookie = sessionFor(t.app, instructor()).cookie;
    const response = await t.app.inject({
      method: 'PUT',
      url: '/api/quizzes/classicquiz_201/exb',
      headers: { cookie, 'sec-fetch-site': 'same-origin' },
      payload: { required: true },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(await counts()).toEqual({ assessment_count: 6, enabled_assessment_count: 1, issue_count: 0 });
  });
});
