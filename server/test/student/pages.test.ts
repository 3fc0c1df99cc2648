import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConfiguration } from '../../../e2e/src/exb-simulator/index.js';
import { bootstrapOf } from '../exb-public/helpers.js';
import {
  COURSE,
  createStudentHarness,
  downloadPathOf,
  instructor,
  LMS,
  NEW_QUIZ,
  QUIZ,
  SAME_ORIGIN,
  SERVICE,
  student,
  TAKE_URL,
  type StudentHarness,
} from './harness.js';

let h: StudentHarness;
beforeAll(async () => {
  h = await createStudentHarness();
  await h.enforce(QUIZ);
  await h.enforce(NEW_QUIZ);
  await h.authorizeStudent(3);
});
afterAll(() => h.close());

describe('POST /api/exb/session-readiness and /dismiss', () => {
  const readiness = (principal = student(), headers: Record<string, string> = { ...SAME_ORIGIN }) =>
    h.app.inject({ method: 'POST', url: '/api/exb/session-readiness', headers: { cookie: h.session(principal).cookie, ...headers }, payload: {} });

  it('confirms the LMS session handoff without storing or returning the session URL', async () => {
    const calls = h.lms.calls.list().length;
    const response = await readiness();
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      success: true,
      checks: { lmsSessionAuthorization: true, lmsTermsAcceptanceRequired: false },
      handoffUrl: '/lti/launch',
    });
    expect(response.body).not.toContain('session_token');
    expect(response.headers['cache-control']).toContain('no-store');
    expect(h.lms.calls.list().slice(calls).map((call) => call.route)).toEqual(['GET /api/v1/login/session_token']);
  });

  // Canvas: app/controllers/login_controller.rb#session_token answers `requires_terms_acceptance`.
  it('says when the LMS will ask the student to accept its terms of use first', async () => {
    h.lms.state.termsAcceptancePending.add(3);
    try {
      const response = await readiness();
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ checks: { lmsSessionAuthorization: true, lmsTermsAcceptanceRequired: true } });
    } finally {
      h.lms.state.termsAcceptancePending.delete(3);
    }
  });

  it('refuses non-students (LTI_STUDENT_REQUIRED), missing grants and cross-site requests', async () => {
    const teacher = await readiness(instructor());
    expect(teacher.statusCode).toBe(403);
    expect(teacher.json()).toMatchObject({ error_code: 'LTI_STUDENT_REQUIRED' });
    const none = await h.app.inject({ method: 'POST', url: '/api/exb/session-readiness', headers: SAME_ORIGIN, payload: {} });
    expect(none.json()).toMatchObject({ error_code: 'LTI_STUDENT_REQUIRED' });
    const unauthorized = await readiness(student({ lmsUserId: '4', ltiSubject: 'sub-4' }));
    expect(unauthorized.statusCode).toBe(403);
    expect(unauthorized.json()).toMatchObject({ error_code: 'LMS_SESSION_AUTHORIZATION_REQUIRED' });
    const crossSite = await readiness(student(), { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.statusCode).toBe(403);
  });

  it('answers 502 LMS_SESSION_READINESS_FAILED for an unexpected LMS error', async () => {
    h.lms.faults.next('GET /api/v1/login/session_token', { status: 500, times: 5 });
    try {
      const response = await readiness();
      expect(response.statusCode).toBe(502);
      expect(response.json()).toMatchObject({ error_code: 'LMS_SESSION_READINESS_FAILED' });
    } finally {
      h.lms.faults.clear();
    }
  });

  it('records the dismissal per LMS user', async () => {
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/exb/session-readiness/dismiss',
      headers: { cookie: h.session(student()).cookie, ...SAME_ORIGIN },
      payload: {},
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true });
    const rows = await h.t.db.orm.em.getConnection().execute(`select lms_user_id from exb_session_readiness`);
    expect(rows).toEqual([{ lms_user_id: '3' }]);
    const teacher = await h.app.inject({
      method: 'POST',
      url: '/api/exb/session-readiness/dismiss',
      headers: { cookie: h.session(instructor()).cookie, ...SAME_ORIGIN },
      payload: {},
    });
    expect(teacher.statusCode).toBe(403);
  });
});

