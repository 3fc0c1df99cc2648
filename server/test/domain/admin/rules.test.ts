import { describe, expect, it } from 'vitest';
import { decodeCatalogCursor, encodeCatalogCursor } from '../../../src/domain/admin/catalog-service.js';
import { requestedCourseIds } from '../../../src/domain/admin/connect-service.js';
import { decodeCourseCursor, encodeCourseCursor } from '../../../src/domain/connected-courses/course-cursor.js';
import { courseFacts, inRootAccount } from '../../../src/domain/connected-courses/course-facts.js';
import { generateExitPassword } from '../../../src/domain/admin/exit-password.js';
import { activeTerm } from '../../../src/domain/admin/terms-service.js';
import { courseSchema } from '../../../src/lms/schemas.js';
import { exbPasswordSchema } from '@exb/shared/exb-policy.js';

const LMS = 'https://lms.example.edu';

describe('course list cursors', () => {
  it('round-trips the sort key and refuses anything else', () => {
    const key = { sortName: 'biology 101 – “advanced”', courseId: '101' };
    const cursor = encodeCourseCursor(key);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCourseCursor(cursor)).toEqual(key);
    const forge = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const bad of ['', '!!', 'a'.repeat(5000), forge(['c2', 'x', '1']), forge(['c1', 'x', '0101']), forge(['c1', 1, '1']), forge({ a: 1 }), 'bm90IGpzb24']) {
      expect(decodeCourseCursor(bad)).toBeNull();
    }
  });

  it('carries only page values the LMS could have given in catalog cursors', () => {
    expect(decodeCatalogCursor(encodeCatalogCursor('3'))).toBe('3');
    expect(decodeCatalogCursor(encodeCatalogCursor('bookmark:WzEsMl0'))).toBe('bookmark:WzEsMl0');
    expect(decodeCatalogCursor(encodeCatalogCursor('3&per_page=100'))).toBeNull();
    expect(decodeCatalogCursor('%%%')).toBeNull();
  });
});

describe('connect requests', () => {
  it('merges ids and text, refusing none or more than 50 with INVALID_ADMIN_COURSE_IDS', () => {
    expect(requestedCourseIds({ courseIds: [101, '102', ' 103 '], input: `${LMS}/courses/101 104` }, LMS)).toEqual({
      courseIds: ['101', '102', '103', '104'],
      unrecognized: [],
    });
    expect(() => requestedCourseIds({ courseIds: [1.5, Number.MAX_SAFE_INTEGER + 2] }, LMS)).toThrow(expect.objectContaining({ errorCode: 'INVALID_ADMIN_COURSE_IDS', status: 400 }));
    const fifty = Array.from({ length: 50 }, (_, index) => index + 1);
    expect(requestedCourseIds({ courseIds: fifty }, LMS).courseIds).toHaveLength(50);
    expect(() => requestedCourseIds({ courseIds: [...fifty, 51] }, LMS)).toThrow(expect.objectContaining({ errorCode: 'INVALID_ADMIN_COURSE_IDS' }));
  });
});

describe('course facts', () => {
  const course = (fields: Record<string, unknown>) => courseSchema.parse({ id: 5, name: 'Course', ...fields });

  it('takes the end of the course’s term before the course’s own end, and reads the concluded state', () => {
    const facts = courseFacts(course({ course_code: 'C1', enrollment_term_id: 4, end_at: '2026-01-01T00:00:00Z', term: { id: 4, name: 'Fall', end_at: '2026-12-20T23:00:00Z' }, workflow_state: 'completed' }));
    expect(facts).toEqual({ courseId: '5', name: 'Course', courseCode: 'C1', termId: '4', termName: 'Fall', concluded: true, endsAt: new Date('2026-12-20T23:00:00Z') });
    expect(courseFacts(course({ end_at: 'garbage' })).endsAt).toBeNull();
  });

  it('places a course in a root account by its root account, or its own account when it is the root', () => {
    expect(inRootAccount(course({ account_id: 3, root_account_id: 1 }), '1')).toBe(true);
    expect(inRootAccount(course({ account_id: 1, root_account_id: null }), '1')).toBe(true);
    expect(inRootAccount(course({ account_id: 1, root_account_id: 4 }), '1')).toBe(false);
    expect(inRootAccount(course({ account_id: 3, root_account_id: null }), '1')).toBe(false);
  });
});

describe('the active term', () => {
  const term = (id: string, startAt: string | null, endAt: string | null) => ({ id, name: id, startAt, endAt });
  const terms = [term('default', null, null), term('fall', '2026-08-31T00:00:00Z', '2026-12-20T00:00:00Z'), term('spring', '2026-01-12T00:00:00Z', '2026-05-29T00:00:00Z')];

  it('is the dated term containing now, before an undated catch-all', () => {
    expect(activeTerm(terms, new Date('2026-11-24T00:00:00Z'))?.id).toBe('fall');
    expect(activeTerm(terms, new Date('2026-03-01T00:00:00Z'))?.id).toBe('spring');
  });

  it('falls back to the catch-all, the term that started last, or the first', () => {
    expect(activeTerm(terms, new Date('2026-07-01T00:00:00Z'))?.id).toBe('default');
    expect(activeTerm(terms.slice(1), new Date('2026-07-01T00:00:00Z'))?.id).toBe('spring');
    expect(activeTerm(terms.slice(1), new Date('2020-01-01T00:00:00Z'))?.id).toBe('fall');
    expect(activeTerm([], new Date())).toBeNull();
  });
});

describe('rotated exit passwords', () => {
  it('are four groups of four unambiguous symbols, valid exam-browser passwords, and never repeat', () => {
    const seen = new Set<string>();
    for (let index = 0; index < 1000; index += 1) {
      const password = generateExitPassword();
      expect(password).toMatch(/^[0-9abcdefghjkmnpqrstvwxyz]{4}(-[0-9abcdefghjkmnpqrstvwxyz]{4}){3}$/);
      expect(exbPasswordSchema.safeParse(password).success).toBe(true);
      seen.add(password);
    }
    expect(seen.size).toBe(1000);
  });
});
