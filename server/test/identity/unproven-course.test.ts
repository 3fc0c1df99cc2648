import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapOf } from '../exb-public/helpers.js';
import { contextIdFor } from '../support/sessions.js';
import { COURSE, createStudentHarness, LMS, QUIZ, student, type StudentHarness } from '../student/harness.js';

/**
 * The course-scoped read routes of a student session (the course view's required list, the approved tools, the
 * required-browser views) answer only for a course the LMS proved for the session's signed context, like the
 * configuration grant. A course only an administrator manages was never proven by a launch: a launch from another
 * context that claims its id (a link's custom `lms_course_id`) reads nothing of it.
 */

let h: StudentHarness;

/** A launch from course 104's signed context whose link claims course 101. */
const forged = () => student({ ltiContextId: contextIdFor('course', '104') });

beforeAll(async () => {
  h = await createStudentHarness();
  await h.enforce(QUIZ, {
    usesCourseDefaults: false,
    quizOnlyTools: [{ id: 'calc', label: 'Calculator', url: 'https://calc.example.com/?k=abc', resourceRules: [], managedByAdmin: false, enabled: true }],
  });
  await h.t.db.orm.em
    .getConnection()
    .execute(
      `insert into assessment (course_id, content_id, content_type, lms_assessment_id, title, published)
       values (?, ?, 'CLASSIC_QUIZ', '201', 'Midterm exam', true)`,
      [COURSE, QUIZ],
      'run',
    );
  // Course 101 is managed by an administrator only: no launch ever proved its context.
  await h.t.db.orm.em
    .getConnection()
    .execute(`delete from lti_context_binding where context_kind = 'course' and lms_id = ?`, [COURSE], 'run');
});
afterAll(() => h.close());

const tools = (cookie: string) => h.app.inject({ method: 'GET', url: `/api/exb/tools/${COURSE}/${QUIZ}`, headers: { cookie, origin: LMS } });
const shell = (cookie: string) => h.app.inject({ method: 'GET', url: '/lti/launch', headers: { cookie } });
const view = (cookie: string, path = `/exb/quiz/${COURSE}/${QUIZ}`) => h.app.inject({ method: 'GET', url: path, headers: { cookie } });

describe('a course no launch proved', () => {
  it('lists no required assessment, no tool and no required-browser view to a launch that claims it', async () => {
    const { cookie } = h.session(forged());
    const page = await shell(cookie);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('Midterm exam');
    expect(bootstrapOf(page.body)).toMatchObject({ view: 'student', courseUnverified: true });
    expect(bootstrapOf(page.body).assessments).toBeUndefined();

    const listed = await tools(cookie);
    expect(listed.statusCode).toBe(403);
    expect(listed.json()).toMatchObject({ error_code: 'LMS_COURSE_UNVERIFIED' });
    expect(listed.body).not.toContain('calc.example.com');

    const required = await view(cookie);
    expect(required.statusCode).toBe(403);
    expect(bootstrapOf(required.body)).toMatchObject({ view: 'notice' });
    expect(required.body).toContain('LMS_COURSE_UNVERIFIED');
  });

  it('answers the course’s own students the same until the course is proven, then lists it', async () => {
    const { cookie } = h.session(student());
    expect((await tools(cookie)).json()).toMatchObject({ error_code: 'LMS_COURSE_UNVERIFIED' });
    expect((await view(cookie)).statusCode).toBe(403);

    await h.t.db.orm.em
      .getConnection()
      .execute(
        `insert into lti_context_binding (issuer, context_kind, lti_context_id, lms_id, proven_by_lms_user_id)
         values ((select issuer from lti_context_binding limit 1), 'course', ?, ?, '2')`,
        [contextIdFor('course', COURSE), COURSE],
        'run',
      );
    expect((await tools(cookie)).json()).toEqual({ success: true, tools: [{ id: 'calc', label: 'Calculator', url: 'https://calc.example.com/?k=abc' }] });
    expect(bootstrapOf((await shell(cookie)).body).assessments).toEqual([
      { contentId: QUIZ, kind: 'classic', title: 'Midterm exam', configGrantUrl: '/api/exb/config-grant/101/classicquiz_201' },
    ]);
    expect(bootstrapOf((await view(cookie)).body)).toMatchObject({ view: 'exb-required', contentId: QUIZ });

    // The proven course never answers a launch from another context that claims it.
    const other = h.session(forged()).cookie;
    expect((await tools(other)).statusCode).toBe(403);
    expect((await shell(other)).body).not.toContain('Midterm exam');
    expect((await view(other)).statusCode).toBe(403);
  });

  it('still sends a browser without a session through the LMS launch, revealing nothing', async () => {
    const response = await h.app.inject({ method: 'GET', url: `/exb/quiz/${COURSE}/${QUIZ}` });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toContain(`${LMS}/courses/${COURSE}/external_tools/retrieve`);
    expect(response.body).not.toContain('Midterm');
  });
});