describe('GET /exb/quiz/:courseId/:quizId', () => {
  const view = (path: string, principal = student()) =>
    h.app.inject({ method: 'GET', url: path, headers: { cookie: h.session(principal).cookie } });

  it('renders the required-browser view with an action token that mints a grant', async () => {
    const response = await view(`/exb/quiz/${COURSE}/${QUIZ}?lms_url=${encodeURIComponent(`${LMS}/courses/101/quizzes/201`)}&user_id=3`);
    expect(response.statusCode).toBe(200);
    const data = bootstrapOf(response.body);
    expect(data).toMatchObject({
      view: 'exb-required',
      courseId: COURSE,
      contentId: QUIZ,
      assessmentKind: 'classic',
      lmsUserId: '3',
      requestedUserId: '3',
      assessmentUrl: `${LMS}/courses/101/quizzes/201`,
      lmsReturnUrl: `${LMS}/courses/101/quizzes/201`,
      actionToken: expect.stringMatching(/^v1\.config-grant\.\d+\.[A-Za-z0-9_-]{43}$/),
    });
    const grant = await h.grant(student(), QUIZ, { actionToken: data.actionToken });
    expect(grant.statusCode).toBe(200);
  });

  it('redirects to the LMS when enforcement is not required, to a validated lms_url only', async () => {
    const free = await view(`/exb/quiz/${COURSE}/classicquiz_202?lms_url=${encodeURIComponent('https://evil.example/phish')}`);
    expect(free.statusCode).toBe(302);
    expect(free.headers.location).toBe(`${LMS}/courses/101/quizzes/202`);
    const back = await view(`/exb/quiz/${COURSE}/classicquiz_202?lms_url=${encodeURIComponent(`${LMS}/courses/101/quizzes/202?module_item_id=5`)}`);
    expect(back.headers.location).toBe(`${LMS}/courses/101/quizzes/202?module_item_id=5`);
  });

  it('refuses new quizzes with 403 and malformed ids with 404', async () => {
    expect((await view(`/exb/quiz/${COURSE}/${NEW_QUIZ}`)).statusCode).toBe(403);
    expect((await view(`/exb/quiz/${COURSE}/201`)).statusCode).toBe(404);
  });

  // Canvas: ExternalToolsController#retrieve launches the tool whose domain matches `url`, with `url` as the target.
  it('sends a browser without a session of this course through an LTI launch from the LMS that targets the assessment', async () => {
    const launch = `${LMS}/courses/101/external_tools/retrieve?url=${encodeURIComponent(`${SERVICE}/exb/launch/${QUIZ}`)}`;
    const none = await h.app.inject({ method: 'GET', url: `/exb/quiz/${COURSE}/${QUIZ}?lms_url=${encodeURIComponent(TAKE_URL)}` });
    expect(none.statusCode).toBe(302);
    expect(none.headers.location).toBe(launch);
    expect(none.headers['cache-control']).toBe('no-store');
    const otherCourse = await view(`/exb/quiz/${COURSE}/${QUIZ}`, student({ courseId: '102' }));
    expect(otherCourse.statusCode).toBe(302);
    expect(otherCourse.headers.location).toBe(launch);
    const newQuiz = await h.app.inject({ method: 'GET', url: `/exb/new-quiz/${COURSE}/${NEW_QUIZ}` });
    expect(newQuiz.headers.location).toBe(`${LMS}/courses/101/external_tools/retrieve?url=${encodeURIComponent(`${SERVICE}/exb/launch/${NEW_QUIZ}`)}`);
  });
});

