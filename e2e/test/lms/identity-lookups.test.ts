import { describe, expect, it } from 'vitest';
import { ADMIN_SCOPES, APPLICATION_SCOPES, LTI_CLAIM, parseLinkHeader } from '../../src/lms/index.js';
import { api, tokenFor, useInProcessLms } from './helpers.js';

const { lms } = useInProcessLms();

const contextIdOf = (courseId: number) => lms.state.courses.get(courseId)!.ltiContextId;

describe('LTI context ids', () => {
  it('are 40-hex, stable across resets, and the ones launches carry', () => {
    const course = contextIdOf(101);
    const account = lms.state.accounts.get(1)!.ltiContextId;
    expect(course).toMatch(/^[0-9a-f]{40}$/);
    expect(account).toMatch(/^[0-9a-f]{40}$/);
    expect(course).not.toBe(account);
    const courseLaunch = lms.platform.buildLaunch({ person: 'instructor', placement: 'course_navigation', courseId: 101 });
    expect(courseLaunch.claims[`${LTI_CLAIM}context`]).toMatchObject({ id: course });
    const accountLaunch = lms.platform.buildLaunch({ person: 'administrator', placement: 'account_navigation' });
    expect(accountLaunch.claims[`${LTI_CLAIM}context`]).toEqual({ id: account, title: 'Example University', type: ['Account'] });
    lms.reset();
    expect(contextIdOf(101)).toBe(course);
  });

  it('are given to courses a test adds', () => {
    const added = lms.state.addCourse({ id: 9001, name: 'Added', courseCode: 'ADD', accountId: 3 });
    expect(added.ltiContextId).toMatch(/^[0-9a-f]{40}$/);
    expect(lms.platform.buildLaunch({ person: 'administrator', placement: 'course_navigation', courseId: 9001 }).claims[`${LTI_CLAIM}context`]).toMatchObject({
      id: added.ltiContextId,
    });
  });
});

describe('lti_context_id: lookups', () => {
  it('resolve a course to its numeric id with the administrator scope', async () => {
    const token = tokenFor(lms, 'instructor', ADMIN_SCOPES);
    const response = await api(lms, token, `/api/v1/courses/lti_context_id:${contextIdOf(101)}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: 101, name: 'Biology 101', course_code: 'BIO101' });
    const byUuid = await api(lms, token, `/api/v1/courses/uuid:${lms.state.courses.get(102)!.uuid}`);
    expect(await byUuid.json()).toMatchObject({ id: 102 });
    // The application scopes do not reach a single course.
    expect((await api(lms, tokenFor(lms, 'instructor', APPLICATION_SCOPES), `/api/v1/courses/lti_context_id:${contextIdOf(101)}`)).status).toBe(401);
  });

  it('answer nested quizzes and assignments for that course, with numeric ids in the Link header', async () => {
    const token = tokenFor(lms, 'instructor', APPLICATION_SCOPES);
    for (const list of ['quizzes', 'assignments']) {
      const response = await api(lms, token, `/api/v1/courses/lti_context_id:${contextIdOf(101)}/${list}?per_page=1`);
      expect(response.status, list).toBe(200);
      expect(((await response.json()) as unknown[]).length).toBe(1);
      const links = parseLinkHeader(response.headers.get('link'));
      expect(links.current).toBe(`${lms.baseUrl}/api/v1/courses/101/${list}?page=1&per_page=1`);
      expect(links.next).toBe(`${lms.baseUrl}/api/v1/courses/101/${list}?page=2&per_page=1`);
      expect(response.headers.get('link')).not.toContain('lti_context_id');
    }
  });

  it('keep the caller’s rights: a teacher of another course is refused, an unknown id is not found', async () => {
    const other = tokenFor(lms, 'other-teacher', APPLICATION_SCOPES);
    expect((await api(lms, other, `/api/v1/courses/lti_context_id:${contextIdOf(101)}/quizzes?per_page=1`)).status).toBe(403);
    const token = tokenFor(lms, 'instructor');
    expect((await api(lms, token, `/api/v1/courses/lti_context_id:${'0'.repeat(40)}/quizzes`)).status).toBe(404);
    expect((await api(lms, token, '/api/v1/courses/lti_context_id:/quizzes')).status).toBe(404);
  });

  it('resolve accounts: the root account with root_account_id null, sub-accounts with theirs', async () => {
    const token = tokenFor(lms, 'administrator', ADMIN_SCOPES);
    const root = await api(lms, token, `/api/v1/accounts/lti_context_id:${lms.state.accounts.get(1)!.ltiContextId}`);
    expect(await root.json()).toMatchObject({ id: 1, parent_account_id: null, root_account_id: null, lti_guid: expect.stringMatching(/:canvas-lms$/) });
    const sub = await api(lms, token, `/api/v1/accounts/lti_context_id:${lms.state.accounts.get(2)!.ltiContextId}`);
    expect(await sub.json()).toMatchObject({ id: 2, parent_account_id: 1, root_account_id: 1 });
    const byUuid = await api(lms, token, `/api/v1/accounts/uuid:${lms.state.accounts.get(3)!.uuid}/permissions?permissions[]=read_course_list`);
    expect(await byUuid.json()).toEqual({ read_course_list: true });
  });

  it('give the full account only to those who manage it, the reduced one to teachers of its courses', async () => {
    const rootId = `lti_context_id:${lms.state.accounts.get(1)!.ltiContextId}`;
    // A catalog teacher teaches courses directly in the root account: they may read it, not manage it.
    const teacher = await api(lms, tokenFor(lms, 'catalog-teacher-1', ADMIN_SCOPES), `/api/v1/accounts/${rootId}`);
    expect(teacher.status).toBe(200);
    const reduced = (await teacher.json()) as Record<string, unknown>;
    expect(Object.keys(reduced).sort()).toEqual(['default_time_zone', 'id', 'name', 'parent_account_id', 'root_account_id', 'uuid', 'workflow_state']);
    expect(reduced).toMatchObject({ id: 1, root_account_id: null });
    // The sub-account administrator manages none of the root account and may not read it.
    expect((await api(lms, tokenFor(lms, 'subaccount-admin', ADMIN_SCOPES), `/api/v1/accounts/${rootId}`)).status).toBe(403);
    expect((await api(lms, tokenFor(lms, 'student1', ADMIN_SCOPES), `/api/v1/accounts/${rootId}`)).status).toBe(403);
  });

  it('look only within this LMS’s root account: another school’s ids are not found, even for its administrator', async () => {
    const school = lms.state.accounts.get(4)!;
    expect(school.parentAccountId).toBeNull();
    const foreignCourse = lms.state.courses.get(170)!;
    const theirAdmin = tokenFor(lms, 'other-root-admin', ADMIN_SCOPES);
    expect((await api(lms, theirAdmin, '/api/v1/accounts/4')).status).toBe(200);
    expect((await api(lms, theirAdmin, `/api/v1/accounts/lti_context_id:${school.ltiContextId}`)).status).toBe(404);
    expect((await api(lms, theirAdmin, `/api/v1/courses/lti_context_id:${foreignCourse.ltiContextId}`)).status).toBe(404);
    const ourAdmin = tokenFor(lms, 'administrator', ADMIN_SCOPES);
    expect((await api(lms, ourAdmin, `/api/v1/accounts/lti_context_id:${school.ltiContextId}`)).status).toBe(404);
    expect((await api(lms, ourAdmin, '/api/v1/accounts/4')).status).toBe(403);
    expect((await api(lms, ourAdmin, '/api/v1/courses/170')).status).toBe(403);
  });
});
