import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAdminBed, LMS_ROUTES, LMS_URL, type AdminBed } from './harness.js';

/** Connecting courses, and the connected-course list and detail, scoped to the administrator's root account. */
let t: AdminBed;

beforeAll(async () => {
  t = await createAdminBed();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.reset();
  await t.grant();
});

const CATALOG = Array.from({ length: 60 }, (_, index) => String(106 + index));

interface Row {
  id: string;
  name: string;
  courseCode: string;
  concluded: boolean;
  assessmentCount: number;
  enabledAssessmentCount: number;
  issueCount: number;
  lastRefreshedAt: string;
}

async function page(query: string) {
  const response = await t.request('GET', `/api/admin/courses?${query}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { courses: Row[]; nextCursor: string | null; includePast: boolean; operationalTerm: { id: string } | null };
}

async function everyPage(query: string): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | null = null;
  do {
    const result = await page(`${query}${cursor === null ? '' : `&cursor=${cursor}`}`);
    rows.push(...result.courses);
    cursor = result.nextCursor;
  } while (cursor !== null);
  return rows;
}

async function chooseTerm(termId: string) {
  const response = await t.request('PUT', '/api/admin/terms/operational', { body: { termId } });
  expect(response.statusCode, response.body).toBe(200);
}

describe('POST /api/admin/courses/connect', () => {
  it('connects ids, numeric strings and course URLs in any separators, answering each course on its own', async () => {
    const response = await t.request('POST', '/api/admin/courses/connect', {
      body: {
        courseIds: [101, '102'],
        input: `${LMS_URL}/courses/104/quizzes/206,105;\n\t not-a-course 170  https://evil.example/courses/106 101`,
      },
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ success: true, connectedCount: 4, unrecognized: ['not-a-course', 'https://evil.example/courses/106'] });
    expect(body.results).toEqual([
      { courseId: '101', success: true, course: { id: '101', name: 'Biology 101' } },
      { courseId: '102', success: true, course: { id: '102', name: 'Chemistry 201' } },
      { courseId: '104', success: true, course: { id: '104', name: 'History 110' } },
      { courseId: '105', success: true, course: { id: '105', name: 'Physics 150 (draft)' } },
      // Another school's course fails alone, in the same words as a course the LMS does not have.
      { courseId: '170', success: false, error: { error_code: 'ADMIN_COURSE_NOT_IN_ACCOUNT', message: expect.any(String) } },
    ]);
    const stored = await t.sql<{ course_id: string; account_id: string; origin: string }>('select course_id, account_id, origin from admin_course order by course_id');
    expect(stored).toEqual(['101', '102', '104', '105'].map((id) => ({ course_id: id, account_id: '1', origin: 'admin' })));
  });

  it('connecting again refreshes the record and answers success (a double click is harmless)', async () => {
    await t.connect('101');
    t.bed.lms.state.courses.get(101)!.name = 'Biology 101 (renamed)';
    await t.connect('101', '101');
    expect(await t.sql('select name from admin_course')).toEqual([{ name: 'Biology 101 (renamed)' }]);
  });

  it.each([
    ['no ids', {}],
    ['an empty list', { courseIds: [] }],
    ['only text that names no course', { input: 'abc, 0, 007, -5, 1.5, https://evil.example/courses/101' }],
    ['ids that are not canonical', { courseIds: ['01', 'x', -3, 1.5] }],
    ['more than 50 courses', { courseIds: Array.from({ length: 51 }, (_, index) => 1000 + index) }],
    ['more than 50 courses in text', { input: Array.from({ length: 51 }, (_, index) => `${LMS_URL}/courses/${1000 + index}`).join(' ') }],
  ])('refuses %s with 400 INVALID_ADMIN_COURSE_IDS before any LMS call', async (_name, body) => {
    const before = t.bed.lms.calls.count(LMS_ROUTES.getCourse);
    const response = await t.request('POST', '/api/admin/courses/connect', { body });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ success: false, error_code: 'INVALID_ADMIN_COURSE_IDS' });
    expect(t.bed.lms.calls.count(LMS_ROUTES.getCourse)).toBe(before);
  });

  it('accepts exactly 50 and reports an LMS failure for the course it hit', async () => {
    t.bed.lms.faults.next(LMS_ROUTES.getCourse, { status: 404, times: 1 });
    const ids = CATALOG.slice(0, 50);
    const response = await t.request('POST', '/api/admin/courses/connect', { body: { courseIds: ids } });
    expect(response.statusCode).toBe(200);
    expect(response.json().connectedCount).toBe(49);
    expect(response.json().results.filter((result: { success: boolean }) => !result.success)).toHaveLength(1);
  });

  it('refuses a body that is not JSON and a wrong shape with 4xx, never 500', async () => {
    const form = await t.app.inject({
      method: 'POST',
      url: '/api/admin/courses/connect',
      headers: { cookie: t.session.cookie, 'sec-fetch-site': 'same-origin', 'x-exb-action-token': t.session.actionToken, 'content-type': 'text/plain' },
      payload: '101',
    });
    expect(form.statusCode).toBe(415);
    const wrong = await t.request('POST', '/api/admin/courses/connect', { body: { courseIds: 'not a list' } });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error_code).toBe('INVALID_REQUEST');
  });
});

