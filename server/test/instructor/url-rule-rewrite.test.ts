import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ExbUrlRule } from '@exb/shared/exb-policy.js';
import { instructor, student } from '../support/sessions.js';
import { COURSE, createInstructorBed, type InstructorBed } from './harness.js';

// A URL rule stored before today's save-time checks is marked where verification problems show, and one click
// rewrites it to its faithful form: re-validated, written under the lock of what it changes, and entered in the trail.

const CLASSIC = 'classicquiz_201';
const PLUS = 'https://tool.example.com/search?q=a+b';
const PLUS_FAITHFUL = 'https://tool.example.com/search?q=a%20b';
const WHOLE_HOST = 'https://tool.example.com/?lang=en';
const FINE = 'https://tool.example.com:8443/page';

const exact = (value: string): ExbUrlRule => ({ match: 'exact', value });

interface EntryRow {
  action: string;
  outcome: string;
  actor_lms_user_id: string;
  course_id: string;
  content_id: string | null;
  details: Record<string, unknown>;
}

describe('stored URL rules the exam browser reads differently (instructor routes)', () => {
  let t: InstructorBed;

  beforeAll(async () => {
    t = await createInstructorBed();
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    await t.reset();
    await t.sql('delete from audit_entry');
    await t.grant();
    await t.discover();
  });

  const entries = () => t.sql<EntryRow>(`select * from audit_entry where action = 'url-rule.rewrite' order by id`);

  /** Stores rules as a save before the refusals did: straight into the table, past today's validator. */
  async function seedCourseRules(rules: ExbUrlRule[]) {
    await t.settings.saveCourseDefaults(COURSE, {
      courseId: COURSE,
      urlRules: rules,
      externalTools: [],
      startPassword: null,
      exitPassword: 'course-exit-1',
      setupCompleted: true,
    });
  }
  async function seedAssessmentRules(rules: ExbUrlRule[]) {
    const current = await t.settings.loadAssessmentSettings(COURSE, CLASSIC);
    await t.settings.saveAssessmentSettings(COURSE, {
      ...(current ?? {
        courseId: COURSE,
        contentId: CLASSIC,
        exbRequired: false,
        enabled: false,
        accessCode: null,
        externalToolIds: null,
        quizOnlyTools: [],
        startPasswordOverride: null,
        exitPasswordOverride: null,
        verificationStatus: 'unverified',
        version: 0,
        updatedAt: null,
      }),
      usesCourseDefaults: false,
      urlRules: rules,
    } as Parameters<InstructorBed['settings']['saveAssessmentSettings']>[1]);
  }

  function trpc(kind: 'query' | 'mutation', path: string, input: unknown, cookie: string = t.cookie) {
    if (kind === 'query') {
      return t.app.inject({ method: 'GET', url: `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, headers: { cookie } });
    }
    return t.app.inject({
      method: 'POST',
      url: `/trpc/${path}`,
      headers: { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
      payload: JSON.stringify(input),
    });
  }
  const rewrite = (input: Record<string, unknown>, cookie?: string) => trpc('mutation', 'instructor.urlRules.rewrite', { courseId: COURSE, ...input }, cookie);
  const readings = async (cookie?: string) => {
    const response = await trpc('query', 'instructor.urlRules.readings', undefined, cookie);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { result: { data: { course: { value: string; faithful: string | null; source: string; reason: { messageKey: string } }[]; assessments: Record<string, unknown[]> } } }).result.data;
  };
  const errorOf = (response: { json(): unknown }) => (response.json() as { error: { data: { errorCode: string; httpStatus: number; messageKey?: string } } }).error.data;

  it('marks the stored rules the editor refuses today, with why and the faithful form, and leaves the others alone', async () => {
    await seedCourseRules([exact(FINE), exact(PLUS), exact(WHOLE_HOST)]);
    await seedAssessmentRules([exact(PLUS)]);
    const data = await readings();
    expect(data.course).toEqual([
      expect.objectContaining({ source: 'course', value: PLUS, faithful: PLUS_FAITHFUL, reason: expect.objectContaining({ messageKey: 'rule.neverMatches' }) }),
      expect.objectContaining({ source: 'course', value: WHOLE_HOST, faithful: null, reason: expect.objectContaining({ messageKey: 'rule.wholeHost' }) }),
    ]);
    expect(data.assessments[CLASSIC]).toEqual([expect.objectContaining({ source: 'assessment', value: PLUS, faithful: PLUS_FAITHFUL })]);
  });

  it('the course’s instructor rewrites a course rule in one click: stored, marked no more, entered in the trail', async () => {
    await seedCourseRules([exact(FINE), exact(PLUS)]);
    const response = await rewrite({ value: PLUS });
    expect(response.statusCode, response.body).toBe(200);
    expect((response.json() as { result: { data: unknown } }).result.data).toEqual({ success: true, rewritten: true, value: PLUS_FAITHFUL });
    expect((await t.settings.loadCourseDefaults(COURSE))?.urlRules.map((rule) => rule.value)).toEqual([FINE, PLUS_FAITHFUL]);
    expect((await readings()).course).toEqual([]);
    expect(await entries()).toEqual([
      expect.objectContaining({ outcome: 'success', actor_lms_user_id: '2', course_id: COURSE, content_id: null, details: { source: 'course', fields: ['urlRules'] } }),
    ]);
  });

  it('rewrites an assessment’s own rule, named by its quiz id', async () => {
    await seedAssessmentRules([exact(PLUS)]);
    const response = await rewrite({ quizId: '201', value: PLUS });
    expect(response.statusCode, response.body).toBe(200);
    expect((await t.settings.loadAssessmentSettings(COURSE, CLASSIC))?.urlRules).toEqual([exact(PLUS_FAITHFUL)]);
    expect(await entries()).toEqual([expect.objectContaining({ outcome: 'success', content_id: CLASSIC, details: { source: 'assessment', fields: ['urlRules'] } })]);
  });

  it('refuses a rule without a faithful form (the teacher has to change it), changing nothing, and enters the refusal', async () => {
    await seedCourseRules([exact(WHOLE_HOST)]);
    const response = await rewrite({ value: WHOLE_HOST });
    expect(response.statusCode).toBe(400);
    expect(errorOf(response)).toMatchObject({ errorCode: 'INVALID_EXB_URL_POLICY', messageKey: 'rule.noFaithfulForm' });
    expect((await t.settings.loadCourseDefaults(COURSE))?.urlRules).toEqual([exact(WHOLE_HOST)]);
    expect(await entries()).toEqual([expect.objectContaining({ outcome: 'refused', details: { source: 'course', errorCode: 'INVALID_EXB_URL_POLICY' } })]);
  });

  it('refuses a rule the exam browser already reads as meant', async () => {
    await seedCourseRules([exact(FINE)]);
    const response = await rewrite({ value: FINE });
    expect(response.statusCode).toBe(400);
    expect(errorOf(response)).toMatchObject({ errorCode: 'INVALID_EXB_URL_POLICY', messageKey: 'rule.readAsPromised' });
  });

  it('a rule that is not stored is NOT_FOUND, without an entry', async () => {
    await seedCourseRules([exact(FINE)]);
    const response = await rewrite({ value: 'https://tool.example.com/other?q=x+y' });
    expect(errorOf(response)).toMatchObject({ errorCode: 'NOT_FOUND', httpStatus: 404 });
    expect(await entries()).toEqual([]);
  });

  it('a double click rewrites once and leaves one entry: the second click is refused by the lock or finds it done', async () => {
    await seedCourseRules([exact(PLUS)]);
    const [first, second] = await Promise.all([rewrite({ value: PLUS }), rewrite({ value: PLUS })]);
    const statuses = [first.statusCode, second.statusCode].sort();
    expect(statuses[0]).toBe(200);
    expect([200, 409]).toContain(statuses[1]);
    const again = await rewrite({ value: PLUS });
    expect((again.json() as { result: { data: unknown } }).result.data).toEqual({ success: true, rewritten: false, value: PLUS_FAITHFUL });
    expect((await t.settings.loadCourseDefaults(COURSE))?.urlRules).toEqual([exact(PLUS_FAITHFUL)]);
    expect(await entries()).toHaveLength(1);
  });

  it('another course’s teacher cannot rewrite this course’s rule, nor read its marks', async () => {
    await seedCourseRules([exact(PLUS)]);
    await t.grant(7);
    const other = t.sessionCookie(instructor({ courseId: '104', lmsUserId: '7' }));
    const response = await rewrite({ value: PLUS }, other);
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(response.statusCode).toBeLessThan(500);
    expect((await readings(other)).course).toEqual([]);
    expect((await t.settings.loadCourseDefaults(COURSE))?.urlRules).toEqual([exact(PLUS)]);
    expect(await entries()).toEqual([]);
  });

  it('a student cannot rewrite a rule', async () => {
    await seedCourseRules([exact(PLUS)]);
    const response = await rewrite({ value: PLUS }, t.sessionCookie(student()));
    expect(response.statusCode).toBe(403);
    expect(errorOf(response)).toMatchObject({ errorCode: 'INSTRUCTOR_REQUIRED' });
    expect((await t.settings.loadCourseDefaults(COURSE))?.urlRules).toEqual([exact(PLUS)]);
    expect(await entries()).toEqual([]);
  });
});
