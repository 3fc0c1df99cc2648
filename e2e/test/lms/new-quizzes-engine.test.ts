import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMockLms, type MockLms, type RunningLmsServer } from '../../src/lms/index.js';
import { NEW_QUIZZES_LAUNCH_LIFETIME_MS } from '../../src/lms/new-quizzes/engine.js';
import { TOOL } from './helpers.js';

/**
 * The New Quizzes engine on an origin of its own, as Canvas launches it into an assignment's tool frame
 * (`app/controllers/application_controller.rb#content_tag_redirect`, `app/views/lti/_lti_message.html.erb`), with
 * the access-code prompt inside the engine.
 */
let lms: MockLms;
let lmsServer: RunningLmsServer;
let engine: RunningLmsServer;

beforeAll(async () => {
  lms = createMockLms({ baseUrl: 'http://localhost:0', tool: TOOL });
  lmsServer = await lms.startHttpServer({ port: 0 });
  engine = await lms.startNewQuizzesServer({ origin: 'http://127.0.0.1:0', port: 0 });
});
afterAll(async () => {
  await engine?.close();
  await lmsServer?.close();
});
afterEach(() => lms.reset());

const CODE = 'nq-7731';

function requireCode(code: string | null) {
  const settings = lms.state.assignments.get(301)!.newQuiz!.quizSettings;
  settings.require_student_access_code = code !== null;
  settings.student_access_code = code;
}

/** The assignment page as the student's browser gets it, and the launch it posts into the frame. */
async function assignmentLaunch(): Promise<{ html: string; action: string; hint: string }> {
  const html = await (await fetch(`${lms.baseUrl}/courses/101/assignments/301`, { headers: { cookie: lms.webSessionCookie('student1') } })).text();
  const form = /<form action="([^"]+)" method="POST" id="tool_form" target="tool_content"[^>]*>\s*<input type="hidden" name="lti_message_hint" value="([^"]+)">/.exec(html);
  if (!form) throw new Error(`no launch form in ${html}`);
  return { html, action: form[1]!.replace(/&amp;/g, '&'), hint: form[2]! };
}

async function post(url: string, fields: Record<string, string>): Promise<Response> {
  return fetch(url, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' });
}

describe('the New Quizzes engine', () => {
  it('runs on another origin than the LMS, which the assignment page posts its launch to, into the tool frame', async () => {
    expect(new URL(engine.url).origin).not.toBe(new URL(lms.baseUrl).origin);
    expect(lms.newQuizzes.url).toBe(engine.url);
    const { html, action } = await assignmentLaunch();
    expect(action).toBe(`${engine.url}/lti/login`);
    // The frame precedes the form that posts into it.
    expect(html.indexOf('id="tool_content"')).toBeLessThan(html.indexOf('id="tool_form"'));
    // The engine serves none of the LMS's pages.
    expect((await fetch(`${engine.url}/courses/101/assignments/301`)).status).toBe(404);
  });

  it('asks for the access code, accepts only the quiz’s code and then opens the quiz', async () => {
    requireCode(CODE);
    const { action, hint } = await assignmentLaunch();
    const launched = await post(action, { lti_message_hint: hint });
    expect(launched.status).toBe(303);
    const quizUrl = new URL(launched.headers.get('location')!, engine.url).href;
    const prompt = await (await fetch(quizUrl)).text();
    expect(prompt).toContain('This quiz requires an access code.');
    expect(prompt).toMatch(/<input id="new_quiz_access_code_input" type="password" name="access_code"/);
    expect(prompt).not.toContain(CODE);

    for (const wrong of ['', 'nq-7732', CODE.toUpperCase(), `${CODE} `]) {
      const refused = await post(`${quizUrl}/access-code`, { access_code: wrong });
      expect(refused.status, wrong).toBe(200);
      expect(await refused.text(), wrong).toContain('The access code is not correct.');
    }
    expect(await (await post(`${quizUrl}/submit`, {})).text()).toContain('This quiz requires an access code.');

    const accepted = await post(`${quizUrl}/access-code`, { access_code: CODE });
    expect(accepted.status).toBe(303);
    const quiz = await (await fetch(quizUrl)).text();
    expect(quiz).toContain('Question 1: explain your answer.');

    // A code changed afterwards asks again.
    requireCode('another-code');
    expect(await (await fetch(quizUrl)).text()).toContain('This quiz requires an access code.');
  });

  it('opens a quiz without a code at once', async () => {
    requireCode(null);
    const { action, hint } = await assignmentLaunch();
    const launched = await post(action, { lti_message_hint: hint });
    expect(await (await fetch(new URL(launched.headers.get('location')!, engine.url))).text()).toContain('Question 1');
  });

  it('turns a submitted quiz in as the assignment’s submission, which the submissions API then shows', async () => {
    requireCode(null);
    const { action, hint } = await assignmentLaunch();
    const launched = await post(action, { lti_message_hint: hint });
    const quizUrl = new URL(launched.headers.get('location')!, engine.url).href;
    expect(lms.state.assignmentSubmission(301, 3).workflowState).toBe('unsubmitted');
    const before = lms.clock.now();
    expect((await post(`${quizUrl}/submit`, {})).status).toBe(303);
    const submission = lms.state.assignmentSubmission(301, 3);
    expect(submission).toMatchObject({ workflowState: 'submitted', attempt: 1 });
    expect(Date.parse(submission.submittedAt!)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(submission.submittedAt!)).toBeLessThanOrEqual(lms.clock.now());
  });

  it('takes each launch once, within five minutes, and only as the LMS signed it', async () => {
    const first = await assignmentLaunch();
    expect((await post(first.action, { lti_message_hint: first.hint })).status).toBe(303);
    expect((await post(first.action, { lti_message_hint: first.hint })).status).toBe(401);

    const late = await assignmentLaunch();
    lms.clock.advance(NEW_QUIZZES_LAUNCH_LIFETIME_MS + 1000);
    expect((await post(late.action, { lti_message_hint: late.hint })).status).toBe(401);

    const forged = await assignmentLaunch();
    const [payload] = forged.hint.split('.');
    expect((await post(forged.action, { lti_message_hint: `${payload}.AAAA` })).status).toBe(401);
    expect((await fetch(`${engine.url}/sessions/unknown`)).status).toBe(404);
  });
});