describe('GET /api/admin/courses', () => {
  beforeEach(async () => {
    await t.connect('101', '102', '103', '104', '105');
    await t.connect(...CATALOG.slice(0, 30));
    await t.connect(...CATALOG.slice(30));
    await chooseTerm('4');
  });

  it('pages through every current course in name order with opaque cursors, default page size 25', async () => {
    const first = await page('');
    expect(first.courses).toHaveLength(25);
    expect(first.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(first.operationalTerm).toMatchObject({ id: '4', name: 'Fall 2026' });
    expect(first.includePast).toBe(false);
    const rows = await everyPage('limit=7');
    const ids = rows.map((row) => row.id);
    expect(new Set(ids).size).toBe(ids.length);
    // Current: the Fall 2026 courses; Spring 2026 ended before Fall 2026 began, and 103 is concluded.
    const fall = CATALOG.filter((_, index) => index % 2 === 0);
    expect(new Set(ids)).toEqual(new Set(['101', '102', '104', '105', ...fall]));
    const names = rows.map((row) => row.name.toLowerCase());
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(rows.find((row) => row.id === '101')).toEqual({
      id: '101',
      name: 'Biology 101',
      courseCode: 'BIO101',
      assessmentCount: 0,
      enabledAssessmentCount: 0,
      issueCount: 0,
      concluded: false,
      lastRefreshedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      readFromLms: false,
    });
  });

  it('includes past courses on request, marked concluded', async () => {
    const rows = await everyPage('includePast=true&limit=50');
    expect(rows).toHaveLength(65);
    expect(rows.find((row) => row.id === '103')?.concluded).toBe(true);
    expect(rows.find((row) => row.id === '107')?.concluded).toBe(true);
    expect(rows.find((row) => row.id === '106')?.concluded).toBe(false);
  });

  it('searches names, codes and ids with whitespace collapsed, wildcards taken literally, text cut at 120', async () => {
    expect((await page(`search=${encodeURIComponent('   algebra    A  ')}`)).courses.map((row) => row.name)).toEqual(['Algebra A']);
    expect((await page('search=bio101')).courses.map((row) => row.id)).toEqual(['101']);
    expect((await page('search=104')).courses.map((row) => row.id)).toEqual(['104']);
    expect((await page('search=%25')).courses).toEqual([]);
    expect((await page('search=_')).courses).toEqual([]);
    const long = `Algebra A${' '.repeat(5)}${'x'.repeat(200)}`;
    expect((await page(`search=${encodeURIComponent(long)}`)).courses).toEqual([]);
  });

  it.each([['limit=0'], ['limit=51'], ['limit=abc'], ['limit=-1'], ['cursor=not-a-cursor!'], ['cursor=eyJhIjoxfQ']])(
    'refuses %s with 400',
    async (query) => {
      const response = await t.request('GET', `/api/admin/courses?${query}`);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error_code: 'INVALID_REQUEST' });
    },
  );

  it('stays complete and free of duplicates while courses are connected between pages', async () => {
    await t.sql("delete from admin_course where course_id::int >= 106 and course_id::int % 2 = 0");
    const initial = new Set((await everyPage('includePast=true&limit=50')).map((row) => row.id));
    const seen: string[] = [];
    let cursor: string | null = null;
    const late = CATALOG.filter((id) => Number(id) % 2 === 0);
    let connecting: Promise<unknown> = Promise.resolve();
    for (let round = 0; ; round += 1) {
      const [result]: [Awaited<ReturnType<typeof page>>, unknown] = await Promise.all([
        page(`includePast=true&limit=4${cursor === null ? '' : `&cursor=${cursor}`}`),
        // Each round connects more courses in parallel with the page read, before and after the cursor alike.
        (connecting = t.request('POST', '/api/admin/courses/connect', { body: { courseIds: late.slice(round * 3, round * 3 + 3) } })),
      ]);
      seen.push(...result.courses.map((row) => row.id));
      cursor = result.nextCursor;
      if (cursor === null) break;
    }
    await connecting;
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of initial) expect(seen).toContain(id);
  });

  it('lists only the administrator’s own root account', async () => {
    await t.sql(
      `insert into admin_course (course_id, account_id, name, course_code, origin) values ('170', '4', 'Northfield Orientation', 'NF', 'admin')`,
    );
    const rows = await everyPage('includePast=true&limit=50');
    expect(rows.map((row) => row.id)).not.toContain('170');
    expect((await page('search=northfield&includePast=true')).courses).toEqual([]);
  });
});

