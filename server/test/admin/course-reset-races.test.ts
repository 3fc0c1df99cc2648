import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { delay, http } from 'msw';
import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import type { ExternalToolConfig } from '@exb/shared/exb-policy.js';
import { storeGrant } from '../support/oauth-testbed.js';
import { instructor, sessionFor } from '../support/sessions.js';
import { createAdminBed, LMS_URL, type AdminBed } from './harness.js';
import { auditEntries, codeWrites, enforceCourse, lastSeq, lmsCodes, localState, reset } from './reset-harness.js';

/**
 * The course reset against what runs beside it, with real parallel requests: an instructor enabling enforcement in the
 * same course, the reset's own lock expiring mid-way, and an exam-tool copy into the course that read its reset
 * generation before the reset.
 */
let t: AdminBed;
let teacher: string;

beforeAll(async () => {
  t = await createAdminBed();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.reset();
  await t.grant();
  await storeGrant(t.bed, 2, APPLICATION_SCOPES);
  teacher = sessionFor(t.app, instructor()).cookie;
  await t.connect('101');
  await enforceCourse(t);
});

/** The instructor requires the exam browser for the draft final (quiz 203), which nothing enforces yet. */
function enable() {
  return t.app.inject({
    method: 'PUT',
    url: '/api/quizzes/classicquiz_203/exb',
    headers: { cookie: teacher, 'sec-fetch-site': 'same-origin' },
    payload: { required: true },
  });
}

/** Waits until a lock of this name is held (the request holding it is then in flight). */
async function heldLock(name: string) {
  await expect.poll(async () => (await t.sql(`select name from lease where name = ? and expires_at > now()`, [name])).length, { timeout: 5_000, interval: 10 }).toBe(1);
}

/**
 * The LMS and the service agree: every code the LMS holds in course 101 is one the service stores for an enforced
 * assessment (or the one set by hand on quiz 204), and every stored code is the one the LMS holds.
 */
async function expectConsistent() {
  const stored = new Map((await t.settings.listAssessmentSettings('101')).map((setting) => [setting.contentId, setting.accessCode]));
  const { quizzes, newQuizzes } = lmsCodes(t.bed.lms);
  for (const quiz of quizzes) {
    const expected = stored.get(`classicquiz_${quiz.id}`) ?? (quiz.id === 204 ? 'lab-2026' : null);
    expect({ quiz: quiz.id, code: quiz.accessCode }).toEqual({ quiz: quiz.id, code: expected });
  }
  for (const quiz of newQuizzes) {
    const expected = stored.get(`newquiz:101:${quiz.id}`) ?? null;
    expect({ quiz: quiz.id, code: quiz.require ? quiz.code : null }).toEqual({ quiz: quiz.id, code: expected });
  }
}

describe('a reset racing an instructor’s enable', () => {
  it('stops with ADMIN_COURSE_RESET_ASSESSMENT_BUSY when the enable is already in flight; the enable completes', async () => {
    t.bed.msw.use(http.put(`${LMS_URL}/api/v1/courses/101/quizzes/203`, async () => void (await delay(400))));
    const enabling = enable();
    await heldLock('assessment:101:classicquiz_203');
    const seq = lastSeq(t.bed.lms);
    const resetting = reset(t);
    const [enabled, refused] = await Promise.all([enabling, resetting]);
    expect(enabled.statusCode, enabled.body).toBe(200);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ error_code: 'ADMIN_COURSE_RESET_ASSESSMENT_BUSY', outcome: 'refused' });
    expect(codeWrites(t.bed.lms, seq).map((write) => write.path)).toEqual(['/api/v1/courses/101/quizzes/203']);
    expect(t.bed.lms.state.quizzes.get(203)!.accessCode).toMatch(/^[0-9a-z]{24}$/);
    await expectConsistent();
  });

  it('refuses the enable with COURSE_RESET_IN_PROGRESS while the reset is in flight; the reset completes', async () => {
    t.bed.msw.use(http.get(`${LMS_URL}/api/v1/courses/101/quizzes`, async () => void (await delay(400))));
    const resetting = reset(t);
    await heldLock('course-reset:101');
    const [done, refused] = await Promise.all([resetting, enable()]);
    expect(done.statusCode, done.body).toBe(200);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ success: false, error_code: 'COURSE_RESET_IN_PROGRESS' });
    expect(t.bed.lms.state.quizzes.get(203)!.accessCode).toBeNull();
    await expectConsistent();
  });

  it('ends consistently whichever comes first when both start at once', async () => {
    const seen = new Set<string>();
    for (let round = 0; round < 8; round += 1) {
      if (round > 0) {
        await t.reset();
        await t.grant();
        await storeGrant(t.bed, 2, APPLICATION_SCOPES);
        await t.connect('101');
        await enforceCourse(t);
      }
      const [resetResponse, enableResponse] = await Promise.all([reset(t), enable()]);
      const outcome = `${resetResponse.statusCode}:${resetResponse.json().error_code ?? ''} ${enableResponse.statusCode}:${enableResponse.json().error_code ?? ''}`;
      seen.add(outcome);
      expect([
        '200: 409:COURSE_RESET_IN_PROGRESS',
        '409:ADMIN_COURSE_RESET_ASSESSMENT_BUSY 200:',
        // Each saw the other's lock: both stop, nothing changes, either may be retried.
        '409:ADMIN_COURSE_RESET_ASSESSMENT_BUSY 409:COURSE_RESET_IN_PROGRESS',
        // The enable finished before the reset looked, or the reset finished before the enable looked.
        '200: 200:',
        '200: 404:ASSESSMENT_NOT_FOUND',
      ]).toContain(outcome);
      await expectConsistent();
      expect(await t.sql('select name from lease')).toEqual([]);
    }
    process.stderr.write(`[course-reset race] outcomes seen: ${[...seen].join(' | ')}\n`);
  });
});

