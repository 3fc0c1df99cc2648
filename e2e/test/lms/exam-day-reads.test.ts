import { describe, expect, it } from 'vitest';
import { EXAM_DAY_SCOPES } from '@exb/shared/oauth-scopes.js';
import { APPLICATION_SCOPES, parseLinkHeader } from '../../src/lms/index.js';
import { api, tokenFor, useInProcessLms } from './helpers.js';

const { lms } = useInProcessLms();

const EXAM_DAY = Object.values(EXAM_DAY_SCOPES);
const at = (minute: number) => new Date(Date.UTC(2026, 10, 27, 9, minute)).toISOString();

interface QuizSubmissionJson {
  user_id: number;
  attempt: number;
  workflow_state: string;
  started_at: string;
  finished_at: string | null;
}

async function quizSubmissions(person: string, path = '/api/v1/courses/101/quizzes/201/submissions') {
  const response = await api(lms, tokenFor(lms, person, EXAM_DAY), path);
  return { response, body: response.status === 200 ? ((await response.json()) as { quiz_submissions: QuizSubmissionJson[] }) : null };
}

describe('quiz submissions', () => {
  it('gives a teacher every student’s current attempt, in progress or complete', async () => {
    lms.state.finishQuizAttempt(201, 3, at(5));
    lms.state.startQuizAttempt(201, 3, at(10));
    lms.state.startQuizAttempt(201, 4, at(12));
    lms.state.startQuizAttempt(202, 4, at(12));
    const { response, body } = await quizSubmissions('instructor');
    expect(response.status).toBe(200);
    expect(body!.quiz_submissions.map(({ user_id, attempt, workflow_state, started_at, finished_at }) => ({ user_id, attempt, workflow_state, started_at, finished_at }))).toEqual([
      { user_id: 3, attempt: 2, workflow_state: 'untaken', started_at: at(10), finished_at: null },
      { user_id: 4, attempt: 1, workflow_state: 'untaken', started_at: at(12), finished_at: null },
    ]);
    lms.state.finishQuizAttempt(201, 4, at(40));
    const later = await quizSubmissions('instructor');
    expect(later.body!.quiz_submissions.find((submission) => submission.user_id === 4)).toMatchObject({ workflow_state: 'complete', finished_at: at(40) });
  });

  it('pages with the LMS’s links, naming the course and quiz by number', async () => {
    lms.state.startQuizAttempt(201, 3, at(1));
    lms.state.startQuizAttempt(201, 4, at(2));
    const { response, body } = await quizSubmissions('instructor', '/api/v1/courses/101/quizzes/201/submissions?per_page=1');
    expect(body!.quiz_submissions).toHaveLength(1);
    const links = parseLinkHeader(response.headers.get('link'));
    expect(links.next).toBe(`${lms.baseUrl}/api/v1/courses/101/quizzes/201/submissions?page=2&per_page=1`);
    const second = await api(lms, tokenFor(lms, 'instructor', EXAM_DAY), new URL(links.next!).pathname + new URL(links.next!).search);
    expect(((await second.json()) as { quiz_submissions: QuizSubmissionJson[] }).quiz_submissions[0]!.user_id).toBe(4);
  });

  it('shows a student only their own attempts, and keeps others out', async () => {
    lms.state.finishQuizAttempt(201, 3, at(5));
    lms.state.startQuizAttempt(201, 4, at(6));
    const own = await quizSubmissions('student1');
    expect(own.body!.quiz_submissions.map((submission) => submission.user_id)).toEqual([3]);
    expect((await quizSubmissions('designer')).response.status).toBe(403);
    expect((await quizSubmissions('other-teacher')).response.status).toBe(403);
    expect((await quizSubmissions('instructor', '/api/v1/courses/101/quizzes/205/submissions')).response.status).toBe(404);
    // The quiz is looked up before the caller's rights: a missing one is 404 for anyone.
    expect((await quizSubmissions('other-teacher', '/api/v1/courses/101/quizzes/999/submissions')).response.status).toBe(404);
  });

  it('needs its own scope', async () => {
    const response = await api(lms, tokenFor(lms, 'instructor', APPLICATION_SCOPES), '/api/v1/courses/101/quizzes/201/submissions');
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ errors: [{ message: 'Insufficient scopes on access token.' }] });
  });

  it('starts an attempt when the take page opens the quiz for a student and finishes it on submission', async () => {
    const cookie = lms.webSessionCookie('student1');
    const taking = await (await fetch(`${lms.baseUrl}/courses/101/quizzes/201/take`, { headers: { cookie } })).text();
    expect(lms.state.latestQuizAttempt(201, 3)).toMatchObject({ attempt: 1, finishedAt: null });
    const csrf = /name="authenticity_token" value="([^"]+)"/.exec(taking)![1]!;
    await fetch(`${lms.baseUrl}/courses/101/quizzes/201/submissions?user_id=3`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ authenticity_token: csrf }).toString(),
      redirect: 'manual',
    });
    expect(lms.state.latestQuizAttempt(201, 3)).toMatchObject({ attempt: 1, finishedAt: expect.any(String) });
    // A teacher's preview is no attempt.
    await fetch(`${lms.baseUrl}/courses/101/quizzes/201/take?preview=1`, { headers: { cookie: lms.webSessionCookie('instructor') } });
    expect(lms.state.latestQuizAttempt(201, 2)).toBeUndefined();
  });
});

