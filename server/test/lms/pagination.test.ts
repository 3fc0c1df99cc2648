import { describe, expect, it } from 'vitest';
import { nextPageUrl, parseLinkHeader } from '../../src/lms/pagination.js';

const LMS = 'https://lms.example.test';

describe('parseLinkHeader', () => {
  it('reads the LMS format: comma-joined entries without spaces, in current/next/prev/first/last order', () => {
    const header = [
      `<${LMS}/api/v1/courses?enrollment_type=teacher&include%5B%5D=term&page=1&per_page=100>; rel="current"`,
      `<${LMS}/api/v1/courses?enrollment_type=teacher&include%5B%5D=term&page=2&per_page=100>; rel="next"`,
      `<${LMS}/api/v1/courses?enrollment_type=teacher&include%5B%5D=term&page=1&per_page=100>; rel="first"`,
      `<${LMS}/api/v1/courses?enrollment_type=teacher&include%5B%5D=term&page=3&per_page=100>; rel="last"`,
    ].join(',');
    const links = parseLinkHeader(header);
    expect([...links.keys()]).toEqual(['current', 'next', 'first', 'last']);
    expect(links.get('next')).toBe(`${LMS}/api/v1/courses?enrollment_type=teacher&include%5B%5D=term&page=2&per_page=100`);
  });

  it('keeps opaque bookmark pages and URLs containing commas intact', () => {
    const next = `${LMS}/api/v1/accounts/1/courses?page=bookmark:WyJhIiwxXQ,,&per_page=100`;
    const links = parseLinkHeader(`<${LMS}/api/v1/accounts/1/courses?page=first&per_page=100>; rel="current", <${next}>; rel="next"`);
    expect(links.get('next')).toBe(next);
    expect(links.has('last')).toBe(false);
  });

  it('tolerates spaces, unquoted rel and multiple rel values, and ignores entries without rel', () => {
    const links = parseLinkHeader(`<${LMS}/a?page=2> ; REL=next ,<${LMS}/a?page=9>; title="x", <${LMS}/a?page=1>; rel="first prev"`);
    expect(links.get('next')).toBe(`${LMS}/a?page=2`);
    expect(links.get('first')).toBe(`${LMS}/a?page=1`);
    expect(links.get('prev')).toBe(`${LMS}/a?page=1`);
    expect(links.size).toBe(3);
  });

  it('gives an empty map for a missing or malformed header', () => {
    expect(parseLinkHeader(null).size).toBe(0);
    expect(parseLinkHeader('').size).toBe(0);
    expect(parseLinkHeader('rel="next"').size).toBe(0);
  });
});

describe('nextPageUrl', () => {
  const current = new URL(`${LMS}/api/v1/courses/5/quizzes?per_page=100`);

  it('follows a next link on the same origin and path', () => {
    const next = nextPageUrl(`<${LMS}/api/v1/courses/5/quizzes?page=2&per_page=100>; rel="next"`, current);
    expect(next).toBeInstanceOf(URL);
    expect((next as URL).searchParams.get('page')).toBe('2');
  });

  it('ends the listing without a next link', () => {
    expect(nextPageUrl(`<${LMS}/api/v1/courses/5/quizzes?page=1&per_page=100>; rel="current"`, current)).toBeNull();
    expect(nextPageUrl(undefined, current)).toBeNull();
  });

  it.each([
    ['another origin', 'https://attacker.example/api/v1/courses/5/quizzes?page=2'],
    ['another scheme', 'http://lms.example.test/api/v1/courses/5/quizzes?page=2'],
    ['another path', `${LMS}/api/v1/users/self/profile?page=2`],
    ['credentials', 'https://user:pass@lms.example.test/api/v1/courses/5/quizzes?page=2'],
    ['a relative URL', '/api/v1/courses/5/quizzes?page=2'],
  ])('refuses a next link to %s, which would carry the bearer token elsewhere', (_what, link) => {
    expect(nextPageUrl(`<${link}>; rel="next"`, current)).toBe('unsafe');
  });
});
