import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultAssessmentSettings } from '../../src/domain/settings/model.js';
import { instructor, student } from '../support/sessions.js';
import { COURSE, createInstructorBed, LMS_ROUTES, type InstructorBed } from '../instructor/harness.js';

/**
 * A copied quiz that carries a code this service does not manage can be adopted with the settings of the enforced
 * assessment of the same title in another course the teacher teaches: the teacher picks it among the candidates.
 */
const LAB = 'classicquiz_204'; // seeded in 101 with an access code set in the LMS, titled "Lab safety check"
const ORIGINAL = { courseId: '102', contentId: 'classicquiz_205' };
const FOREIGN = { courseId: '104', contentId: 'classicquiz_206' }; // a course the teacher does not teach
const RULES = [{ id: 'r1', match: 'exact' as const, value: 'https://example.org/periodic-table' }];

describe('adopting a copied quiz with its original’s settings', () => {
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
    for (const source of [ORIGINAL, FOREIGN]) {
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
    t.bed.lms.calls.clear();
  });

  const path = (procedure: string) => `/trpc/instructor.enforcement.${procedure}`;
  const candidates = async (cookie?: string) => {
    const input = encodeURIComponent(JSON.stringify({ courseId: COURSE, quizId: LAB }));
    return t.request('GET', `${path('adoptCandidates')}?input=${input}`, cookie === undefined ? {} : { cookie });
  };
  const adopt = (source: { courseId: string; contentId: string }, cookie?: string) =>
    t.request('POST', path('adoptOriginal'), {
      body: { courseId: COURSE, quizId: LAB, sourceCourseId: source.courseId, sourceContentId: source.contentId },
      ...(cookie === undefined ? {} : { cookie }),
    });

  it('offers only enforced assessments of the same title in courses the teacher teaches, and adopts with their policy', async () => {
    const listed = await candidates();
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json().result.data.candidates).toEqual([{ courseId: '102', courseName: expect.any(String), contentId: ORIGINAL.contentId, title: 'Lab safety check' }]);
    expect(listed.body).not.toContain('original-102');

    const adopted = await adopt(ORIGINAL);
    expect(adopted.statusCode, adopted.body).toBe(200);
    expect(adopted.body).not.toContain('exit-102');
    const stored = (await t.settings.loadAssessmentSettings(COURSE, LAB))!;
    expect(stored).toMatchObject({ exbRequired: true, enabled: true, usesCourseDefaults: false, exitPasswordOverride: 'exit-102', startPasswordOverride: 'start-orig' });
    expect(stored.urlRules).toEqual([expect.objectContaining({ match: 'exact', value: 'https://example.org/periodic-table' })]);
    // Its own code, not the copied one nor the original's, written to the LMS before it was stored.
    expect(stored.accessCode).not.toMatch(/^(lab-2026|original-102)$/);
    expect(t.bed.lms.state.quizzes.get(204)!.accessCode).toBe(stored.accessCode);
    const audit = await t.sql<{ outcome: string; content_id: string; details: Record<string, unknown> }>(
      "select outcome, content_id, details from audit_entry where action = 'enforcement.adopt-original'",
    );
    expect(audit).toEqual([{ outcome: 'success', content_id: LAB, details: { sourceCourseId: '102', sourceContentId: ORIGINAL.contentId } }]);
    expect((await t.request('GET', `/api/quizzes/${LAB}`)).json()).toMatchObject({ unmanagedAccessCode: false });
  });

  it('keeps those of the original’s selected course tools that this course’s catalog also holds', async () => {
    const saved = await t.request('PUT', `/api/quizzes/course/${COURSE}/defaults`, {
      body: { externalTools: [{ label: 'Calculator', url: 'https://calc.example.com/app' }] },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const toolId = (await t.settings.loadCourseDefaults(COURSE))!.externalTools[0]!.id;
    const original = (await t.settings.loadAssessmentSettings(ORIGINAL.courseId, ORIGINAL.contentId))!;
    await t.settings.saveAssessmentSettings(ORIGINAL.courseId, { ...original, externalToolIds: [toolId, 'only-in-102'] });
    expect((await adopt(ORIGINAL)).statusCode).toBe(200);
    expect((await t.settings.loadAssessmentSettings(COURSE, LAB))!.externalToolIds).toEqual([toolId]);
  });

  it('refuses an original in a course the teacher does not teach, or of another title, without an LMS write', async () => {
    for (const source of [FOREIGN, { courseId: '102', contentId: 'classicquiz_999' }, { courseId: '102', contentId: 'newquiz:101:301' }]) {
      const refused = await adopt(source);
      expect(refused.statusCode, refused.body).toBe(404);
    }
    expect(t.bed.lms.calls.count(LMS_ROUTES.updateQuiz)).toBe(0);
    expect(t.bed.lms.state.quizzes.get(204)!.accessCode).toBe('lab-2026');
    expect(await t.settings.loadAssessmentSettings(COURSE, LAB)).toBeNull();
  });

  it('an LMS refusal leaves the quiz unadopted and the copied code in place', async () => {
    t.bed.lms.faults.next(LMS_ROUTES.updateQuiz, { status: 400 });
    const refused = await adopt(ORIGINAL);
    expect(refused.statusCode).toBe(502);
    expect(t.bed.lms.state.quizzes.get(204)!.accessCode).toBe('lab-2026');
    expect(await t.settings.loadAssessmentSettings(COURSE, LAB)).toBeNull();
  });

  it('another course’s teacher and a student are refused', async () => {
    const other = t.sessionCookie(instructor({ courseId: '102' }));
    expect((await candidates(other)).statusCode).toBe(403);
    expect((await adopt(ORIGINAL, other)).statusCode).toBe(403);
    expect((await adopt(ORIGINAL, t.sessionCookie(student()))).statusCode).toBe(403);
    expect(t.bed.lms.calls.count(LMS_ROUTES.updateQuiz)).toBe(0);
    expect(await t.settings.loadAssessmentSettings(COURSE, LAB)).toBeNull();
  });
});
