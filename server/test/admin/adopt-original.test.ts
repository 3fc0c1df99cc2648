import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultAssessmentSettings } from '../../src/domain/settings/model.js';
import { admin, instructor, sessionFor, student } from '../support/sessions.js';
import { createAdminBed, LMS_ROUTES, type AdminBed, type AdminSession } from './harness.js';

/**
 * The root administrator adopts a quiz a course copy brought along with its access code, with the settings of an
 * enforced assessment of the same title in any connected course of the account (taught by them or not), through the
 * teacher's domain code (`exam-day/adopt-original.test.ts` walks the teacher's side); refused like every neighbouring
 * administrator procedure.
 */
const LAB = 'classicquiz_204'; // in 101, "Lab safety check", with the copied code 'lab-2026' in the LMS
const ORIGINAL = { courseId: '104', contentId: 'classicquiz_206' }; // connected, taught by someone else
const UNCONNECTED = { courseId: '102', contentId: 'classicquiz_205' }; // the account's, but not connected
const FOREIGN = { courseId: '170', contentId: 'classicquiz_270' }; // connected by another account
const RULES = [{ id: 'r1', match: 'exact' as const, value: 'https://example.org/periodic-table' }];
const TARGET = { courseId: '101', assessmentId: LAB };

let t: AdminBed;

beforeAll(async () => {
  t = await createAdminBed();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.reset();
  await t.grant();
  await t.connect('101', '104');
  expect((await t.request('POST', '/api/admin/courses/101/refresh')).statusCode).toBe(200);
  await t.sql(`insert into admin_course (course_id, account_id, name, origin) values ('170', '4', 'Northfield Chemistry', 'admin')`);
  for (const source of [ORIGINAL, UNCONNECTED, FOREIGN]) {
    await t.sql(
      "insert into assessment (course_id, content_id, content_type, lms_assessment_id, title, published) values (?, ?, 'CLASSIC_QUIZ', ?, 'Lab safety check', true)",
      [source.courseId, source.contentId, source.contentId.replace('classicquiz_', '')],
    );
    await t.settings.saveAssessmentSettings(source.courseId, {
      ...defaultAssessmentSettings(source.courseId, source.contentId),
      exbRequired: true,
      enabled: true,
      accessCode: `original-${source.courseId}`,
      usesCourseDefaults: false,
      urlRules: RULES,
      exitPasswordOverride: `exit-${source.courseId}`,
      startPasswordOverride: 'start-orig',
      version: 0,
    });
  }
  await t.sql('delete from audit_entry');
  t.bed.lms.calls.clear();
});

const candidates = (session: AdminSession | null = t.session, input: Record<string, unknown> = TARGET) =>
  t.request('GET', `/trpc/admin.assessments.adoptCandidates?input=${encodeURIComponent(JSON.stringify(input))}`, { session });
type AdoptOptions = { session?: AdminSession | null; actionToken?: string | null; target?: Record<string, unknown> };
const adopt = (source: { courseId: string; contentId: string }, options: AdoptOptions = {}) =>
  t.request('POST', '/trpc/admin.assessments.adoptOriginal', {
    body: { ...(options.target ?? TARGET), sourceCourseId: source.courseId, sourceContentId: source.contentId },
    ...(options.session === undefined ? {} : { session: options.session }),
    ...(options.actionToken === undefined ? {} : { actionToken: options.actionToken }),
  });
const errorCode = (response: { json: () => { error?: { data?: { errorCode?: string } } } }) => response.json().error?.data?.errorCode;