describe('GET /exb/new-quiz/:courseId/:contentId', () => {
  const view = (path: string, principal = student()) =>
    h.app.inject({ method: 'GET', url: path, headers: { cookie: h.session(principal).cookie } });

  it('renders the same required-browser view for a new quiz, whose action token mints its grant', async () => {
    const assignment = `${LMS}/courses/101/assignments/301`;
    const response = await view(`/exb/new-quiz/${COURSE}/${NEW_QUIZ}?lms_url=${encodeURIComponent(assignment)}`);
    expect(response.statusCode).toBe(200);
    const data = bootstrapOf(response.body);
    expect(data).toMatchObject({
      view: 'exb-required',
      courseId: COURSE,
      contentId: NEW_QUIZ,
      assessmentKind: 'newquiz',
      assessmentUrl: assignment,
      lmsReturnUrl: assignment,
      actionToken: expect.stringMatching(/^v1\.config-grant\./),
    });
    expect((await h.grant(student(), NEW_QUIZ, { actionToken: data.actionToken })).statusCode).toBe(200);
  });

  it('redirects to the assignment when the new quiz needs no exam browser', async () => {
    const free = await view(`/exb/new-quiz/${COURSE}/newquiz:101:302`);
    expect(free.statusCode).toBe(302);
    expect(free.headers.location).toBe(`${LMS}/courses/101/assignments/302`);
  });

  it('takes new quizzes of this course only: classic quizzes, other courses and malformed ids are unknown addresses', async () => {
    for (const path of [`/exb/new-quiz/${COURSE}/${QUIZ}`, `/exb/new-quiz/102/${NEW_QUIZ}`, `/exb/new-quiz/${COURSE}/newquiz:101:x`]) {
      expect((await view(path)).statusCode, path).toBe(404);
    }
    // A session of another course goes through the LMS's launch of this course, as a missing one does.
    expect((await view(`/exb/new-quiz/${COURSE}/${NEW_QUIZ}`, student({ courseId: '102' }))).statusCode).toBe(302);
  });
});

