import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAdminBed, LMS_ROUTES, type AdminBed } from './harness.js';

/** The account-wide routes: summary, the catch-up that runs the legacy backfill, terms and the live course catalog. */
let t: AdminBed;

beforeAll(async () => {
  t = await createAdminBed();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.reset();
  await t.grant();
});

async function get(path: string) {
  const response = await t.request('GET', path);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

async function catchUp() {
  const response = await t.request('POST', '/api/admin/catch-up');
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { success: true; backfilled: boolean };
}

async function enable(courseId: string, contentId: string, exitPassword = 'exit-1') {
  await t.settings.saveAssessmentSettings(courseId, {
    courseId,
    contentId,
    exbRequired: true,
    enabled: true,
    accessCode: 'code-1234',
    usesCourseDefaults: true,
    urlRules: [],
    externalToolIds: null,
    quizOnlyTools: [],
    startPasswordOverride: null,
    exitPasswordOverride: exitPassword,
    verificationStatus: 'verified',
    version: 0,
  });
}

describe('GET /api/admin/summary', () => {
  it('answers the account, the permission, the operational term and the counts', async () => {
    await t.connect('101', '102', '104');
    await t.settings.saveCourseDefaults('101', {
      courseId: '101',
      urlRules: [],
      externalTools: [],
      startPassword: null,
      exitPassword: 'x-1',
      setupCompleted: true,
    });
    await enable('101', 'classicquiz_201');
    await enable('101', 'classicquiz_202');
    await enable('102', 'classicquiz_205');
    // A course of another account and an assessment outside every connected course count for nobody here.
    await t.sql(`insert into admin_course (course_id, account_id, name, origin) values ('170', '4', 'Northfield', 'admin')`);
    await enable('170', 'classicquiz_999');
    await enable('103', 'classicquiz_207');
    // The account's one-time backfill ran before (the next test covers it): otherwise it would connect course 103 in
    // the background, and the counts would depend on whether it finished before the summary counted.
    await t.sql(`insert into admin_account (account_id, legacy_backfill_at) values ('1', now())`);

    const summary = await get('/api/admin/summary');
    expect(summary).toEqual({
      success: true,
      account: { id: '1', name: 'Example University' },
      permissions: { manage_courses: true },
      operationalTerm: { id: '4', name: 'Fall 2026', startAt: '2026-08-31T06:00:00.000Z', endAt: '2026-12-20T23:00:00.000Z' },
      summary: {
        courseCount: 3,
        enabledAssessmentCount: 3,
        configuredCourseCount: 1,
        toolPresetCount: 0,
        pendingPresetAssignmentCount: 0,
        failedPresetAssignmentCount: 0,
      },
    });
    // Reading it again costs no LMS call: account, permission and the default term are reused for a while.
    await t.idle();
    const calls = t.bed.lms.calls.count();
    await get('/api/admin/summary');
    await t.idle();
    expect(t.bed.lms.calls.count()).toBe(calls);
  });

  it('writes nothing: no backfill, no reconciliation, whoever sends the GET', async () => {
    await enable('101', 'classicquiz_201');
    t.bed.lms.calls.clear();
    expect((await get('/api/admin/summary')).summary.courseCount).toBe(0);
    await t.idle();
    expect(await t.sql('select course_id from admin_course')).toEqual([]);
    expect(await t.sql('select account_id from admin_account where legacy_backfill_at is not null')).toEqual([]);
    expect(t.bed.lms.calls.count(LMS_ROUTES.getCourse)).toBe(0);
  });

  it('POST /api/admin/catch-up backfills, once, the courses instructors already manage in this root account', async () => {
    await enable('101', 'classicquiz_201');
    await t.settings.saveCourseDefaults('104', { courseId: '104', urlRules: [], externalTools: [], startPassword: null, exitPassword: null, setupCompleted: false });
    await t.sql(
      `insert into assessment (course_id, content_id, content_type, lms_assessment_id, title) values ('102', 'classicquiz_205', 'CLASSIC_QUIZ', '205', 'Stoichiometry quiz')`,
    );
    // Another school's course: the LMS does not show it to this administrator, so it stays unconnected.
    await enable('170', 'classicquiz_999');
    await t.connect('105');

    expect(await catchUp()).toEqual({ success: true, backfilled: true });
    await t.idle();
    const rows = await t.sql<{ course_id: string; origin: string; enabled_assessment_count: number; assessment_count: number }>(
      'select course_id, origin, enabled_assessment_count, assessment_count from admin_course order by course_id',
    );
    expect(rows).toEqual([
      { course_id: '101', origin: 'legacy', enabled_assessment_count: 1, assessment_count: 0 },
      { course_id: '102', origin: 'legacy', enabled_assessment_count: 0, assessment_count: 1 },
      { course_id: '104', origin: 'legacy', enabled_assessment_count: 0, assessment_count: 0 },
      { course_id: '105', origin: 'admin', enabled_assessment_count: 0, assessment_count: 0 },
    ]);
    expect((await get('/api/admin/summary')).summary.courseCount).toBe(4);

    // One-time: a course instructors start managing later is connected by an administrator, not by the backfill.
    await enable('102', 'classicquiz_205');
    await t.sql("delete from admin_course where course_id = '104'");
    const calls = t.bed.lms.calls.count(LMS_ROUTES.getCourse);
    expect(await catchUp()).toEqual({ success: true, backfilled: true });
    await t.idle();
    expect(t.bed.lms.calls.count(LMS_ROUTES.getCourse)).toBe(calls);
    expect(await t.sql("select 1 from admin_course where course_id = '104'")).toEqual([]);
  });

  it('retries the backfill on a later catch-up when the LMS failed midway', async () => {
    await enable('101', 'classicquiz_201');
    // The client sends a failed read once more; both attempts fail.
    t.bed.lms.faults.next(LMS_ROUTES.getCourse, { status: 503, times: 2 });
    expect(await catchUp()).toEqual({ success: true, backfilled: false });
    await t.idle();
    expect(await t.sql('select course_id from admin_course')).toEqual([]);
    expect(await catchUp()).toEqual({ success: true, backfilled: true });
    await t.idle();
    expect(await t.sql('select course_id from admin_course')).toEqual([{ course_id: '101' }]);
  });
});

describe('terms', () => {
  it('lists the live terms with the active term as the default operational term', async () => {
    const body = await get('/api/admin/terms');
    expect(body.success).toBe(true);
    // In the LMS's order: start descending, a term without dates first.
    expect(body.terms.map((term: { id: string }) => term.id)).toEqual(['1', '4', '3', '2']);
    expect(body.terms[1]).toEqual({ id: '4', name: 'Fall 2026', startAt: '2026-08-31T06:00:00.000Z', endAt: '2026-12-20T23:00:00.000Z' });
    expect(body.terms.map((term: { id: string }) => term.id)).not.toContain('5');
    expect(body.operationalTerm.id).toBe('4');
  });

  it('saves a live term as the operational term and refuses any other with 400, changing nothing', async () => {
    const saved = await t.request('PUT', '/api/admin/terms/operational', { body: { termId: '3' } });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toEqual({ success: true, operationalTerm: expect.objectContaining({ id: '3', name: 'Spring 2026' }) });
    expect((await get('/api/admin/terms')).operationalTerm.id).toBe('3');
    expect((await get('/api/admin/summary')).operationalTerm.id).toBe('3');

    for (const termId of ['5', '99', 'abc', '']) {
      const refused = await t.request('PUT', '/api/admin/terms/operational', { body: { termId } });
      expect({ termId, status: refused.statusCode }).toEqual({ termId, status: 400 });
    }
    const missing = await t.request('PUT', '/api/admin/terms/operational', { body: {} });
    expect(missing.statusCode).toBe(400);
    expect((await get('/api/admin/terms')).operationalTerm.id).toBe('3');
  });
});

describe('GET /api/admin/course-catalog', () => {
  type CatalogCourse = { id: string; connected: boolean; published: boolean; termId: string; teachers?: string[]; totalStudents?: number };

  it('pages through the live account courses with connected flags', async () => {
    await t.connect('101', '106');
    const seen: CatalogCourse[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const body = await get(`/api/admin/course-catalog${cursor === null ? '' : `?cursor=${cursor}`}`);
      seen.push(...body.courses);
      // The LMS honoured the include parameters: no notice.
      expect(body).not.toHaveProperty('lmsIncludesDropped');
      cursor = body.nextCursor;
      pages += 1;
    } while (cursor !== null);
    // 63 published courses, 25 a page (ADMIN_PAGE_SIZE).
    expect(pages).toBe(3);
    expect(new Set(seen.map((course) => course.id)).size).toBe(seen.length);
    // Published courses of the root account and its sub-accounts; another school's never.
    expect(seen.every((course) => course.published)).toBe(true);
    expect(seen.map((course) => course.id)).not.toContain('170');
    expect(seen.map((course) => course.id)).not.toContain('105');
    expect(seen.filter((course) => course.connected).map((course) => course.id).sort()).toEqual(['101', '106']);
    expect(seen.find((course) => course.id === '101')).toMatchObject({ teachers: ['Ian Instructor'], totalStudents: 2, termName: 'Fall 2026' });
  });

  it('filters by term, search and unpublished, and leaves out enrollment data on request', async () => {
    const spring = await get('/api/admin/course-catalog?termId=3&includeUnpublished=true&withEnrollments=false');
    expect(spring.courses.length).toBe(25);
    const rest = await get(`/api/admin/course-catalog?termId=3&includeUnpublished=true&withEnrollments=false&cursor=${spring.nextCursor}`);
    expect(rest.courses.length).toBe(5);
    expect(rest.nextCursor).toBeNull();
    for (const course of [...spring.courses, ...rest.courses]) expect(course).toMatchObject({ termId: '3', termName: 'Spring 2026' });
    expect(spring.courses.every((course: CatalogCourse) => course.teachers === undefined && course.totalStudents === undefined)).toBe(true);
    const search = await get(`/api/admin/course-catalog?search=${encodeURIComponent('  physics  ')}&includeUnpublished=true`);
    expect(search.courses.map((course: CatalogCourse) => course.id)).toEqual(['105']);
    const last = t.bed.lms.calls.last(LMS_ROUTES.accountCourses);
    expect(last?.query).toMatchObject({ search_term: 'physics' });
  });

  it.each([['search=ab'], ['termId=x'], ['cursor=%%%'], ['cursor=WyJwMSIsIjwvc2NyaXB0PiJd']])('refuses %s with 400', async (query) => {
    const before = t.bed.lms.calls.count(LMS_ROUTES.accountCourses);
    const response = await t.request('GET', `/api/admin/course-catalog?${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().success).toBe(false);
    expect(t.bed.lms.calls.count(LMS_ROUTES.accountCourses)).toBe(before);
  });

  it('passes an LMS outage on as its refusal, never a 500', async () => {
    t.bed.lms.faults.next(LMS_ROUTES.accountCourses, { status: 503, times: 5 });
    const response = await t.request('GET', '/api/admin/course-catalog');
    expect(response.statusCode).toBe(502);
    expect(response.json()).toMatchObject({ success: false, error_code: 'LMS_UNAVAILABLE' });
  });
});