describe('the administrator’s adopt with the original’s settings', () => {
  it('offers the enforced assessments of the title in the account’s connected courses only, and adopts with their policy', async () => {
    const listed = await candidates();
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json().result.data.candidates).toEqual([{ courseId: '104', courseName: 'History 110', contentId: ORIGINAL.contentId, title: 'Lab safety check' }]);
    expect(listed.body).not.toContain('original-104');
    // Connected courses are read from the records, not from the administrator's enrollments.
    expect(t.bed.lms.calls.count()).toBe(0);

    const adopted = await adopt(ORIGINAL);
    expect(adopted.statusCode, adopted.body).toBe(200);
    expect(adopted.body).not.toContain('exit-104');
    expect(adopted.json().result.data).toMatchObject({ success: true, setting: { exbRequired: true, enabled: true, usesCourseDefaults: false } });
    const stored = (await t.settings.loadAssessmentSettings('101', LAB))!;
    expect(stored).toMatchObject({ exbRequired: true, enabled: true, usesCourseDefaults: false });
    expect(stored).toMatchObject({ exitPasswordOverride: 'exit-104', startPasswordOverride: 'start-orig' });
    expect(stored.urlRules).toEqual([expect.objectContaining({ match: 'exact', value: 'https://example.org/periodic-table' })]);
    // This service's own code, written to the LMS with the administrator's grant.
    expect(stored.accessCode).not.toMatch(/^(lab-2026|original-104)$/);
    expect(t.bed.lms.state.quizzes.get(204)!.accessCode).toBe(stored.accessCode);
    expect(t.bed.lms.calls.last(LMS_ROUTES.updateQuiz)!.userId).toBe(1);
    const audit = await t.sql<Record<string, unknown>>(
      "select outcome, actor_role, root_account_id, course_id, content_id, details from audit_entry where action = 'enforcement.adopt-original'",
    );
    expect(audit).toEqual([
      {
        outcome: 'success',
        actor_role: 'admin',
        root_account_id: '1',
        course_id: '101',
        content_id: LAB,
        details: { sourceCourseId: '104', sourceContentId: ORIGINAL.contentId },
      },
    ]);
    const course = await t.request('GET', `/trpc/admin.courses.get?input=${encodeURIComponent(JSON.stringify({ courseId: '101' }))}`);
    expect(course.json().result.data.course.assessments.find((a: { id: string }) => a.id === LAB)).toMatchObject({ unmanagedAccessCode: false, exbRequired: true });
  });

  it('refuses an original outside the account’s connected courses or of another title, without an LMS write', async () => {
    const refusals: [{ courseId: string; contentId: string }, number][] = [
      [UNCONNECTED, 404],
      [FOREIGN, 404],
      [{ courseId: '104', contentId: 'classicquiz_999' }, 404],
      // The copy itself is no original of its own.
      [{ courseId: '101', contentId: LAB }, 404],
      [{ courseId: '104', contentId: 'x'.repeat(3000) }, 400],
    ];
    for (const [source, status] of refusals) {
      const refused = await adopt(source);
      expect({ source: source.contentId.slice(0, 20), status: refused.statusCode }).toEqual({ source: source.contentId.slice(0, 20), status });
    }
    expect(t.bed.lms.calls.count(LMS_ROUTES.updateQuiz)).toBe(0);
    expect(t.bed.lms.state.quizzes.get(204)!.accessCode).toBe('lab-2026');
    expect(await t.settings.loadAssessmentSettings('101', LAB)).toBeNull();
  });

  it('an LMS refusal leaves the quiz unadopted and the copied code in place, audited as failed', async () => {
    t.bed.lms.faults.next(LMS_ROUTES.updateQuiz, { status: 400 });
    const refused = await adopt(ORIGINAL);
    expect(refused.statusCode).toBe(502);
    expect(t.bed.lms.state.quizzes.get(204)!.accessCode).toBe('lab-2026');
    expect(await t.settings.loadAssessmentSettings('101', LAB)).toBeNull();
    const audit = await t.sql<{ outcome: string }>("select outcome from audit_entry where action = 'enforcement.adopt-original'");
    expect(audit.map((entry) => entry.outcome)).not.toContain('success');
  });

  it('is refused without the action token, to a teacher, a student, a sub-account administrator, and for another account’s course', async () => {
    expect(errorCode(await adopt(ORIGINAL, { actionToken: null }))).toBe('INVALID_ACTION_TOKEN');
    const teacher = { cookie: sessionFor(t.app, instructor()).cookie, actionToken: 'irrelevant' };
    const learner = { cookie: sessionFor(t.app, student()).cookie, actionToken: 'irrelevant' };
    await t.grant(8);
    const subAccount = await t.sessionOf(admin({ lmsUserId: '8', ltiSubject: 'sub-user-8', ltiContextId: t.bed.lms.state.accounts.get(2)!.ltiContextId }));
    const refusals: [AdminSession, number, string][] = [
      [teacher, 403, 'ADMIN_REQUIRED'],
      [learner, 403, 'ADMIN_REQUIRED'],
      [subAccount, 403, 'ADMIN_NOT_CONFIRMED'],
    ];
    for (const [session, status, code] of refusals) {
      for (const refused of [await candidates(session), await adopt(ORIGINAL, { session })]) {
        expect({ status: refused.statusCode, code: errorCode(refused) }).toEqual({ status, code });
      }
    }
    // A quiz in a course another account connected is not this administrator's to list or adopt.
    const elsewhere = { courseId: '170', assessmentId: FOREIGN.contentId };
    for (const refused of [await candidates(t.session, elsewhere), await adopt(ORIGINAL, { target: elsewhere })]) {
      expect({ status: refused.statusCode, code: errorCode(refused) }).toEqual({ status: 404, code: 'ADMIN_COURSE_NOT_CONNECTED' });
    }
    expect(t.bed.lms.calls.count(LMS_ROUTES.updateQuiz)).toBe(0);
    expect(t.bed.lms.state.quizzes.get(204)!.accessCode).toBe('lab-2026');
    expect(await t.settings.loadAssessmentSettings('101', LAB)).toBeNull();
    expect(await t.sql("select * from audit_entry where action = 'enforcement.adopt-original' and outcome = 'success'")).toEqual([]);
  });
});
