import { describe, expect, it } from 'vitest';
import { TOOL, api, tokenFor, useInProcessLms } from './helpers.js';
import { readForm } from './lti-helpers.js';

const { lms } = useInProcessLms();

async function page(path: string, cookie?: string, init: { method?: string; form?: Record<string, string> } = {}) {
  return fetch(`${lms.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(cookie ? { cookie } : {}),
      ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    ...(init.form ? { body: new URLSearchParams(init.form) } : {}),
    redirect: 'manual',
  });
}

function csrfOf(html: string): string {
  return /"AUTHENTICITY_TOKEN":"([^"]+)"/.exec(html)![1]!;
}

const THEME = `<script src="${TOOL.themeJavaScriptUrl}"></script>`;

describe('classic quiz take page', () => {
  it('prompts for the access code exactly as the LMS does, until the right code is entered', async () => {
    const cookie = lms.webSessionCookie('student1');
    const show = await (await page('/courses/101/quizzes/204', cookie)).text();
    expect(show).toContain('<a href="/courses/101/quizzes/204/take?user_id=3" id="take_quiz_link" class="btn btn-primary" data-method="post">');
    const csrf = csrfOf(show);

    const prompt = await (await page('/courses/101/quizzes/204/take?user_id=3', cookie, { method: 'POST', form: { authenticity_token: csrf } })).text();
    expect(prompt).toContain('<form class="access_code_form" action="/courses/101/quizzes/204/take?user_id=3" method="post">');
    expect(prompt).toContain('<input type="password" name="access_code" id="quiz_access_code" title="Access Code:">');
    expect(prompt).toContain(`<input type="hidden" name="authenticity_token" value="${csrf}">`);
    expect(prompt).not.toContain('submit_quiz_form');

    const wrong = await (await page('/courses/101/quizzes/204/take?user_id=3', cookie, {
      method: 'POST',
      form: { authenticity_token: csrf, access_code: 'nope' },
    })).text();
    expect(wrong).toContain('class="access_code_form"');
    expect(wrong).not.toMatch(/incorrect|invalid/i);

    const right = await (await page('/courses/101/quizzes/204/take?user_id=3', cookie, {
      method: 'POST',
      form: { utf8: '✓', authenticity_token: csrf, access_code: 'lab-2026' },
    })).text();
    expect(right).toContain('id="submit_quiz_form"');
    expect(right).not.toContain('access_code_form');

    // The session remembers the code until the code changes.
    expect(await (await page('/courses/101/quizzes/204/take?user_id=3', cookie)).text()).toContain('id="submit_quiz_form"');
    lms.state.quizzes.get(204)!.accessCode = 'rotated';
    expect(await (await page('/courses/101/quizzes/204/take?user_id=3', cookie)).text()).toContain('class="access_code_form"');
  });

  // Canvas `config/routes.rb`: `get "take/questions/:question_id" => "quizzes/quizzes#show", take: "1"`.
  it('serves a one-question-at-a-time page through the same take checks, with the theme script', async () => {
    const cookie = lms.webSessionCookie('student1');
    const prompt = await (await page('/courses/101/quizzes/204/take/questions/3', cookie)).text();
    expect(prompt).toContain('class="access_code_form"');
    expect(prompt).toContain(THEME);
    const csrf = csrfOf(prompt);
    await page('/courses/101/quizzes/204/take?user_id=3', cookie, { method: 'POST', form: { authenticity_token: csrf, access_code: 'lab-2026' } });
    const question = await (await page('/courses/101/quizzes/204/take/questions/3', cookie)).text();
    expect(question).toContain('id="submit_quiz_form"');
    expect((await page('/courses/104/quizzes/206/take/questions/3', cookie)).status).toBe(401);
  });

  it('never prompts for a blank code', async () => {
    const cookie = lms.webSessionCookie('student1');
    lms.state.quizzes.get(204)!.accessCode = '';
    expect(await (await page('/courses/101/quizzes/204/take', cookie)).text()).toContain('id="submit_quiz_form"');
  });

  it('rejects a form post without the authenticity token', async () => {
    const cookie = lms.webSessionCookie('student1');
    const response = await page('/courses/101/quizzes/204/take?user_id=3', cookie, { method: 'POST', form: { access_code: 'lab-2026' } });
    expect(response.status).toBe(422);
  });

  it('records a submission and shows its result page', async () => {
    const cookie = lms.webSessionCookie('student1');
    const taking = await (await page('/courses/101/quizzes/201/take', cookie)).text();
    const submitted = await page('/courses/101/quizzes/201/submissions?user_id=3', cookie, { method: 'POST', form: { authenticity_token: csrfOf(taking) } });
    expect(submitted.status).toBe(302);
    const result = await (await page(submitted.headers.get('location')!, cookie)).text();
    expect(result).toContain('id="quiz_submission_results"');
    expect(lms.state.quizSubmissions.size).toBe(1);
  });

  it('keeps people out of quizzes they may not take', async () => {
    expect((await page('/courses/104/quizzes/206/take', lms.webSessionCookie('student1'))).status).toBe(401);
    expect((await page('/courses/101/quizzes/203', lms.webSessionCookie('student1'))).status).toBe(404);
    const anonymous = await page('/courses/101/quizzes/201/take');
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get('location')).toBe('/login?return_to=%2Fcourses%2F101%2Fquizzes%2F201%2Ftake');
  });
});

describe('theme JavaScript', () => {
  it('is included on every application page unless global_includes=0', async () => {
    const cookie = lms.webSessionCookie('student1');
    for (const path of ['/', '/courses/101', '/courses/101/quizzes/201', '/courses/101/quizzes/204/take', '/courses/101/assignments/301']) {
      const html = await (await page(path, cookie)).text();
      expect(html.trimEnd().endsWith(`${THEME}\n</body>\n</html>`), path).toBe(true);
    }
    expect(await (await page('/courses/101/quizzes/201?global_includes=0', cookie)).text()).not.toContain(THEME);
    lms.state.themeJavaScriptUrl = null;
    expect(await (await page('/courses/101/quizzes/201', cookie)).text()).not.toContain('<script src=');
  });
});

describe('new-quiz assignment page', () => {
  it('renders the tool frame, and says so when the New Quizzes engine it launches is not running', async () => {
    const html = await (await page('/courses/101/assignments/301', lms.webSessionCookie('student1'))).text();
    expect(html).toMatch(/<iframe id="tool_content" name="tool_content"/);
    expect(html).toContain('"ASSIGNMENT_ID":"301"');
    expect(html).toContain('The New Quizzes engine of this development LMS is not running');
  });

  it('sends a classic quiz assignment to the quiz page', async () => {
    const response = await page('/courses/101/assignments/311', lms.webSessionCookie('student1'));
    expect(response.headers.get('location')).toBe('/courses/101/quizzes/201');
  });
});

describe('session token hand-off', () => {
  it('logs a browser in from the API session URL and drops the token from the address', async () => {
    const token = tokenFor(lms, 'student2');
    const returnTo = `${lms.baseUrl}/courses/101/quizzes/201/take?user_id=4`;
    const { session_url } = (await (await api(lms, token, `/api/v1/login/session_token?return_to=${encodeURIComponent(returnTo)}`)).json()) as {
      session_url: string;
    };
    const first = await fetch(session_url, { redirect: 'manual' });
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toBe('/courses/101/quizzes/201/take?user_id=4');
    const cookie = first.headers.get('set-cookie')!.split(';')[0]!;
    const html = await (await page(first.headers.get('location')!, cookie)).text();
    expect(html).toContain('Logged in as <strong>Sue Student</strong>');
  });

  // Canvas: lib/session_token.rb (VALIDITY_PERIOD = 30, valid? compares created_at with the server's clock).
  it('ignores a session token older than 30 seconds: 35 seconds after minting it lands on the login page', async () => {
    const token = tokenFor(lms, 'student2');
    const { session_url } = (await (await api(lms, token, `/api/v1/login/session_token?return_to=${encodeURIComponent(`${lms.baseUrl}/courses/101`)}`)).json()) as {
      session_url: string;
    };
    lms.clock.advance(35_000);
    const response = await fetch(session_url, { redirect: 'manual' });
    expect(response.headers.get('location')).toMatch(/^\/login\?return_to=/);
  });

  it('accepts a session token more than once within its 30 seconds, as Canvas does', async () => {
    const token = tokenFor(lms, 'student2');
    const { session_url } = (await (await api(lms, token, `/api/v1/login/session_token?return_to=${encodeURIComponent(`${lms.baseUrl}/courses/101`)}`)).json()) as {
      session_url: string;
    };
    for (const wait of [0, 28_000]) {
      lms.clock.advance(wait);
      const response = await fetch(session_url, { redirect: 'manual' });
      expect(response.headers.get('location')).toBe('/courses/101');
      expect(response.headers.get('set-cookie')).toMatch(/^canvas_session=/);
    }
  });
});

describe('tool placements', () => {
  it('hosts the login initiation in the tool frame of a course page', async () => {
    const html = await (await page('/courses/101/external_tools/1', lms.webSessionCookie('instructor'))).text();
    expect(html).toContain('<iframe id="tool_content" name="tool_content"');
    const form = readForm(html);
    expect(form.action).toBe(`${TOOL.baseUrl}/lti/login`);
    expect(html).toMatch(/<form [^>]*target="tool_content"/);
    expect(form.fields).toMatchObject({ iss: lms.issuer, client_id: TOOL.clientId, target_link_uri: `${TOOL.baseUrl}/lti/launch` });
  });

  it('offers account navigation to account administrators, the sub-account’s by its URL', async () => {
    expect((await page('/accounts/1/external_tools/1', lms.webSessionCookie('administrator'))).status).toBe(200);
    expect((await page('/accounts/1/external_tools/1', lms.webSessionCookie('instructor'))).status).toBe(401);
    expect((await page('/accounts/1/external_tools/1', lms.webSessionCookie('subaccount-admin'))).status).toBe(401);
    // `root_account_only` hides the tab in sub-accounts, but the tool's URL still launches there, in that account.
    const sub = await page('/accounts/2/external_tools/1', lms.webSessionCookie('subaccount-admin'));
    expect(sub.status).toBe(200);
    expect(readForm(await sub.text()).fields.target_link_uri).toBe(`${TOOL.baseUrl}/lti/launch`);
    expect((await page('/accounts/2/external_tools/1?resource_link_id=x', lms.webSessionCookie('subaccount-admin'))).status).toBe(404);
  });

  // Canvas: app/controllers/external_tools_controller.rb#retrieve launches with `launch_url: params[:url]`.
  it('launches an assessment link to /exb/launch/:contentId, classic or new quiz', async () => {
    for (const contentId of ['classicquiz_201', 'newquiz:101:301']) {
      const url = encodeURIComponent(`${TOOL.baseUrl}/exb/launch/${contentId}`);
      const html = await (await page(`/courses/101/external_tools/retrieve?url=${url}`, lms.webSessionCookie('student1'))).text();
      expect(readForm(html).fields.target_link_uri).toBe(`${TOOL.baseUrl}/exb/launch/${contentId}`);
    }
  });

  it('sends a browser without an LMS login to the login page and back to the launch', async () => {
    const url = encodeURIComponent(`${TOOL.baseUrl}/exb/launch/classicquiz_201`);
    const response = await page(`/courses/101/external_tools/retrieve?url=${url}`);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`/login?return_to=${encodeURIComponent(`/courses/101/external_tools/retrieve?url=${url}`)}`);
  });

  it('logs in from the launch page and opens the chosen placement', async () => {
    const home = await (await page('/')).text();
    expect(home).toContain('>Launch as instructor</button>');
    const response = await page('/testbed/launch', undefined, { method: 'POST', form: { person: 'instructor', placement: 'course_navigation' } });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/courses/101/external_tools/1');
    expect(response.headers.get('set-cookie')).toMatch(/^canvas_session=[^;]+; Path=\/; HttpOnly; SameSite=None; Secure$/);
  });
});
