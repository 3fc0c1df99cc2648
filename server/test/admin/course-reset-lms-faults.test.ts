import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { http } from 'msw';
import type { FaultSpec } from '../../../e2e/src/lms/faults.js';
import { VERIFICATION_REASONS } from '../../src/domain/enforcement/access-code-verification.js';
import { createAdminBed, LMS_URL, type AdminBed } from './harness.js';
import { auditEntries, codeWrites, enforceCourse, lastSeq, lmsCodes, localState, reset, ROUTES } from './reset-harness.js';

/**
 * The course reset against a failing LMS, each call in turn: the preflight's reads, the first and a later code
 * removal, and the compensation. After every failure the LMS holds byte for byte the access codes it held before, and
 * the database what it held before, or the answer names exactly the assessments whose codes could not be put back.
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
  await enforceCourse(t);
});

async function snapshot() {
  return { lms: lmsCodes(t.bed.lms), local: await localState(t) };
}

const MIDTERM = { id: 'classicquiz_201', title: 'Midterm exam', contentType: 'CLASSIC_QUIZ' };
const PRACTICE = { id: 'classicquiz_202', title: 'Weekly practice quiz', contentType: 'CLASSIC_QUIZ' };
const FINAL = { id: 'newquiz:101:301', title: 'Final exam (New Quizzes)', contentType: 'NEW_QUIZ' };

describe('a failure in the preflight changes nothing', () => {
  it.each<[string, string, FaultSpec, number, string]>([
    ['the course lookup is denied', ROUTES.getCourse, { kind: 'forbidden' }, 403, 'LMS_PERMISSION_DENIED'],
    ['the quiz list fails', ROUTES.listQuizzes, { status: 503, times: 2 }, 502, 'LMS_UNAVAILABLE'],
    ['the assignment list drops', ROUTES.listAssignments, { kind: 'network-error', times: 2 }, 502, 'LMS_UNAVAILABLE'],
    ['a classic quiz’s code capture is denied', ROUTES.getQuiz, { kind: 'forbidden' }, 403, 'LMS_PERMISSION_DENIED'],
    ['a new quiz’s code capture fails', ROUTES.getNewQuiz, { status: 500, times: 2 }, 502, 'LMS_UNAVAILABLE'],
    ['the authorization is no longer accepted', ROUTES.getNewQuiz, { kind: 'invalid-token', times: 2 }, 401, 'LMS_AUTHORIZATION_REQUIRED'],
  ])('when %s', async (_name, route, fault, status, code) => {
    const before = await snapshot();
    const seq = lastSeq(t.bed.lms);
    t.bed.lms.faults.next(route, fault);
    const response = await reset(t);
    expect(response.statusCode, response.body).toBe(status);
    expect(response.json()).toMatchObject({ success: false, error_code: code, outcome: 'refused' });
    expect(response.json().message).toContain('Nothing was deleted.');
    if (status === 401) expect(response.json().authUrl).toBe('/api/admin/oauth2authorize');
    expect(t.bed.lms.faults.pending()).toEqual([]);
    expect(codeWrites(t.bed.lms, seq)).toEqual([]);
    expect(await snapshot()).toEqual(before);
    expect((await auditEntries(t)).map((entry) => [entry.outcome, entry.details.errorCode])).toEqual([['refused', code]]);
    expect(await t.sql('select name from lease')).toEqual([]);
  });

  it('answers 401 LMS_AUTHORIZATION_REQUIRED when the administrator’s grant was revoked', async () => {
    const before = await snapshot();
    for (const record of t.bed.lms.state.tokens.values()) if (record.userId === 1) t.bed.lms.oauth.revoke(record);
    const response = await reset(t);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ error_code: 'LMS_AUTHORIZATION_REQUIRED', outcome: 'refused', authUrl: '/api/admin/oauth2authorize' });
    expect(await snapshot()).toEqual(before);
  });

  it('answers 409 ADMIN_COURSE_RESET_ASSESSMENT_IDENTITY_UNAVAILABLE when the LMS no longer identifies a new quiz', async () => {
    // The assignment is still listed, but no longer as a new quiz: there is no new-quiz id to remove its code through.
    const assignment = t.bed.lms.state.assignments.get(301)!;
    const newQuiz = assignment.newQuiz;
    assignment.newQuiz = undefined as unknown as typeof newQuiz;
    const before = await snapshot();
    const seq = lastSeq(t.bed.lms);
    const response = await reset(t);
    assignment.newQuiz = newQuiz;
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ error_code: 'ADMIN_COURSE_RESET_ASSESSMENT_IDENTITY_UNAVAILABLE', outcome: 'refused', assessments: [FINAL] });
    expect(codeWrites(t.bed.lms, seq)).toEqual([]);
    expect(await snapshot()).toEqual({ ...before, lms: lmsCodes(t.bed.lms) });
    expect(t.bed.lms.calls.count((call) => call.seq > seq && call.route === ROUTES.getQuiz)).toBe(0);
  });

  it('answers 409 ..._IDENTITY_UNAVAILABLE when the LMS answers a read for another quiz than asked', async () => {
    t.bed.lms.faults.next(ROUTES.getQuiz, { status: 200, body: { id: 999, title: 'Someone else', access_code: 'not-this-one' } });
    const before = await snapshot();
    const response = await reset(t);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ error_code: 'ADMIN_COURSE_RESET_ASSESSMENT_IDENTITY_UNAVAILABLE', assessments: [MIDTERM] });
    expect(await snapshot()).toEqual(before);
  });

  it('answers 409 ..._IDENTITY_UNAVAILABLE for an enforced record whose id names no LMS assessment, before any LMS call', async () => {
    await t.sql(`insert into assessment_setting (course_id, content_id, exb_required, enabled) values ('101', 'classicquiz_legacy', true, true)`);
    const calls = t.bed.lms.calls.count();
    const response = await reset(t);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({
      error_code: 'ADMIN_COURSE_RESET_ASSESSMENT_IDENTITY_UNAVAILABLE',
      assessments: [{ id: 'classicquiz_legacy', title: 'Quiz classicquiz_legacy', contentType: 'CLASSIC_QUIZ' }],
    });
    expect(t.bed.lms.calls.count()).toBe(calls);
  });

  it('answers 403 LMS_PERMISSION_DENIED when the LMS hides an enforced quiz’s code, so it could not be put back', async () => {
    t.bed.lms.faults.next(ROUTES.getQuiz, { status: 200, body: { id: 201, title: 'Midterm exam' } });
    const before = await snapshot();
    const response = await reset(t);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ error_code: 'LMS_PERMISSION_DENIED', outcome: 'refused', assessments: [MIDTERM] });
    expect(await snapshot()).toEqual(before);
  });
});

describe('a failure in the LMS phase is compensated in reverse order', () => {
  it('at the first removal (refused): nothing to undo, nothing changed', async () => {
    const before = await snapshot();
    const seq = lastSeq(t.bed.lms);
    t.bed.lms.faults.next(ROUTES.updateQuiz, { kind: 'forbidden' });
    const response = await reset(t);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ error_code: 'LMS_PERMISSION_DENIED', outcome: 'rolled-back' });
    expect(response.json().message).toContain('nothing was deleted');
    expect(codeWrites(t.bed.lms, seq)).toEqual([{ path: '/api/v1/courses/101/quizzes/201', write: 'remove', status: 403, fault: 'forbidden' }]);
    expect(await snapshot()).toEqual(before);
    expect((await auditEntries(t)).map((entry) => [entry.outcome, entry.details.failedStep])).toEqual([
      ['started', undefined],
      ['rolled-back', 'classicquiz_201'],
    ]);
  });

  it('at the first removal, applied but answered with an error: that code is put back', async () => {
    const before = await snapshot();
    const seq = lastSeq(t.bed.lms);
    t.bed.lms.faults.next(ROUTES.updateQuiz, { status: 500, applyFirst: true });
    const response = await reset(t);
    expect(response.statusCode).toBe(502);
    expect(response.json()).toMatchObject({ error_code: 'LMS_UNAVAILABLE', outcome: 'rolled-back' });
    expect(codeWrites(t.bed.lms, seq)).toEqual([
      { path: '/api/v1/courses/101/quizzes/201', write: 'remove', status: 500, fault: 'status 500 (after applying)' },
      { path: '/api/v1/courses/101/quizzes/201', write: 'set', status: 200, fault: null },
    ]);
    expect(await snapshot()).toEqual(before);
  });

  it('at a later removal (refused): the earlier removals are undone, last first', async () => {
    const before = await snapshot();
    const seq = lastSeq(t.bed.lms);
    t.bed.lms.faults.next(ROUTES.patchNewQuiz, { kind: 'forbidden' });
    const response = await reset(t);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ error_code: 'LMS_PERMISSION_DENIED', outcome: 'rolled-back' });
    expect(codeWrites(t.bed.lms, seq)).toEqual([
      { path: '/api/v1/courses/101/quizzes/201', write: 'remove', status: 200, fault: null },
      { path: '/api/v1/courses/101/quizzes/202', write: 'remove', status: 200, fault: null },
      { path: '/api/quiz/v1/courses/101/quizzes/301', write: 'remove', status: 403, fault: 'forbidden' },
      { path: '/api/v1/courses/101/quizzes/202', write: 'set', status: 200, fault: null },
      { path: '/api/v1/courses/101/quizzes/201', write: 'set', status: 200, fault: null },
    ]);
    expect(await snapshot()).toEqual(before);
  });

  it('at a later removal whose connection dropped after the LMS applied it: that one is put back too', async () => {
    const before = await snapshot();
    const seq = lastSeq(t.bed.lms);
    t.bed.lms.faults.next(ROUTES.patchNewQuiz, { kind: 'network-error', applyFirst: true });
    const response = await reset(t);
    expect(response.statusCode).toBe(502);
    expect(response.json()).toMatchObject({ error_code: 'LMS_UNAVAILABLE', outcome: 'rolled-back' });
    expect(codeWrites(t.bed.lms, seq).map((write) => [write.path.split('/').at(-1), write.write])).toEqual([
      ['201', 'remove'],
      ['202', 'remove'],
      ['301', 'remove'],
      ['301', 'set'],
      ['202', 'set'],
      ['201', 'set'],
    ]);
    expect(await snapshot()).toEqual(before);
  });

  it('when the authorization stops working at a later removal but restores still go through: 401, rolled back', async () => {
    const before = await snapshot();
    t.bed.lms.faults.next(ROUTES.patchNewQuiz, { kind: 'invalid-token', times: 2 });
    const response = await reset(t);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ error_code: 'LMS_AUTHORIZATION_REQUIRED', outcome: 'rolled-back', authUrl: '/api/admin/oauth2authorize' });
    expect(await snapshot()).toEqual(before);
  });
});

describe('a failure during compensation names what to check', () => {
  it('answers 409 ADMIN_COURSE_RESET_ROLLBACK_VERIFY_REQUIRED naming exactly the code that could not be put back', async () => {
    const before = await snapshot();
    const seq = lastSeq(t.bed.lms);
    // The new quiz's removal is refused; then both attempts to put quiz 202's code back fail, quiz 201's succeeds.
    t.bed.lms.faults.next(ROUTES.patchNewQuiz, { kind: 'forbidden' });
    let practiceWrites = 0;
    t.bed.msw.use(
      http.put(`${LMS_URL}/api/v1/courses/101/quizzes/202`, () => {
        practiceWrites += 1;
        if (practiceWrites === 2) t.bed.lms.faults.next(ROUTES.updateQuiz, { status: 503, times: 2 });
        return undefined;
      }),
    );
    const response = await reset(t);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual({
      success: false,
      error_code: 'ADMIN_COURSE_RESET_ROLLBACK_VERIFY_REQUIRED',
      message: expect.stringContaining('could not be put back'),
      outcome: 'verify-required',
      assessments: [PRACTICE],
    });
    expect(codeWrites(t.bed.lms, seq).map((write) => [write.path.split('/').at(-1), write.write, write.status])).toEqual([
      ['201', 'remove', 200],
      ['202', 'remove', 200],
      ['301', 'remove', 403],
      ['202', 'set', 503],
      ['202', 'set', 503],
      ['201', 'set', 200],
    ]);
    // Exactly what the answer says: quiz 202 lost its code in the LMS, everything else is as it was.
    const after = await snapshot();
    expect(after.local).toEqual(before.local);
    expect(after.lms.newQuizzes).toEqual(before.lms.newQuizzes);
    expect(after.lms.quizzes).toEqual(before.lms.quizzes.map((quiz) => (quiz.id === 202 ? { ...quiz, accessCode: null } : quiz)));
    const [started, entry] = await auditEntries(t);
    expect(started).toMatchObject({ outcome: 'started', details: { codesRemoved: 3 } });
    expect(entry).toMatchObject({ outcome: 'verify-required', details: { failedStep: 'newquiz:101:301', toCheck: ['classicquiz_202'] } });
    // Nobody's view says `verified`: the codes put back are to be checked again, the lost one is for a person to repair.
    expect(await t.sql(`select content_id, verification_status, verification_reason from assessment_setting where course_id = '101' and enabled order by 1`)).toEqual([
      { content_id: 'classicquiz_201', verification_status: 'unverified', verification_reason: VERIFICATION_REASONS.resetUndone },
      { content_id: 'classicquiz_202', verification_status: 'unverified', verification_reason: VERIFICATION_REASONS.resetNotRestored },
      { content_id: 'newquiz:101:301', verification_status: 'unverified', verification_reason: VERIFICATION_REASONS.resetUndone },
    ]);
    expect(await t.sql(`select course_id from course_reset_journal`)).toEqual([]);
  });

  it('names every removed code when the grant is revoked mid-reset, so nothing could be restored', async () => {
    const before = await snapshot();
    t.bed.msw.use(
      http.patch(`${LMS_URL}/api/quiz/v1/courses/101/quizzes/301`, () => {
        for (const record of t.bed.lms.state.tokens.values()) if (record.userId === 1) t.bed.lms.oauth.revoke(record);
        return undefined;
      }),
    );
    const response = await reset(t);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ error_code: 'ADMIN_COURSE_RESET_ROLLBACK_VERIFY_REQUIRED', assessments: [PRACTICE, MIDTERM] });
    const after = await snapshot();
    expect(after.local).toEqual(before.local);
    expect(after.lms.quizzes).toEqual(before.lms.quizzes.map((quiz) => (quiz.id === 201 || quiz.id === 202 ? { ...quiz, accessCode: null } : quiz)));
    expect(after.lms.newQuizzes).toEqual(before.lms.newQuizzes);
  });
});
