import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAdminBed, LMS_ROUTES, type AdminBed } from './harness.js';

/**
 * An API developer key without "Allow Include Parameters": Canvas drops the `include[]` of every token's request
 * (`lib/authentication_methods.rb#validate_scopes`), so the catalog's terms, teachers and student counts are missing.
 * The dashboard must say so and name the fix.
 */
let t: AdminBed;

beforeAll(async () => {
  t = await createAdminBed({ lms: { allowIncludes: false } });
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.reset();
  await t.grant();
});

describe('GET /api/admin/course-catalog when the LMS drops include parameters', () => {
  it('marks the page: the term was asked for and did not come', async () => {
    const response = await t.request('GET', '/api/admin/course-catalog');
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.lmsIncludesDropped).toBe(true);
    const course = body.courses.find((entry: { id: string }) => entry.id === '101');
    expect(course).toMatchObject({ termId: '4', termName: null, teachers: [], totalStudents: null });
    expect(t.bed.lms.calls.last(LMS_ROUTES.accountCourses)?.query).toMatchObject({ include: ['term', 'teachers', 'total_students'] });
  });
});
