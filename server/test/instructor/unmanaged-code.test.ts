import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { instructor, student } from '../support/sessions.js';
import { COURSE, createInstructorBed, LMS_ROUTES, type InstructorBed } from './harness.js';

/**
 * A course copy carries each quiz's access code into the new course, where this service does not enforce it: a refresh
 * marks such quizzes (never showing the code), and the teacher can clear the code in the LMS or adopt the quiz.
 */
const LAB = 'classicquiz_204'; // seeded with an access code set in the LMS
const MIDTERM = 'classicquiz_201';
const NEW_QUIZ = 'newquiz:101:301';
const CLEAR = (quiz: string) => `/api/quizzes/${COURSE}/${encodeURIComponent(quiz)}/exb/protection/clear-lms-code`;

describe('access codes this service does not manage', () => {
  let t: InstructorBed;

  beforeAll(async () => {
    t = await createInstructorBed();
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    await t.reset();
    await t.sql('delete from audit_entry');
    await t.grant();
  });

  const list = async (): Promise<Record<string, boolean>> => {
    const response = await t.request('GET', '/api/quizzes');
    expect(response.statusCode, response.body).toBe(200);
    return Object.fromEntries((response.json() as { id: string; unmanagedAccessCode: boolean }[]).map((item) => [item.id, item.unmanagedAccessCode]));
  };
  const refresh = async () => expect((await t.request('POST', `/api/quizzes/course/${COURSE}/refresh`)).statusCode).toBe(200);
  const newQuizSettings = () => t.bed.lms.state.newQuizSettings(301);
  const auditOf = () =>
    t.sql<{ action: string; outcome: string; content_id: string; details: { errorCode?: string } }>(
      "select action, outcome, content_id, details from audit_entry where action = 'enforcement.clear-lms-code' order by id",
    );

  it('a refresh marks classic and new quizzes that carry a code; quizzes without one are not marked; the code never leaves', async () => {
    Object.assign(newQuizSettings(), { require_student_access_code: true, student_access_code: 'copied-nq-code' });
    await refresh();
    const marks = await list();
    expect(marks[LAB]).toBe(true);
    expect(marks[NEW_QUIZ]).toBe(true);
    expect(marks[MIDTERM]).toBe(false);
    expect(marks['classicquiz_202']).toBe(false);
    expect(marks['newquiz:101:302']).toBe(false);
    const body = (await t.request('GET', '/api/quizzes')).body + (await t.request('GET', `/api/quizzes/${LAB}`)).body;
    expect(body).not.toContain('lab-2026');
    expect(body).not.toContain('copied-nq-code');
    expect((await t.request('GET', `/api/quizzes/${LAB}`)).json()).toMatchObject({ id: LAB, unmanagedAccessCode: true });

    // A code removed in the LMS by hand is unmarked by the next refresh.
    t.bed.lms.state.quizzes.get(204)!.accessCode = null;
    await refresh();
    expect((await list())[LAB]).toBe(false);
  });

  it('a new quiz whose read fails keeps its last mark, and the refresh still succeeds', async () => {
    Object.assign(newQuizSettings(), { require_student_access_code: true, student_access_code: 'copied-nq-code' });
    await refresh();
    expect((await list())[NEW_QUIZ]).toBe(true);
    Object.assign(newQuizSettings(), { require_student_access_code: false, student_access_code: null });
    t.bed.lms.faults.next('GET /api/quiz/v1/courses/:course_id/quizzes/:assignment_id', { status: 400 });
    await refresh();
    expect((await list())[NEW_QUIZ]).toBe(true);
    await refresh();
    expect((await list())[NEW_QUIZ]).toBe(false);
  });

  it('an enforced quiz is not marked, and adopting a marked quiz puts the service’s own code in the LMS', async () => {
    await refresh();
    await t.courseExitPassword();
    expect((await t.request('POST', `/api/quizzes/${COURSE}/201/exb/enable`)).statusCode).toBe(200);
    await refresh();
    expect((await list())[MIDTERM]).toBe(false);

    expect((await list())[LAB]).toBe(true);
    const adopted = await t.request('POST', `/api/quizzes/${COURSE}/204/exb/enable`);
    expect(adopted.statusCode, adopted.body).toBe(200);
    expect((await list())[LAB]).toBe(false);
    const code = (await t.settings.loadAssessmentSettings(COURSE, LAB))!.accessCode;
    expect(code).not.toBe('lab-2026');
    expect(t.bed.lms.state.quizzes.get(204)!.accessCode).toBe(code);
    await refresh();
    expect((await list())[LAB]).toBe(false);
  });

  it('clearing removes the code in the LMS first, then records it, audited pending-first', async () => {
    Object.assign(newQuizSettings(), { require_student_access_code: true, student_access_code: 'copied-nq-code' });
    await refresh();
    t.bed.lms.calls.clear();

    const classic = await t.request('POST', CLEAR('204'));
    expect(classic.statusCode, classic.body).toBe(200);
    expect(classic.json()).toMatchObject({ success: true });
    expect(t.bed.lms.calls.last(LMS_ROUTES.updateQuiz)!.body).toMatchObject({ quiz: { access_code: null } });
    expect(t.bed.lms.state.quizzes.get(204)!.accessCode).toBeNull();

    const newQuiz = await t.request('POST', CLEAR(NEW_QUIZ));
    expect(newQuiz.statusCode, newQuiz.body).toBe(200);
    expect(newQuizSettings()).toMatchObject({ require_student_access_code: false, student_access_code: null });

    const marks = await list();
    expect(marks[LAB]).toBe(false);
    expect(marks[NEW_QUIZ]).toBe(false);
    // Nothing is enforced by clearing: no setting was written.
    expect(await t.settings.loadAssessmentSettings(COURSE, LAB)).toBeNull();
    expect((await auditOf()).map(({ outcome, content_id }) => ({ outcome, content_id }))).toEqual([
      { outcome: 'success', content_id: LAB },
      { outcome: 'success', content_id: NEW_QUIZ },
    ]);
    expect(JSON.stringify(await auditOf())).not.toContain('lab-2026');
  });

  it('an LMS failure leaves the mark and the LMS as they were and answers the contract’s error', async () => {
    await refresh();
    t.bed.lms.faults.next(LMS_ROUTES.updateQuiz, { status: 400 });
    const refused = await t.request('POST', CLEAR('204'));
    expect(refused.statusCode).toBe(502);
    expect(refused.json()).toMatchObject({ success: false, error_code: 'LMS_REQUEST_REJECTED' });
    expect(t.bed.lms.state.quizzes.get(204)!.accessCode).toBe('lab-2026');
    expect((await list())[LAB]).toBe(true);

    t.bed.lms.faults.next(LMS_ROUTES.updateQuiz, { status: 503 });
    const unavailable = await t.request('POST', CLEAR('204'));
    expect(unavailable.statusCode).toBe(502);
    expect(unavailable.json()).toMatchObject({ success: false, error_code: 'LMS_UNAVAILABLE' });
    expect((await list())[LAB]).toBe(true);
    expect((await auditOf()).map(({ outcome }) => outcome)).toEqual(['failed', 'failed']);
  });

  it('an enforced quiz’s code is the service’s own and is not cleared', async () => {
    await refresh();
    await t.courseExitPassword();
    expect((await t.request('POST', `/api/quizzes/${COURSE}/201/exb/enable`)).statusCode).toBe(200);
    const code = t.bed.lms.state.quizzes.get(201)!.accessCode;
    t.bed.lms.calls.clear();
    const refused = await t.request('POST', CLEAR('201'));
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ success: false, error_code: 'LMS_ACCESS_CODE_MANAGED' });
    expect(t.bed.lms.calls.count(LMS_ROUTES.updateQuiz)).toBe(0);
    expect(t.bed.lms.state.quizzes.get(201)!.accessCode).toBe(code);
    expect((await auditOf()).map(({ outcome }) => outcome)).toEqual(['refused']);
  });

  it('another course’s teacher, a student and a cross-site request are refused without an LMS call', async () => {
    await refresh();
    t.bed.lms.calls.clear();
    const cases: [{ cookie?: string | null; site?: string }, number, string][] = [
      [{ cookie: t.sessionCookie(instructor({ courseId: '102' })) }, 403, 'COURSE_MISMATCH'],
      [{ cookie: t.sessionCookie(student()) }, 403, 'INSTRUCTOR_REQUIRED'],
      [{ cookie: null }, 401, 'UNAUTHORIZED'],
      [{ site: 'cross-site' }, 403, 'CROSS_SITE_REQUEST'],
    ];
    for (const [options, status, code] of cases) {
      const response = await t.request('POST', CLEAR('204'), options);
      expect(response.statusCode, code).toBe(status);
      expect(response.json()).toMatchObject({ success: false, error_code: code });
    }
    expect(t.bed.lms.calls.count(LMS_ROUTES.updateQuiz)).toBe(0);
    expect(t.bed.lms.state.quizzes.get(204)!.accessCode).toBe('lab-2026');
    expect((await list())[LAB]).toBe(true);
  });
});
