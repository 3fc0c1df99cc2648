import { describe, expect, it } from 'vitest';
import { parseLinkHeader } from '../../src/lms/index.js';
import { api, tokenFor, useInProcessLms } from './helpers.js';

const { lms } = useInProcessLms();

function addCourses(count: number): void {
  for (let index = 1; index <= count; index += 1) {
    const id = 1000 + index;
    lms.state.addCourse({
      id,
      name: `Sandbox ${String(index).padStart(3, '0')}`,
      courseCode: `SBX${index}`,
      accountId: 3,
      termId: 4,
      published: index % 5 !== 0,
    });
    lms.state.enrollments.set(5000 + index, { id: 5000 + index, userId: 2, courseId: id, type: 'teacher', state: 'active' });
  }
}

describe('Link header pagination', () => {
  it('pages by 10 by default, with current, next, first and last links in that order', async () => {
    addCourses(22);
    const token = tokenFor(lms, 'instructor');
    const response = await api(lms, token, '/api/v1/courses?enrollment_type=teacher&include[]=term');
    const courses = (await response.json()) as unknown[];
    expect(courses).toHaveLength(10);
    const header = response.headers.get('link')!;
    expect(header).toBe(
      [
        '<http://127.0.0.1:3001/api/v1/courses?enrollment_type=teacher&include%5B%5D=term&page=1&per_page=10>; rel="current"',
        '<http://127.0.0.1:3001/api/v1/courses?enrollment_type=teacher&include%5B%5D=term&page=2&per_page=10>; rel="next"',
        '<http://127.0.0.1:3001/api/v1/courses?enrollment_type=teacher&include%5B%5D=term&page=1&per_page=10>; rel="first"',
        '<http://127.0.0.1:3001/api/v1/courses?enrollment_type=teacher&include%5B%5D=term&page=3&per_page=10>; rel="last"',
      ].join(','),
    );
  });

  it('follows next links to the end, where there is prev but no next', async () => {
    addCourses(22);
    const token = tokenFor(lms, 'instructor');
    const seen: number[] = [];
    let next: string | undefined = `${lms.baseUrl}/api/v1/courses?per_page=7`;
    let last: Response | undefined;
    while (next) {
      last = await fetch(next, { headers: { authorization: `Bearer ${token}` } });
      seen.push(...((await last.json()) as Array<{ id: number }>).map((c) => c.id));
      next = parseLinkHeader(last.headers.get('link')).next;
    }
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
    const links = parseLinkHeader(last!.headers.get('link'));
    expect(links.prev).toContain('page=3&per_page=7');
    expect(links.current).toContain('page=4&per_page=7');
  });

  it('clamps per_page to 1..100 and answers an empty page past the end', async () => {
    addCourses(120);
    const token = tokenFor(lms, 'instructor');
    const big = await api(lms, token, '/api/v1/courses?per_page=500');
    expect(((await big.json()) as unknown[]).length).toBe(100);
    expect(big.headers.get('link')).toContain('per_page=100>');
    const zero = await api(lms, token, '/api/v1/courses?per_page=0');
    expect(((await zero.json()) as unknown[]).length).toBe(10);
    const past = await api(lms, token, '/api/v1/courses?page=99');
    expect(past.status).toBe(200);
    expect(await past.json()).toEqual([]);
  });

  it('drops the access token from link URLs', async () => {
    addCourses(12);
    const token = tokenFor(lms, 'instructor');
    const response = await api(lms, undefined, `/api/v1/courses?access_token=${encodeURIComponent(token)}&per_page=5`);
    expect(response.headers.get('link')).not.toContain('access_token');
  });

  it('omits rel="last" for the account course search, and pages it', async () => {
    addCourses(30);
    const token = tokenFor(lms, 'administrator');
    const response = await api(lms, token, '/api/v1/accounts/1/courses?per_page=10');
    const links = parseLinkHeader(response.headers.get('link'));
    expect(Object.keys(links)).toEqual(['current', 'next', 'first']);
    expect(((await response.json()) as unknown[]).length).toBe(10);
  });

  it('searches account courses by name, course code and id, and filters by term and published state', async () => {
    addCourses(10);
    const token = tokenFor(lms, 'administrator');
    const search = async (query: string) =>
      ((await (await api(lms, token, `/api/v1/accounts/1/courses?per_page=100&${query}`)).json()) as Array<{ id: number }>).map((c) => c.id);
    expect(await search('search_term=biology')).toEqual([103, 101]);
    expect(await search('search_term=CHEM201')).toEqual([102]);
    expect(await search('search_term=104')).toEqual([104]);
    expect(await search('search_term=Sandbox&published=false')).toEqual([1005, 1010]);
    expect((await search('enrollment_term_id=2'))).toEqual([103]);
    const short = await api(lms, token, '/api/v1/accounts/1/courses?search_term=bi');
    expect(short.status).toBe(400);
    expect(await short.json()).toEqual({ errors: [{ field: 'search_term', code: 'invalid', message: '3 or more characters is required' }] });
    // A sub-account administrator sees only their sub-account's courses.
    const sub = tokenFor(lms, 'subaccount-admin');
    const subCourses = (await (await api(lms, sub, '/api/v1/accounts/2/courses?per_page=100')).json()) as Array<{ id: number }>;
    expect(subCourses.map((c) => c.id).sort()).toEqual([101, 102, 103, 105]);
    expect((await api(lms, sub, '/api/v1/accounts/1/courses')).status).toBe(403);
  });

  it('wraps terms and orders them by start date, latest first', async () => {
    const token = tokenFor(lms, 'administrator');
    const response = await api(lms, token, '/api/v1/accounts/self/terms?per_page=2');
    const body = (await response.json()) as { enrollment_terms: Array<{ id: number; name: string }> };
    // The term without dates sorts first, as NULLs do in a descending sort.
    expect(body.enrollment_terms.map((t) => t.name)).toEqual(['Default Term', 'Fall 2026']);
    expect(parseLinkHeader(response.headers.get('link')).last).toContain('page=2&per_page=2');
  });
});
