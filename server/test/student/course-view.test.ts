import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapOf } from '../exb-public/helpers.js';
import { COURSE, createStudentHarness, NEW_QUIZ, QUIZ, SAME_ORIGIN, student, type StudentHarness } from './harness.js';

let h: StudentHarness;

/** A cached assessment as discovery leaves it. */
async function discovered(contentId: string, title: string, published = true) {
  const classic = /^classicquiz_(\d+)$/.exec(contentId);
  await h.t.db.orm.em
    .getConnection()
    .execute(
      'insert into assessment (course_id, content_id, content_type, lms_assessment_id, title, published) values (?, ?, ?, ?, ?, ?)',
      [COURSE, contentId, classic ? 'CLASSIC_QUIZ' : 'NEW_QUIZ', classic ? classic[1]! : contentId.split(':')[2]!, title, published],
      'run',
    );
}

/** The student's course shell, as a reload of the launch renders it. */
async function studentShell(cookie: string) {
  const page = await h.app.inject({ method: 'GET', url: '/lti/launch', headers: { cookie } });
  expect(page.statusCode).toBe(200);
  return bootstrapOf(page.body);
}

beforeAll(async () => {
  h = await createStudentHarness();
  await h.enforce(QUIZ);
  await h.enforce(NEW_QUIZ);
  // Enforced but unpublished; without an effective exit password; turned off; no longer discovered: none is listed.
  await h.enforce('classicquiz_203');
  await h.enforce('classicquiz_204', { exitPasswordOverride: null });
  await h.enforce('classicquiz_205', { enabled: false });
  await h.enforce('classicquiz_206');
  await discovered(QUIZ, 'Midterm exam');
  await discovered(NEW_QUIZ, 'Final exam (New Quizzes)');
  await discovered('classicquiz_202', 'Weekly practice quiz');
  await discovered('classicquiz_203', 'Final exam (draft)', false);
  await discovered('classicquiz_204', 'Lab safety check');
  await discovered('classicquiz_205', 'Turned off');
});
afterAll(() => h.close());

describe('the student course view', () => {
  it('lists the course’s published assessments that require the exam browser, by title, each with its grant route', async () => {
    const data = await studentShell(h.session(student()).cookie);
    expect(data).toMatchObject({ view: 'student', courseId: COURSE, authorizeUrl: '/api/student-session-authorize' });
    expect(data.assessments).toEqual([
      { contentId: NEW_QUIZ, kind: 'newquiz', title: 'Final exam (New Quizzes)', configGrantUrl: '/api/exb/config-grant/101/newquiz%3A101%3A301' },
      { contentId: QUIZ, kind: 'classic', title: 'Midterm exam', configGrantUrl: '/api/exb/config-grant/101/classicquiz_201' },
    ]);
    // Another course's student sees none of them.
    expect((await studentShell(h.session(student({ courseId: '102' })).cookie)).assessments).toEqual([]);
  });

  it('each entry point mints a grant with the page’s action token', async () => {
    const session = h.session(student());
    const data = await studentShell(session.cookie);
    for (const assessment of data.assessments as { configGrantUrl: string }[]) {
      const grant = await h.app.inject({
        method: 'POST',
        url: assessment.configGrantUrl,
        headers: { cookie: session.cookie, ...SAME_ORIGIN },
        payload: { actionToken: data.actionToken, handoffPurpose: 'student-list' },
      });
      // This student has not connected an LMS account yet; the route itself accepted page, token and assessment.
      expect(grant.statusCode).toBe(403);
      expect(grant.json()).toMatchObject({ error_code: 'LMS_SESSION_AUTHORIZATION_REQUIRED', authorizeUrl: '/api/student-session-authorize' });
    }
    await h.authorizeStudent(3);
    for (const assessment of data.assessments as { configGrantUrl: string }[]) {
      const grant = await h.app.inject({
        method: 'POST',
        url: assessment.configGrantUrl,
        headers: { cookie: session.cookie, ...SAME_ORIGIN },
        payload: { actionToken: data.actionToken, handoffPurpose: 'student-list' },
      });
      expect(grant.statusCode).toBe(200);
    }
  });

  it('remembers the dismissed readiness prompt per LMS user', async () => {
    const session = h.session(student());
    expect(await studentShell(session.cookie)).toMatchObject({ sessionReadiness: { dismissed: false } });
    const dismissed = await h.app.inject({
      method: 'POST',
      url: '/api/exb/session-readiness/dismiss',
      headers: { cookie: session.cookie, ...SAME_ORIGIN },
      payload: {},
    });
    expect(dismissed.statusCode).toBe(200);
    expect(await studentShell(session.cookie)).toMatchObject({ sessionReadiness: { dismissed: true } });
    expect(await studentShell(h.session(student({ lmsUserId: '4', ltiSubject: 'sub-4' })).cookie)).toMatchObject({
      sessionReadiness: { dismissed: false },
    });
  });
});

describe('the student course view without the LMS API', () => {
  it('offers neither the authorization nor the readiness prompt', async () => {
    await h.close();
    h = await createStudentHarness({ withoutLmsApi: true });
    const data = await studentShell(h.session(student()).cookie);
    expect(data).toMatchObject({ view: 'student', assessments: [] });
    expect(data).not.toHaveProperty('authorizeUrl');
    expect(data).not.toHaveProperty('sessionReadiness');
  });
});