describe('GET /exb/launch-handoff', () => {
  it('serves the sebs:// launch URL once, then only the course return link', async () => {
    const grant = await h.grant(student(), QUIZ, {
      actionToken: h.actionTokens.issue(h.session(student()).session, 'config-grant'),
      handoffPurpose: 'student-list',
    });
    const { handoffUrl, exbLaunchUrl } = grant.json() as { handoffUrl: string; exbLaunchUrl: string };
    const first = await h.app.inject({ method: 'GET', url: handoffUrl });
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.headers['referrer-policy']).toBe('no-referrer');
    expect(bootstrapOf(first.body)).toEqual({
      view: 'exb-launch-handoff',
      available: true,
      exbLaunchUrl,
      lmsReturnUrl: `${LMS}/courses/101`,
      purpose: 'student-list',
      locale: 'en',
    });
    expect(first.body).toContain('Back to the quiz list');
    expect(exbLaunchUrl).toMatch(/^sebs:\/\//);
    expect(first.body).toContain(`href="${exbLaunchUrl}"`);
    expect(first.body).not.toMatch(/exbs?:\/\//);
    const second = await h.app.inject({ method: 'GET', url: handoffUrl });
    expect(second.statusCode).toBe(200);
    expect(second.body).not.toMatch(/(?:exbs?|sebs?):\/\//);
    expect(bootstrapOf(second.body)).toEqual({ view: 'exb-launch-handoff', available: false, lmsReturnUrl: `${LMS}/courses/101`, locale: 'en' });
    // The handoff did not spend the grant; the exam browser still downloads once.
    const download = await h.app.inject({ method: 'GET', url: downloadPathOf(exbLaunchUrl) });
    expect(download.statusCode, download.body).toBe(200);
    expect(openConfiguration(download.rawPayload, h.identity).configKey).toMatch(/^[0-9a-f]{64}$/);
  });

  it('labels an assessment handoff, and stops serving it at 120 seconds', async () => {
    const { handoffUrl } = (await h.grant(student(), QUIZ, {
      actionToken: h.actionTokens.issue(h.session(student()).session, 'config-grant'),
      handoffPurpose: 'anything',
    })).json() as { handoffUrl: string };
    h.clock.advance(120);
    try {
      const late = await h.app.inject({ method: 'GET', url: handoffUrl });
      expect(late.statusCode).toBe(200);
      expect(bootstrapOf(late.body)).toMatchObject({ available: false });
    } finally {
      h.clock.advance(-120);
    }
    const { handoffUrl: fresh } = (await h.grant()).json() as { handoffUrl: string };
    expect(bootstrapOf((await h.app.inject({ method: 'GET', url: fresh })).body)).toMatchObject({ available: true, purpose: 'assessment' });
  });

  it('answers 404 for a missing, malformed or unknown key', async () => {
    for (const query of ['', '?key=', '?key=abc', `?key=${'A'.repeat(43)}`]) {
      const response = await h.app.inject({ method: 'GET', url: `/exb/launch-handoff${query}` });
      expect(response.statusCode, query).toBe(404);
      expect(response.body).not.toMatch(/(?:exbs?|sebs?):\/\//);
    }
  });
});

describe('the exam browser\'s scheme in what the service sends', () => {
  /**
   * The contract's `exbs://` stands for the scheme the exam browser registers; a stock Safe Exam Browser registers only
   * `sebs://` and `seb://`. Every response on a student's way to the exam browser is scanned, headers included.
   */
  it('starts the exam browser only through sebs:// and never sends an exb(s):// URL', async () => {
    const texts: string[] = [];
    const launches: string[] = [];
    const send = async (method: 'GET' | 'HEAD' | 'POST', url: string, principal = student(), payload?: Record<string, unknown>) => {
      const s = h.session(principal);
      const response = await h.app.inject({ method, url, headers: { cookie: s.cookie, ...SAME_ORIGIN }, ...(payload ? { payload } : {}) });
      expect(response.statusCode, `${url}: ${response.body.slice(0, 300)}`).toBeLessThan(400);
      texts.push(JSON.stringify(response.headers), response.rawPayload.toString('latin1'));
      return response;
    };
    const lmsUrl = encodeURIComponent(`${LMS}/courses/101/quizzes/201`);
    await send('GET', `/exb/quiz/${COURSE}/${QUIZ}?lms_url=${lmsUrl}&user_id=3`);
    await send('GET', `/exb/new-quiz/${COURSE}/${NEW_QUIZ}?lms_url=${encodeURIComponent(`${LMS}/courses/101/assignments/301`)}`);
    for (const contentId of [QUIZ, NEW_QUIZ]) {
      const s = h.session(student());
      const grant = await send('POST', `/api/exb/config-grant/${COURSE}/${encodeURIComponent(contentId)}`, student(), {
        actionToken: h.actionTokens.issue(s.session, 'config-grant'),
      });
      const { exbLaunchUrl, handoffUrl } = grant.json() as { exbLaunchUrl: string; handoffUrl: string };
      launches.push(exbLaunchUrl);
      await send('GET', handoffUrl);
      await send('HEAD', downloadPathOf(exbLaunchUrl));
      await send('GET', downloadPathOf(exbLaunchUrl));
    }
    const check = await send('GET', '/exb/check');
    launches.push(bootstrapOf(check.body).launchUrl as string);
    await send('GET', '/exb/check/config.seb');

    expect(launches).toEqual([
      expect.stringMatching(/^sebs:\/\/tool\.example\.test\/exb\/config\/101\/classicquiz_201\.seb\?grant=/),
      expect.stringMatching(/^sebs:\/\/tool\.example\.test\/exb\/config\/101\/newquiz:101:301\.seb\?grant=/),
      'sebs://tool.example.test/exb/check/config.seb',
    ]);
    for (const text of texts) expect(text).not.toMatch(/exbs?:\/\//i);
  });
});

// Last: the LMS double's interception is process-wide, so a second harness runs after the first is done with it.
describe('readiness without the LMS API', () => {
  let bare: StudentHarness;
  beforeAll(async () => {
    bare = await createStudentHarness({ withoutLmsApi: true });
    await bare.enforce(QUIZ);
  });
  afterAll(() => bare.close());

  it('answers 503 LMS_SESSION_UNAVAILABLE, and students get the configuration that starts at the quiz', async () => {
    const response = await bare.app.inject({
      method: 'POST',
      url: '/api/exb/session-readiness',
      headers: { cookie: bare.session(student()).cookie, ...SAME_ORIGIN },
      payload: {},
    });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ error_code: 'LMS_SESSION_UNAVAILABLE' });
    const { opened } = await bare.start(student({ lmsUserId: '4', ltiSubject: 'sub-4' }));
    expect(opened.startUrl).toBe(`${LMS}/courses/101/quizzes/201`);
    expect((await bare.prove(QUIZ, opened.configKey)).statusCode).toBe(200);
  });
});
