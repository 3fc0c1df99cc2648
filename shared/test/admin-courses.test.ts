import { describe, expect, it } from 'vitest';
import { courseIdOfEntry, normalizeAdminSearch, parseCourseIdInput } from '../src/admin-courses.js';

const LMS = 'https://lms.example.edu';

describe('administrator course input', () => {
  it('collapses whitespace, trims and cuts search text at 120 characters', () => {
    expect(normalizeAdminSearch('  Biology \t\n 101  ')).toBe('Biology 101');
    expect(normalizeAdminSearch(`${'a'.repeat(119)}    b`)).toBe('a'.repeat(119));
    expect(normalizeAdminSearch('x'.repeat(500))).toHaveLength(120);
    expect(normalizeAdminSearch('   ')).toBe('');
  });

  it.each([
    ['101', '101'],
    [`${LMS}/courses/101`, '101'],
    [`${LMS}/courses/101/quizzes/5?x=1#y`, '101'],
    [`${LMS}/courses/101/`, '101'],
    ['HTTPS://LMS.EXAMPLE.EDU/courses/7', '7'],
    ['0101', null],
    ['0', null],
    ['-3', null],
    ['1e3', null],
    ['99999999999999999999', null],
    [`${LMS}/courses/abc`, null],
    [`${LMS}/courses/0101`, null],
    [`${LMS}/accounts/1/courses/101`, null],
    ['https://evil.example/courses/101', null],
    ['javascript:alert(1)//courses/1', null],
  ])('reads %s as %s', (entry, expected) => {
    expect(courseIdOfEntry(entry, LMS)).toBe(expected);
  });

  it('splits on whitespace, commas and semicolons, keeps the first order and drops duplicates', () => {
    const parsed = parseCourseIdInput(` 103,101;;${LMS}/courses/102\n\t101 nope ,${LMS}/courses/103/quizzes `, LMS);
    expect(parsed).toEqual({ courseIds: ['103', '101', '102'], unrecognized: ['nope'] });
  });

  it('reports at most ten unrecognized entries, each cut short', () => {
    const parsed = parseCourseIdInput(Array.from({ length: 30 }, (_, index) => `${'z'.repeat(100)}${index}`).join(' '), LMS);
    expect(parsed.courseIds).toEqual([]);
    expect(parsed.unrecognized).toHaveLength(10);
    expect(parsed.unrecognized.every((entry) => entry.length === 80)).toBe(true);
  });
});
