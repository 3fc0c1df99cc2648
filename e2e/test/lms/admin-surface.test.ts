import { describe, expect, it } from 'vitest';
import { ADMIN_SCOPES, parseLinkHeader } from '../../src/lms/index.js';
import { api, tokenFor, useInProcessLms } from './helpers.js';

const { lms } = useInProcessLms();

interface CourseJson {
  id: number;
  name: string;
  account_id: number;
  enrollment_term_id: number;
  workflow_state: string;
  root_account_id: number;
  term?: { id: number; name: string };
}

function admin(person = 'administrator'): string {
  return tokenFor(lms, person, ADMIN_SCOPES);
}

/** Follows `next` links from the first page to the last, checking no page offers `last`. */
async function allPages(token: string, firstPath: string): Promise<{ courses: CourseJson[]; pages: number }> {
  const courses: CourseJson[] = [];
  let next: string | undefined = `${lms.baseUrl}${firstPath}`;
  let pages = 0;
  while (next) {
    const response: Response = await fetch(next, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    const links = parseLinkHeader(response.headers.get('link'));
    expect(links).not.toHaveProperty('last');
    courses.push(...((await response.json()) as CourseJson[]));
    next = links.next;
    pages += 1;
  }
  return { courses, pages };
}

const hasEnrollments = (courseId: number) => [...lms.state.enrollments.values()].some((e) => e.courseId === courseId);

describe('account course listing over the demo catalog', () => {
  it('pages through every course of the root account and its sub-accounts, without a last link', async () => {
    const { courses, pages } = await allPages(admin(), '/api/v1/accounts/1/courses?per_page=20');
    expect(pages).toBe(4);
    const ids = courses.map((course) => course.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(65);
    expect(ids).toEqual(expect.arrayContaining([101, 102, 103, 104, 105, 106, 165]));
    expect(ids).not.toContain(170);
    expect(new Set(courses.map((course) => course.account_id))).toEqual(new Set([1, 2, 3]));
    const names = courses.map((course) => course.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
  });

  it('filters by term, with the term included on request', async () => {
    const { courses } = await allPages(admin(), '/api/v1/accounts/1/courses?enrollment_term_id=3&include[]=term&per_page=100');
    expect(courses.length).toBe(30);
    expect(courses.every((course) => course.enrollment_term_id === 3 && course.term?.name === 'Spring 2026')).toBe(true);
    const fall = await allPages(admin(), '/api/v1/accounts/1/courses?enrollment_term_id=4&per_page=100');
    expect(fall.courses.length).toBe(34);
  });

  it('filters by published state: unpublished and concluded courses are not “published”', async () => {
    const unpublished = (await allPages(admin(), '/api/v1/accounts/1/courses?published=false&per_page=100')).courses;
    expect(unpublished.map((course) => course.workflow_state).sort()).toEqual([...Array(9).fill('unpublished'), 'completed'].sort());
    expect(unpublished.map((course) => course.id)).toEqual(expect.arrayContaining([103, 105, 112]));
    const published = (await allPages(admin(), '/api/v1/accounts/1/courses?published=true&enrollment_term_id=4&per_page=100')).courses;
    expect(published.length).toBe(29);
    expect(published.every((course) => course.workflow_state === 'available')).toBe(true);
  });

  it('filters by enrollments', async () => {
    const empty = (await allPages(admin(), '/api/v1/accounts/1/courses?with_enrollments=false&per_page=100')).courses;
    expect(empty.length).toBe(20);
    expect(empty.some((course) => hasEnrollments(course.id))).toBe(false);
    const taught = (await allPages(admin(), '/api/v1/accounts/1/courses?with_enrollments=true&per_page=100')).courses;
    expect(taught.length).toBe(45);
    expect(taught.every((course) => hasEnrollments(course.id))).toBe(true);
  });

  it('searches names and codes of the catalog', async () => {
    const byName = (await allPages(admin(), '/api/v1/accounts/1/courses?search_term=algebra&per_page=100')).courses;
    expect(byName.map((course) => course.name)).toEqual(['Algebra A', 'Algebra B', 'Algebra C', 'Algebra D']);
    const byCode = (await allPages(admin(), '/api/v1/accounts/1/courses?search_term=STAT-B&per_page=100')).courses;
    expect(byCode.map((course) => course.name)).toEqual(['Statistics B']);
  });

  it('scopes a sub-account administrator to their sub-account, and lists another school only to its administrator', async () => {
    const sub = admin('subaccount-admin');
    expect((await allPages(sub, '/api/v1/accounts/2/courses?per_page=100')).courses.map((c) => c.id).sort()).toEqual([101, 102, 103, 105]);
    expect((await api(lms, sub, '/api/v1/accounts/3/courses')).status).toBe(403);
    expect((await api(lms, sub, '/api/v1/accounts/1/courses')).status).toBe(403);
    const humanities = (await allPages(admin(), '/api/v1/accounts/3/courses?per_page=100')).courses;
    expect(humanities.length).toBe(13);
    expect(humanities.every((course) => course.account_id === 3 && course.root_account_id === 1)).toBe(true);

    const other = admin('other-root-admin');
    const theirs = (await allPages(other, '/api/v1/accounts/4/courses')).courses;
    expect(theirs.map((course) => [course.id, course.root_account_id])).toEqual([[170, 4]]);
    expect((await api(lms, other, '/api/v1/accounts/1/courses')).status).toBe(403);
    expect((await api(lms, admin(), '/api/v1/accounts/4/courses')).status).toBe(403);
    // Teachers cannot list an account's courses, not even one they may read.
    expect((await api(lms, admin('catalog-teacher-1'), '/api/v1/accounts/1/courses')).status).toBe(403);
  });

  it('takes injected faults', async () => {
    lms.faults.next('GET /api/v1/accounts/:account_id/courses', { kind: 'rate-limit' });
    const limited = await api(lms, admin(), '/api/v1/accounts/1/courses');
    expect(limited.status).toBe(429);
    expect(await limited.text()).toContain('Rate Limit Exceeded');
    expect((await api(lms, admin(), '/api/v1/accounts/1/courses')).status).toBe(200);
  });
});

describe('accounts, terms and permissions', () => {
  it('serves each school its own terms', async () => {
    const ours = (await (await api(lms, admin(), '/api/v1/accounts/self/terms?per_page=50')).json()) as { enrollment_terms: Array<{ name: string }> };
    expect(ours.enrollment_terms.map((term) => term.name)).toEqual(['Default Term', 'Fall 2026', 'Spring 2026', 'Fall 2025']);
    const theirs = (await (await api(lms, admin('other-root-admin'), '/api/v1/accounts/4/terms')).json()) as { enrollment_terms: Array<{ name: string }> };
    expect(theirs.enrollment_terms.map((term) => term.name)).toEqual(['Northfield Fall 2026']);
  });

  it('lets teachers read their school’s terms, and nobody else without administration', async () => {
    expect((await api(lms, admin('instructor'), '/api/v1/accounts/1/terms')).status).toBe(200);
    expect((await api(lms, admin('student1'), '/api/v1/accounts/1/terms')).status).toBe(403);
    expect((await api(lms, admin('designer'), '/api/v1/accounts/1/terms')).status).toBe(403);
    expect((await api(lms, admin('other-root-admin'), '/api/v1/accounts/1/terms')).status).toBe(403);
  });

  it('answers account permissions to those who may read the account', async () => {
    const sub = await api(lms, admin('subaccount-admin'), '/api/v1/accounts/2/permissions?permissions[]=read_course_list&permissions[]=manage_courses_admin');
    expect(await sub.json()).toEqual({ read_course_list: true, manage_courses_admin: true });
    expect((await api(lms, admin('subaccount-admin'), '/api/v1/accounts/1/permissions')).status).toBe(403);
    const reader = await api(lms, admin('catalog-teacher-1'), '/api/v1/accounts/1/permissions?permissions[]=read&permissions[]=read_course_list');
    expect(await reader.json()).toEqual({ read: true, read_course_list: false });
    expect((await api(lms, admin('other-root-admin'), '/api/v1/accounts/1/permissions')).status).toBe(403);
  });

  it('answers the account to its administrators, with its root account', async () => {
    expect(await (await api(lms, admin('subaccount-admin'), '/api/v1/accounts/2')).json()).toMatchObject({ id: 2, root_account_id: 1, parent_account_id: 1 });
    expect((await api(lms, admin('subaccount-admin'), '/api/v1/accounts/3')).status).toBe(403);
    expect(await (await api(lms, admin('other-root-admin'), '/api/v1/accounts/4')).json()).toMatchObject({ id: 4, root_account_id: null, name: 'Northfield College' });
    expect((await api(lms, admin(), '/api/v1/accounts/99')).status).toBe(404);
  });
});
