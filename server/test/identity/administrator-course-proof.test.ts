import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_AND_APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { createLogger } from '../../src/logger.js';
import { createOAuthServices } from '../../src/oauth/services.js';
import { bootstrapOf } from '../exb-public/helpers.js';
import { contextIdFor, ISSUER, subjectFor } from '../support/sessions.js';
import { COURSE, createStudentHarness, LMS, QUIZ, student, type StudentHarness } from '../student/harness.js';

/**
 * A course only an administrator manages was never proven by a launch of its own. The administrator's grant proves it:
 * the LMS answers `lti_context_id:` lookups for an administrator of the course's root account as for a member of the
 * course, so a student's launch from the course's own context is proven through it, and one from another context that
 * claims the course is refuted by the same lookup.
 */

let h: StudentHarness;

/** A launch from course 104's signed context whose link claims course 101. */
const forged = () => student({ ltiContextId: contextIdFor('course', '104') });

const tools = (cookie: string) => h.app.inject({ method: 'GET', url: `/api/exb/tools/${COURSE}/${QUIZ}`, headers: { cookie, origin: LMS } });
const shell = (cookie: string) => h.app.inject({ method: 'GET', url: '/lti/launch', headers: { cookie } });
const view = (cookie: string) => h.app.inject({ method: 'GET', url: `/exb/quiz/${COURSE}/${QUIZ}`, headers: { cookie } });
const lookups = () => h.lms.calls.filter((call) => decodeURIComponent(call.url).includes('/lti_context_id:')).length;

beforeAll(async () => {
  h = await createStudentHarness();
  const sql = (text: string, params: unknown[] = []) => h.t.db.orm.em.getConnection().execute(text, params, 'run');
  await h.enforce(QUIZ, {
    usesCourseDefaults: false,
    quizOnlyTools: [{ id: 'calc', label: 'Calculator', url: 'https://calc.example.com/?k=abc', resourceRules: [], managedByAdmin: false, enabled: true }],
  });
  await sql(
    `insert into assessment (course_id, content_id, content_type, lms_assessment_id, title, published)
     values (?, ?, 'CLASSIC_QUIZ', '201', 'Midterm exam', true)`,
    [COURSE, QUIZ],
  );
  // Neither course 101 nor course 104 (where the forged launch comes from) was ever proven by a launch.
  await sql(`delete from lti_context_binding where context_kind = 'course' and lms_id in ('101', '104')`);
  // The root account's administrator (user 1) authorized the tool and connected course 101 from the admin view.
  const issued = h.lms.oauth.issueToken({ user: 1, scopes: ADMIN_AND_APPLICATION_SCOPES, expiresIn: 3600 });
  await createOAuthServices(h.t.config, h.t.db.orm, null as never, createLogger('silent')).oauth.tokens.saveAuthorization({
    lmsUserId: '1',
    scopes: ADMIN_AND_APPLICATION_SCOPES,
    accessToken: issued.response.access_token,
    refreshToken: issued.response.refresh_token ?? null,
    expiresInSeconds: issued.response.expires_in ?? null,
    lmsUserName: issued.response.user.name,
    lmsGlobalUserId: issued.response.user.global_id,
    lmsRegion: issued.response.canvas_region,
    accountId: '1',
    ltiIssuer: ISSUER,
    ltiSubject: subjectFor(1),
  });
  await sql(`insert into admin_course (course_id, account_id, name, origin, connected_by_lms_user_id) values (?, '1', 'Course 101', 'admin', '1')`, [
    COURSE,
  ]);
});
afterAll(() => h.close());

describe('a course an administrator connected', () => {
  it('is proven for a launch of its own context through the administrator’s grant, and never for another context', async () => {
    // A launch from course 104 claims course 101: the administrator's lookup resolves its context to course 104.
    const other = h.session(forged()).cookie;
    expect((await tools(other)).json()).toMatchObject({ error_code: 'LMS_COURSE_UNVERIFIED' });
    expect((await view(other)).statusCode).toBe(403);
    expect((await shell(other)).body).not.toContain('Midterm exam');
    // One lookup answers the repeated requests of that launch for a while.
    expect(lookups()).toBe(1);

    const { cookie } = h.session(student({ lmsUserId: '4' }));
    expect((await tools(cookie)).json()).toMatchObject({ success: true, tools: [{ id: 'calc' }] });
    expect(bootstrapOf((await shell(cookie)).body).assessments).toEqual([
      { contentId: QUIZ, kind: 'classic', title: 'Midterm exam', configGrantUrl: '/api/exb/config-grant/101/classicquiz_201' },
    ]);
    expect(bootstrapOf((await view(cookie)).body)).toMatchObject({ view: 'exb-required', contentId: QUIZ });
    expect(lookups()).toBe(2);
    expect(
      await h.t.db.orm.em.getConnection().execute(`select proven_by_lms_user_id as by, proven_by_role as role from lti_context_binding where lms_id = ?`, [COURSE]),
    ).toEqual([{ by: '1', role: 'administrator' }]);
    // Proven now: the forged launch's claim contradicts the binding and stays refused.
    expect((await tools(other)).statusCode).toBe(403);
  });
});