describe('GET /api/admin/courses/:courseId', () => {
  it('answers the course detail of a connected course', async () => {
    await t.connect('101');
    await t.settings.saveCourseDefaults('101', {
      courseId: '101',
      urlRules: [],
      externalTools: [
        {
          id: 'dictionary',
          label: 'Dictionary',
          url: 'https://dictionary.example.org/start',
          resourceRules: [],
          managedByAdmin: true,
          presetId: '6f1c8a52-3d0e-4b7a-9d52-0d9b1f3e2a10',
          enabled: true,
        },
      ],
      startPassword: null,
      exitPassword: 'course-exit',
      setupCompleted: true,
    });
    expect((await t.request('GET', '/api/admin/courses/101')).json().course.readFromLms).toBe(false);
    const refreshed = await t.request('POST', '/api/admin/courses/101/refresh');
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const response = await t.request('GET', '/api/admin/courses/101');
    expect(response.statusCode).toBe(200);
    const { course } = response.json();
    expect(course).toMatchObject({
      id: '101',
      name: 'Biology 101',
      readFromLms: true,
      setupCompleted: true,
      hasCourseDefaults: true,
      adminToolPresetIds: ['6f1c8a52-3d0e-4b7a-9d52-0d9b1f3e2a10'],
    });
    expect(course.assessments).toHaveLength(6);
    expect(course.assessments.find((view: { id: string }) => view.id === 'newquiz:101:301')).toEqual({
      id: 'newquiz:101:301',
      courseId: '101',
      contentType: 'NEW_QUIZ',
      title: 'Final exam (New Quizzes)',
      published: true,
      exbRequired: false,
      enabled: false,
      hasAccessCode: false,
      hasStartPassword: false,
      hasQuitPassword: true,
      usesCourseDefaults: true,
      verificationStatus: 'unverified',
      verificationReason: null,
      updatedAt: null,
      discovered: true,
      unmanagedAccessCode: false,
    });
    // The seed's Lab safety check has an access code set in the LMS that nobody enforces here; only whether is shown.
    expect(course.assessments.find((view: { id: string }) => view.id === 'classicquiz_204')).toMatchObject({ unmanagedAccessCode: true });
    expect(response.body).not.toContain('lab-2026');
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it.each([['999'], ['abc'], ['170'], ['0101']])('answers course %s with 404 ADMIN_COURSE_NOT_CONNECTED', async (courseId) => {
    await t.sql(`insert into admin_course (course_id, account_id, name, origin) values ('170', '4', 'Northfield Orientation', 'admin')`);
    const response = await t.request('GET', `/api/admin/courses/${courseId}`);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ success: false, error_code: 'ADMIN_COURSE_NOT_CONNECTED' });
  });
});