describe('two resets of one course at once', () => {
  it('runs one and refuses the other with COURSE_RESET_IN_PROGRESS; each code is removed once', async () => {
    t.bed.msw.use(http.get(`${LMS_URL}/api/v1/courses/101/quizzes`, async () => void (await delay(200))));
    const seq = lastSeq(t.bed.lms);
    const responses = await Promise.all([reset(t), reset(t)]);
    expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 409]);
    expect(responses.find((response) => response.statusCode === 409)!.json().error_code).toBe('COURSE_RESET_IN_PROGRESS');
    expect(codeWrites(t.bed.lms, seq).map((write) => write.path)).toEqual([
      '/api/v1/courses/101/quizzes/201',
      '/api/v1/courses/101/quizzes/202',
      '/api/quiz/v1/courses/101/quizzes/301',
    ]);
    await expectConsistent();
    expect((await auditEntries(t)).map((entry) => entry.outcome).sort()).toEqual(['refused', 'started', 'success']);
  });
});

describe('a reset that loses its lock', () => {
  it('stops before its next step with 409 ADMIN_COURSE_RESET_VERIFY_REQUIRED, naming the codes it removed', async () => {
    const before = { lms: lmsCodes(t.bed.lms), local: await localState(t) };
    // While the first code is removed, the lease runs out (a stall longer than its lifetime would do the same).
    t.bed.msw.use(
      http.put(`${LMS_URL}/api/v1/courses/101/quizzes/201`, async () => {
        await t.sql(`update lease set expires_at = now() - interval '1 second' where name = 'course-reset:101'`);
        return undefined;
      }),
    );
    const seq = lastSeq(t.bed.lms);
    const response = await reset(t);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({
      error_code: 'ADMIN_COURSE_RESET_VERIFY_REQUIRED',
      outcome: 'verify-required',
      assessments: [{ id: 'classicquiz_201', title: 'Midterm exam', contentType: 'CLASSIC_QUIZ' }],
    });
    // Nothing more was written once the lock was gone: no further removal, no restore, no local change.
    expect(codeWrites(t.bed.lms, seq).map((write) => [write.path, write.write])).toEqual([['/api/v1/courses/101/quizzes/201', 'remove']]);
    expect(await localState(t)).toEqual(before.local);
    expect(lmsCodes(t.bed.lms).quizzes).toEqual(before.lms.quizzes.map((quiz) => (quiz.id === 201 ? { ...quiz, accessCode: null } : quiz)));
    expect((await auditEntries(t)).map((entry) => [entry.outcome, entry.details.toCheck])).toEqual([
      ['started', undefined],
      ['verify-required', ['classicquiz_201']],
    ]);
  });
});

describe('an exam-tool copy into a course being reset', () => {
  const TOOL: ExternalToolConfig = { id: 'calc', label: 'Calculator', url: 'https://calc.example.com/app', resourceRules: [], managedByAdmin: false, enabled: true };

  it('fails for that course when the reset advanced its generation after the copy read it', async () => {
    await t.settings.saveCourseDefaults('102', { courseId: '102', urlRules: [], externalTools: [TOOL], startPassword: null, exitPassword: null, setupCompleted: false });
    const source = sessionFor(t.app, instructor({ courseId: '102' })).cookie;
    // The copy reads 101's generation, then re-reads the teacher's courses from the LMS; the reset lands meanwhile.
    // Only the copy's read of the teacher's courses: the instructor's membership check reads the course list first.
    let resetDone: Promise<unknown> = Promise.resolve();
    let intercepted = false;
    t.bed.msw.use(
      http.get(`${LMS_URL}/api/v1/courses`, ({ request }) => {
        if (intercepted || new URL(request.url).searchParams.get('enrollment_type') !== 'teacher') return undefined;
        intercepted = true;
        resetDone = reset(t).then((response) => expect(response.statusCode, response.body).toBe(200));
        return resetDone.then(() => undefined);
      }),
    );
    const copy = await t.app.inject({
      method: 'POST',
      url: '/api/quizzes/course/102/exam-tools/calc/copy',
      headers: { cookie: source, 'sec-fetch-site': 'same-origin' },
      payload: { courseIds: ['101'] },
    });
    await resetDone;
    expect(copy.statusCode, copy.body).toBe(200);
    expect(copy.json()).toMatchObject({ copied: [], failed: [{ courseId: '101', error_code: 'COPY_TARGET_RESET' }] });
    expect((await t.settings.loadCourseDefaults('101'))?.externalTools).toEqual([]);
  });
});
