import { describe, expect, it } from 'vitest';
import { ADMIN_SCOPES, APPLICATION_SCOPES } from '../../src/lms/index.js';
import { api, testLms, tokenFor, useInProcessLms } from './helpers.js';

const { lms, server } = useInProcessLms();

describe('token checks', () => {
  it('asks for credentials when no token is given', async () => {
    const response = await api(lms, undefined, '/api/v1/courses');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="canvas-lms"');
    expect(await response.json()).toEqual({ status: 'unauthenticated', errors: [{ message: 'user authorization required' }] });
  });

  it('rejects an unknown token', async () => {
    const response = await api(lms, '1~not-a-token', '/api/v1/courses');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="canvas-lms"');
    expect(await response.json()).toEqual({ errors: [{ message: 'Invalid access token.' }] });
  });

  it('rejects an expired token with its expiry time', async () => {
    const token = lms.oauth.issueToken({ userId: 2, scopes: APPLICATION_SCOPES, expiresIn: 60 }).record.accessToken;
    expect((await api(lms, token, '/api/v1/courses')).status).toBe(200);
    lms.clock.advance(61_000);
    const response = await api(lms, token, '/api/v1/courses');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="canvas-lms"');
    const body = (await response.json()) as { errors: Array<{ message: string; expired_at: string }> };
    expect(body.errors[0]!.message).toBe('Expired access token.');
    expect(body.errors[0]!.expired_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('rejects a revoked token', async () => {
    const token = tokenFor(lms, 'instructor');
    lms.oauth.revoke(token);
    const response = await api(lms, token, '/api/v1/courses');
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ errors: [{ message: 'Revoked access token.' }] });
  });

  it('accepts the token as an access_token parameter too', async () => {
    const token = tokenFor(lms, 'instructor');
    const response = await api(lms, undefined, `/api/v1/courses?access_token=${encodeURIComponent(token)}`);
    expect(response.status).toBe(200);
  });

  it('enforces url scopes: application scopes cannot read an account', async () => {
    const token = tokenFor(lms, 'administrator', APPLICATION_SCOPES);
    const response = await api(lms, token, '/api/v1/accounts/self');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBeNull();
    expect(await response.json()).toEqual({ errors: [{ message: 'Insufficient scopes on access token.' }] });
    const admin = tokenFor(lms, 'administrator', ADMIN_SCOPES);
    expect((await api(lms, admin, '/api/v1/accounts/self')).status).toBe(200);
  });

  it('matches scope patterns segment by segment, method included', async () => {
    const token = tokenFor(lms, 'instructor', ['url:GET|/api/v1/courses/:course_id/quizzes']);
    expect((await api(lms, token, '/api/v1/courses/101/quizzes')).status).toBe(200);
    expect((await api(lms, token, '/api/v1/courses/101/quizzes/201')).status).toBe(401);
    expect((await api(lms, token, '/api/v1/courses/101/quizzes/201', { method: 'PUT', json: { quiz: {} } })).status).toBe(401);
  });

  it('answers the reported request cost and throttle budget on authenticated calls', async () => {
    const response = await api(lms, tokenFor(lms, 'instructor'), '/api/v1/courses');
    expect(Number(response.headers.get('x-request-cost'))).toBeGreaterThan(0);
    expect(Number(response.headers.get('x-rate-limit-remaining'))).toBeLessThanOrEqual(600);
  });

  it('lets any route through for any token when the key does not enforce scopes', async () => {
    const open = testLms({ requireScopes: false });
    const token = open.oauth.issueToken({ user: 'administrator', scopes: [] }).record.accessToken;
    // Variant LMSes on the same origin answer first for this test (handlers reset after each test).
    server.use(...open.handlers);
    expect((await api(open, token, '/api/v1/accounts/self')).status).toBe(200);
  });
});

describe('rights in courses and accounts', () => {
  it('lists only the caller’s own courses, with their enrollments', async () => {
    const response = await api(lms, tokenFor(lms, 'instructor'), '/api/v1/courses?include[]=term');
    const courses = (await response.json()) as Array<{ id: number; enrollments: Array<{ type: string; role: string }>; term: { name: string } }>;
    expect(courses.map((c) => c.id)).toEqual([101, 102, 105]);
    expect(courses[0]!.enrollments).toEqual([
      { type: 'teacher', role: 'TeacherEnrollment', role_id: 4, user_id: 2, enrollment_state: 'active', limit_privileges_to_course_section: false },
    ]);
    expect(courses[0]!.term.name).toBe('Fall 2026');
  });

  it('filters the course list by enrollment type and state', async () => {
    const teacher = tokenFor(lms, 'instructor');
    const concluded = await (await api(lms, teacher, '/api/v1/courses?enrollment_state=completed')).json();
    expect((concluded as Array<{ id: number; workflow_state: string }>).map((c) => [c.id, c.workflow_state])).toEqual([[103, 'completed']]);
    const asStudent = await (await api(lms, teacher, '/api/v1/courses?enrollment_type=student')).json();
    expect(asStudent).toEqual([]);
    const student = tokenFor(lms, 'student1');
    const studentCourses = (await (await api(lms, student, '/api/v1/courses')).json()) as Array<{ id: number }>;
    // The unpublished course 105 and the concluded 103 are not current for a student.
    expect(studentCourses.map((c) => c.id)).toEqual([101]);
    const ta = (await (await api(lms, tokenFor(lms, 'ta'), '/api/v1/courses?enrollment_type=teacher')).json()) as unknown[];
    expect(ta).toEqual([]);
  });

  it('lets a teacher change a quiz in their own course, not in another', async () => {
    const token = tokenFor(lms, 'instructor');
    const own = await api(lms, token, '/api/v1/courses/101/quizzes/201', { method: 'PUT', json: { quiz: { access_code: 'secret-1' } } });
    expect(own.status).toBe(200);
    expect(((await own.json()) as { access_code: string }).access_code).toBe('secret-1');
    expect(lms.state.quizzes.get(201)!.accessCode).toBe('secret-1');

    const other = await api(lms, token, '/api/v1/courses/104/quizzes/206', { method: 'PUT', json: { quiz: { access_code: 'x' } } });
    expect(other.status).toBe(403);
    expect(await other.json()).toEqual({ status: 'unauthorized', errors: [{ message: 'user not authorized to perform that action' }] });
    expect(lms.state.quizzes.get(206)!.accessCode).toBeNull();
  });

  it("refuses a student's token any quiz change", async () => {
    const token = tokenFor(lms, 'student1');
    const response = await api(lms, token, '/api/v1/courses/101/quizzes/201', { method: 'PUT', json: { quiz: { access_code: null } } });
    expect(response.status).toBe(403);
    const patch = await api(lms, token, '/api/quiz/v1/courses/101/quizzes/301', {
      method: 'PATCH',
      json: { quiz: { quiz_settings: { require_student_access_code: false, student_access_code: null } } },
    });
    expect(patch.status).toBe(403);
  });

  it('answers 401 for "not authorized" when configured like an older installation', async () => {
    const older = testLms({ unauthorizedStatus: 401 });
    // Variant LMSes on the same origin answer first for this test (handlers reset after each test).
    server.use(...older.handlers);
    const token = older.oauth.issueToken({ user: 'student1', scopes: APPLICATION_SCOPES }).record.accessToken;
    const response = await api(older, token, '/api/v1/courses/101/quizzes/201', { method: 'PUT', json: { quiz: {} } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBeNull();
  });

  it('lets a teacher of a concluded course read but not change it', async () => {
    const token = tokenFor(lms, 'instructor');
    expect((await api(lms, token, '/api/v1/courses/103/quizzes/207')).status).toBe(200);
    const response = await api(lms, token, '/api/v1/courses/103/quizzes/207', { method: 'PUT', json: { quiz: { access_code: 'x' } } });
    expect(response.status).toBe(403);
  });

  it('shows access codes to graders only', async () => {
    lms.state.quizzes.get(201)!.accessCode = 'hidden';
    const asTeacher = (await (await api(lms, tokenFor(lms, 'instructor'), '/api/v1/courses/101/quizzes/201')).json()) as Record<string, unknown>;
    expect(asTeacher.access_code).toBe('hidden');
    const asStudent = (await (await api(lms, tokenFor(lms, 'student1'), '/api/v1/courses/101/quizzes/201')).json()) as Record<string, unknown>;
    expect(asStudent).not.toHaveProperty('access_code');
    const asDesigner = (await (await api(lms, tokenFor(lms, 'designer'), '/api/v1/courses/101/quizzes/201')).json()) as Record<string, unknown>;
    expect(asDesigner).not.toHaveProperty('access_code');
    expect(asDesigner.can_update).toBe(true);
  });

  it('hides unpublished quizzes from students', async () => {
    const list = (await (await api(lms, tokenFor(lms, 'student1'), '/api/v1/courses/101/quizzes')).json()) as Array<{ id: number }>;
    expect(list.map((q) => q.id)).toEqual([201, 202, 204]);
    expect((await api(lms, tokenFor(lms, 'student1'), '/api/v1/courses/101/quizzes/203')).status).toBe(403);
    const teacher = (await (await api(lms, tokenFor(lms, 'instructor'), '/api/v1/courses/101/quizzes')).json()) as Array<{ id: number }>;
    expect(teacher.map((q) => q.id)).toEqual([201, 202, 203, 204]);
  });

  it('answers 404 for a quiz of another course or a missing course', async () => {
    const token = tokenFor(lms, 'instructor');
    expect((await api(lms, token, '/api/v1/courses/101/quizzes/205')).status).toBe(404);
    expect(await (await api(lms, token, '/api/v1/courses/999/quizzes')).json()).toEqual({
      errors: [{ message: 'The specified resource does not exist.' }],
    });
  });

  it('lets an administrator act in courses of their account, and a sub-account administrator only below theirs', async () => {
    const root = tokenFor(lms, 'administrator');
    expect((await api(lms, root, '/api/v1/courses/104/quizzes/206', { method: 'PUT', json: { quiz: { access_code: 'a' } } })).status).toBe(200);
    const sub = tokenFor(lms, 'subaccount-admin');
    expect((await api(lms, sub, '/api/v1/courses/101/quizzes/201', { method: 'PUT', json: { quiz: { access_code: 'b' } } })).status).toBe(200);
    expect((await api(lms, sub, '/api/v1/courses/104/quizzes/206', { method: 'PUT', json: { quiz: { access_code: 'c' } } })).status).toBe(403);
    expect((await api(lms, sub, '/api/v1/accounts/1')).status).toBe(403);
    expect((await api(lms, sub, '/api/v1/accounts/2')).status).toBe(200);
    expect((await api(lms, tokenFor(lms, 'instructor'), '/api/v1/accounts/self')).status).toBe(403);
  });

  it('answers account permissions as booleans, with manage_courses legacy-only', async () => {
    const root = tokenFor(lms, 'administrator');
    const response = await api(lms, root, '/api/v1/accounts/1/permissions?permissions[]=manage_courses&permissions[]=manage_courses_admin&permissions[]=no_such_right');
    expect(await response.json()).toEqual({ manage_courses: false, manage_courses_admin: true, no_such_right: false });
    const all = (await (await api(lms, root, '/api/v1/accounts/1/permissions')).json()) as Record<string, boolean>;
    expect(all.read_course_list).toBe(true);
    expect(Object.values(all).every((value) => typeof value === 'boolean')).toBe(true);
    expect((await api(lms, tokenFor(lms, 'instructor'), '/api/v1/accounts/1/permissions?permissions[]=manage_courses_admin')).status).toBe(403);
  });

  it('answers the legacy manage_courses where granular permissions are off', async () => {
    const legacy = testLms({ legacyManageCourses: true });
    // Variant LMSes on the same origin answer first for this test (handlers reset after each test).
    server.use(...legacy.handlers);
    const token = legacy.oauth.issueToken({ user: 'administrator', scopes: ADMIN_SCOPES }).record.accessToken;
    const response = await api(legacy, token, '/api/v1/accounts/self/permissions?permissions[]=manage_courses');
    expect(await response.json()).toEqual({ manage_courses: true });
  });

  it('serves the account, with the terms API on root accounts only', async () => {
    const root = tokenFor(lms, 'administrator');
    const account = (await (await api(lms, root, '/api/v1/accounts/self')).json()) as Record<string, unknown>;
    expect(account).toMatchObject({ id: 1, name: 'Example University', parent_account_id: null, root_account_id: null });
    const sub = await api(lms, root, '/api/v1/accounts/2/terms');
    expect(sub.status).toBe(400);
    expect(await sub.json()).toEqual({ message: 'Terms only belong to root_accounts.' });
  });
});

describe('classic quizzes and new quizzes', () => {
  it('sets and clears an access code with JSON null or an empty form field', async () => {
    const token = tokenFor(lms, 'instructor');
    await api(lms, token, '/api/v1/courses/101/quizzes/201', { method: 'PUT', form: { 'quiz[access_code]': 'abc' } });
    expect(lms.state.quizzes.get(201)!.accessCode).toBe('abc');
    const cleared = await api(lms, token, '/api/v1/courses/101/quizzes/201', { method: 'PUT', form: { 'quiz[access_code]': '' } });
    expect(((await cleared.json()) as { access_code: unknown }).access_code).toBe('');
    await api(lms, token, '/api/v1/courses/101/quizzes/201', { method: 'PUT', json: { quiz: { access_code: 'def' } } });
    const nulled = await api(lms, token, '/api/v1/courses/101/quizzes/201', { method: 'PUT', json: { quiz: { access_code: null } } });
    expect(((await nulled.json()) as { access_code: unknown }).access_code).toBeNull();
  });

  it('rejects malformed quiz fields with 400', async () => {
    const response = await api(lms, tokenFor(lms, 'instructor'), '/api/v1/courses/101/quizzes/201', {
      method: 'PUT',
      json: { quiz: { quiz_type: 'exam', access_code: 5 } },
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { errors: Record<string, unknown> };
    expect(Object.keys(body.errors).sort()).toEqual(['access_code', 'quiz_type']);
  });

  it('lists classic quizzes without new quizzes, and assignments with the new-quiz flag', async () => {
    const token = tokenFor(lms, 'instructor');
    const quizzes = (await (await api(lms, token, '/api/v1/courses/101/quizzes')).json()) as Array<{ id: number; html_url: string; quiz_type: string; published: boolean }>;
    expect(quizzes.find((q) => q.id === 201)).toMatchObject({ html_url: 'http://127.0.0.1:3001/courses/101/quizzes/201', quiz_type: 'assignment', published: true });
    expect(quizzes.some((q) => q.id === 301)).toBe(false);

    const assignments = (await (await api(lms, token, '/api/v1/courses/101/assignments?per_page=50')).json()) as Array<Record<string, unknown>>;
    const newQuiz = assignments.find((a) => a.id === 301)!;
    expect(newQuiz).toMatchObject({ is_quiz_lti_assignment: true, submission_types: ['external_tool'], is_quiz_assignment: false });
    const classic = assignments.find((a) => a.id === 311)!;
    expect(classic).toMatchObject({ is_quiz_assignment: true, quiz_id: 201, submission_types: ['online_quiz'] });
    expect(classic).not.toHaveProperty('is_quiz_lti_assignment');
    expect(assignments.find((a) => a.id === 320)).not.toHaveProperty('is_quiz_lti_assignment');
  });

  it('reads and patches new-quiz access-code settings with string ids', async () => {
    const token = tokenFor(lms, 'instructor');
    const before = (await (await api(lms, token, '/api/quiz/v1/courses/101/quizzes/301')).json()) as Record<string, unknown>;
    expect(before).toMatchObject({ id: '301', title: 'Final exam (New Quizzes)', assignment_group_id: '1' });
    const patched = await api(lms, token, '/api/quiz/v1/courses/101/quizzes/301', {
      method: 'PATCH',
      json: { quiz: { quiz_settings: { require_student_access_code: true, student_access_code: '12345' } } },
    });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as { quiz_settings: Record<string, unknown> }).quiz_settings).toMatchObject({
      require_student_access_code: true,
      student_access_code: '12345',
      calculator_type: 'none',
    });
    expect(lms.state.newQuizSettings(301).student_access_code).toBe('12345');

    await api(lms, token, '/api/quiz/v1/courses/101/quizzes/301', {
      method: 'PATCH',
      form: { 'quiz[quiz_settings][require_student_access_code]': 'false', 'quiz[quiz_settings][student_access_code]': '' },
    });
    expect(lms.state.newQuizSettings(301)).toMatchObject({ require_student_access_code: false, student_access_code: '' });

    const missingCode = await api(lms, token, '/api/quiz/v1/courses/101/quizzes/301', {
      method: 'PATCH',
      json: { quiz: { quiz_settings: { require_student_access_code: true, student_access_code: null } } },
    });
    expect(missingCode.status).toBe(400);
  });

  it('treats a classic quiz assignment as no new quiz', async () => {
    const token = tokenFor(lms, 'instructor');
    expect((await api(lms, token, '/api/quiz/v1/courses/101/quizzes/311')).status).toBe(404);
    expect((await api(lms, token, '/api/quiz/v1/courses/102/quizzes/301')).status).toBe(404);
  });

  it('hides the new-quiz access code from students', async () => {
    lms.state.newQuizSettings(301).require_student_access_code = true;
    lms.state.newQuizSettings(301).student_access_code = 'nq-code';
    const body = (await (await api(lms, tokenFor(lms, 'student1'), '/api/quiz/v1/courses/101/quizzes/301')).json()) as {
      quiz_settings: Record<string, unknown>;
    };
    expect(body.quiz_settings).toMatchObject({ require_student_access_code: true, student_access_code: null });
  });
});

describe('session token', () => {
  it('hands the API user to a browser on the API path', async () => {
    const token = tokenFor(lms, 'student1');
    const returnTo = `${lms.baseUrl}/courses/101/quizzes/201/take?user_id=3`;
    const response = await api(lms, token, `/api/v1/login/session_token?return_to=${encodeURIComponent(returnTo)}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { session_url: string; requires_terms_acceptance: boolean };
    expect(body.requires_terms_acceptance).toBe(false);
    expect(body.session_url.startsWith(`${returnTo}&session_token=`)).toBe(true);
  });

  it('refuses the web path to a scoped token and a foreign return_to', async () => {
    const token = tokenFor(lms, 'student1');
    const web = await api(lms, token, '/login/session_token');
    expect(web.status).toBe(401);
    expect(await web.json()).toEqual({ errors: [{ message: 'Insufficient scopes on access token.' }] });
    const foreign = await api(lms, token, `/api/v1/login/session_token?return_to=${encodeURIComponent('https://evil.example/x')}`);
    expect(foreign.status).toBe(403);
    const garbage = await api(lms, token, `/api/v1/login/session_token?return_to=${encodeURIComponent('http://[bad')}`);
    expect(garbage.status).toBe(400);
    expect(await garbage.json()).toEqual({ error: 'Invalid redirect URL' });
  });
});