describe('assignment submissions', () => {
  interface SubmissionJson {
    user_id: number;
    workflow_state: string;
    submitted_at: string | null;
  }
  const path = '/api/v1/courses/101/assignments/301/submissions';

  it('lists one submission per student of the course, unsubmitted ones included', async () => {
    lms.state.submitAssignment(301, 4, at(30));
    const response = await api(lms, tokenFor(lms, 'ta', EXAM_DAY), path);
    expect(response.status).toBe(200);
    const body = (await response.json()) as SubmissionJson[];
    expect(body.map(({ user_id, workflow_state, submitted_at }) => ({ user_id, workflow_state, submitted_at }))).toEqual([
      { user_id: 3, workflow_state: 'unsubmitted', submitted_at: null },
      { user_id: 4, workflow_state: 'submitted', submitted_at: at(30) },
    ]);
    expect(parseLinkHeader(response.headers.get('link')).current).toBe(`${lms.baseUrl}${path}?page=1&per_page=10`);
  });

  it('is for graders only, checked before the assignment is looked up', async () => {
    expect((await api(lms, tokenFor(lms, 'student1', EXAM_DAY), path)).status).toBe(403);
    expect((await api(lms, tokenFor(lms, 'student1', EXAM_DAY), '/api/v1/courses/101/assignments/999/submissions')).status).toBe(403);
    expect((await api(lms, tokenFor(lms, 'instructor', EXAM_DAY), '/api/v1/courses/101/assignments/999/submissions')).status).toBe(404);
    expect((await api(lms, tokenFor(lms, 'instructor', EXAM_DAY), '/api/v1/courses/101/assignments/303/submissions')).status).toBe(404);
    expect((await api(lms, tokenFor(lms, 'instructor', APPLICATION_SCOPES), path)).status).toBe(401);
  });
});

describe('course enrollments', () => {
  interface EnrollmentJson {
    user_id: number;
    type: string;
    enrollment_state: string;
    user: { id: number; name: string; sortable_name: string };
  }
  const students = '/api/v1/courses/101/enrollments?type[]=StudentEnrollment&state[]=active';

  it('lists the active students with their names, ordered by sortable name', async () => {
    const response = await api(lms, tokenFor(lms, 'instructor', EXAM_DAY), students);
    expect(response.status).toBe(200);
    const body = (await response.json()) as EnrollmentJson[];
    expect(body.map((enrollment) => [enrollment.user_id, enrollment.type, enrollment.enrollment_state, enrollment.user.name])).toEqual([
      [3, 'StudentEnrollment', 'active', 'Sam Student'],
      [4, 'StudentEnrollment', 'active', 'Sue Student'],
    ]);
  });

  it('leaves out removed and concluded students and pages', async () => {
    lms.state.removeFromCourse(4, 101, 'conclude');
    const body = (await (await api(lms, tokenFor(lms, 'instructor', EXAM_DAY), students)).json()) as EnrollmentJson[];
    expect(body.map((enrollment) => enrollment.user_id)).toEqual([3]);
    const all = await api(lms, tokenFor(lms, 'instructor', EXAM_DAY), '/api/v1/courses/101/enrollments?per_page=2');
    expect(((await all.json()) as EnrollmentJson[]).map((enrollment) => enrollment.type)).toEqual(['DesignerEnrollment', 'StudentEnrollment']);
    expect(parseLinkHeader(all.headers.get('link')).next).toBe(`${lms.baseUrl}/api/v1/courses/101/enrollments?page=2&per_page=2`);
  });

  it('needs a roster or grades right in the course and its own scope', async () => {
    expect((await api(lms, tokenFor(lms, 'other-teacher', EXAM_DAY), students)).status).toBe(403);
    expect((await api(lms, tokenFor(lms, 'instructor', APPLICATION_SCOPES), students)).status).toBe(401);
    expect((await api(lms, tokenFor(lms, 'administrator', EXAM_DAY), students)).status).toBe(200);
  });
});
