import { describe, expect, it } from 'vitest';
import { runDetector } from '../src/detector-run.js';
import { loadExitGrant, saveExitGrant } from '../src/exit-grant-store.js';
import { PANEL_ATTRIBUTE } from '../src/panel.js';
import {
  ACCESS_CODE_PAGE,
  CLASSIC_RESULT_PAGE,
  EXIT_GRANT,
  KEY_HASH,
  LMS,
  PROOF_TOKEN,
  SERVICE,
  detectorSetup,
  settle,
  type Route,
  type RouteReply,
} from './support.js';

const COURSE = '1234';
const CLASSIC = 'classicquiz_512';
const NEWQUIZ = 'newquiz:1234:9901';
const TAKE_URL = `${LMS}/courses/${COURSE}/quizzes/512/take?user_id=55`;
const NEWQUIZ_URL = `${LMS}/courses/${COURSE}/assignments/9901`;
const TOOLS = [{ id: 'calc', label: 'Calculator', url: 'https://tools.example.edu/calc' }];

function serviceRoutes(contentId: string, overrides: Record<string, Route> = {}): Record<string, Route> {
  return {
    [`GET ${SERVICE}/api/exb/requirement/${COURSE}/${contentId}`]: () => ({ status: 200, body: { success: true, exbRequired: true } }),
    [`POST ${SERVICE}/api/exb/access-proof/${COURSE}/${contentId}`]: () => ({
      status: 200,
      body: { success: true, proofToken: PROOF_TOKEN, expiresInSeconds: 120 },
    }),
    [`POST ${SERVICE}/api/exb/access-code/${COURSE}/${contentId}`]: (req) =>
      req.headers['x-exb-proof-token'] === PROOF_TOKEN
        ? {
            status: 200,
            body: { success: true, accessCode: 'c0de', exitGrant: EXIT_GRANT, exitGrantExpiresInSeconds: 43200, tools: TOOLS },
          }
        : { status: 403, body: { success: false } },
    [`GET ${SERVICE}/api/exb/tools/${COURSE}/${contentId}`]: () => ({ status: 200, body: { success: true, tools: TOOLS } }),
    ...overrides,
  };
}

const panelOf = (doc: Document) => doc.querySelector(`[${PANEL_ATTRIBUTE}]`);

describe('detector in the exam browser on the classic take page', () => {
  it('proves, redeems and fills an unambiguous prompt', async () => {
    const { ctx, requests, forms, win } = detectorSetup({
      url: `${TAKE_URL}#section`,
      html: ACCESS_CODE_PAGE(),
      examBrowser: { configKey: KEY_HASH },
      routes: serviceRoutes(CLASSIC),
    });
    const run = await runDetector(ctx);
    expect(run.outcome).toBe('access-code-submitted');
    expect(forms.filled).toEqual(['c0de']);
    expect(forms.submitted).toBe(1);
    expect((win.document.querySelector('#quiz_access_code') as unknown as HTMLInputElement).value).toBe('c0de');

    const [proof, redeem] = requests;
    expect(requests).toHaveLength(2);
    expect(proof).toMatchObject({
      method: 'POST',
      url: `${SERVICE}/api/exb/access-proof/${COURSE}/${CLASSIC}`,
      credentials: 'omit',
      body: { configKeyHash: KEY_HASH, url: TAKE_URL },
    });
    expect(redeem).toMatchObject({
      method: 'POST',
      url: `${SERVICE}/api/exb/access-code/${COURSE}/${CLASSIC}`,
      credentials: 'omit',
    });
    expect(redeem?.headers['x-exb-proof-token']).toBe(PROOF_TOKEN);
    // Kept for the result page the LMS shows after the final submission.
    expect(loadExitGrant(ctx.storage, { courseId: COURSE, contentId: CLASSIC }, ctx.now())).toBe(EXIT_GRANT);
  });

  it('does not submit again when the LMS shows the prompt again right after an automatic submission', async () => {
    const first = detectorSetup({
      url: TAKE_URL,
      html: ACCESS_CODE_PAGE(),
      examBrowser: { configKey: KEY_HASH },
      routes: serviceRoutes(CLASSIC),
    });
    expect((await runDetector(first.ctx)).outcome).toBe('access-code-submitted');

    // The same tab reloads with the prompt (the LMS rejected the code): no second submission, a notice instead.
    const again = detectorSetup({
      url: TAKE_URL,
      html: ACCESS_CODE_PAGE(),
      examBrowser: { configKey: KEY_HASH },
      routes: serviceRoutes(CLASSIC),
    });
    again.ctx.storage?.setItem(
      `exb-code-submitted:${COURSE}:${CLASSIC}`,
      first.ctx.storage?.getItem(`exb-code-submitted:${COURSE}:${CLASSIC}`) ?? '',
    );
    expect((await runDetector(again.ctx)).outcome).toBe('access-code-not-accepted');
    expect(again.forms.submitted).toBe(0);
    expect(panelOf(again.ctx.document)?.textContent).toContain('did not accept the access code');

    // Later attempts fill again.
    const later = detectorSetup({ url: TAKE_URL, html: ACCESS_CODE_PAGE(), examBrowser: { configKey: KEY_HASH }, routes: serviceRoutes(CLASSIC) });
    later.ctx.storage?.setItem(`exb-code-submitted:${COURSE}:${CLASSIC}`, String(later.ctx.now() - 31_000));
    expect((await runDetector(later.ctx)).outcome).toBe('access-code-submitted');
  });

  it('does not fill an ambiguous prompt and shows the tools instead', async () => {
    const { ctx, forms } = detectorSetup({
      url: TAKE_URL,
      html: ACCESS_CODE_PAGE() + ACCESS_CODE_PAGE(),
      examBrowser: { configKey: KEY_HASH },
      routes: serviceRoutes(CLASSIC),
    });
    const run = await runDetector(ctx);
    run.stop();
    expect(run.outcome).toBe('active');
    expect(forms.filled).toEqual([]);
    expect(panelOf(ctx.document)?.querySelector('a')?.getAttribute('href')).toBe(TOOLS[0]?.url);
  });

  it('does not fill anything when the server released no code', async () => {
    const { ctx, forms } = detectorSetup({
      url: TAKE_URL,
      html: ACCESS_CODE_PAGE(),
      examBrowser: { configKey: KEY_HASH },
      routes: serviceRoutes(CLASSIC, {
        [`POST ${SERVICE}/api/exb/access-code/${COURSE}/${CLASSIC}`]: () => ({
          status: 200,
          body: { success: true, exitGrant: EXIT_GRANT, tools: [] },
        }),
      }),
    });
    const run = await runDetector(ctx);
    run.stop();
    expect(forms.filled).toEqual([]);
    expect(forms.submitted).toBe(0);
  });

  it('never treats page content as authorization: a failed proof leaves the prompt alone', async () => {
    const { ctx, forms, requests } = detectorSetup({
      url: TAKE_URL,
      html: ACCESS_CODE_PAGE(),
      examBrowser: { configKey: KEY_HASH },
      routes: serviceRoutes(CLASSIC, {
        [`POST ${SERVICE}/api/exb/access-proof/${COURSE}/${CLASSIC}`]: () => ({
          status: 403,
          body: { success: false, error_code: 'INVALID_EXB_CONFIG_PROOF' },
        }),
      }),
    });
    const run = await runDetector(ctx);
    expect(run.outcome).toBe('proof-rejected');
    expect(forms.filled).toEqual([]);
    expect(requests.map((r) => r.url)).toEqual([`${SERVICE}/api/exb/access-proof/${COURSE}/${CLASSIC}`]);
    expect(panelOf(ctx.document)?.textContent).toContain('fresh configuration');
  });

  it('stays quiet on network errors', async () => {
    const { ctx, forms } = detectorSetup({
      url: TAKE_URL,
      html: ACCESS_CODE_PAGE(),
      examBrowser: { configKey: KEY_HASH },
      routes: { [`POST ${SERVICE}/api/exb/access-proof/${COURSE}/${CLASSIC}`]: () => 'network-error' },
    });
    expect((await runDetector(ctx)).outcome).toBe('proof-rejected');
    expect(forms.filled).toEqual([]);
    expect(panelOf(ctx.document)).toBeNull();
  });

  it('does nothing without a usable config key', async () => {
    const { ctx, requests } = detectorSetup({ url: TAKE_URL, html: ACCESS_CODE_PAGE(), examBrowser: { configKey: 'nope' } });
    expect((await runDetector(ctx)).outcome).toBe('no-config-key');
    expect(requests).toHaveLength(0);
  });

  it('sends what it captured at start, whatever the page writes afterwards', async () => {
    const { ctx, requests, win } = detectorSetup({
      url: TAKE_URL,
      html: ACCESS_CODE_PAGE(),
      examBrowser: { configKey: KEY_HASH },
      routes: serviceRoutes(CLASSIC),
    });
    (win as unknown as { SafeExamBrowser: unknown }).SafeExamBrowser = { security: { configKey: 'f'.repeat(64) } };
    (win as unknown as { fetch: unknown }).fetch = () => Promise.reject(new Error('page fetch'));
    win.history.pushState({}, '', '/courses/1/quizzes/1/take');
    await runDetector(ctx);
    expect(requests[0]?.body).toEqual({ configKeyHash: KEY_HASH, url: TAKE_URL });
  });

  it('keeps the tools current through the tools route with credentials', async () => {
    const { ctx, requests, timers } = detectorSetup({
      url: TAKE_URL,
      html: '<form id="submit_quiz_form"></form>',
      examBrowser: { configKey: KEY_HASH },
      routes: serviceRoutes(CLASSIC, {
        [`GET ${SERVICE}/api/exb/tools/${COURSE}/${CLASSIC}`]: () => ({
          status: 200,
          body: { success: true, tools: [...TOOLS, { id: 'dict', label: 'Dictionary', url: 'https://dict.example.edu' }] },
        }),
      }),
    });
    const run = await runDetector(ctx);
    expect(panelOf(ctx.document)?.querySelectorAll('a')).toHaveLength(1);
    timers.fireIntervals();
    await settle();
    expect(panelOf(ctx.document)?.querySelectorAll('a')).toHaveLength(2);
    const refresh = requests.find((r) => r.url.includes('/api/exb/tools/'));
    expect(refresh).toMatchObject({ method: 'GET', credentials: 'include', cache: 'no-store' });
    run.stop();
    expect(timers.active).toBe(0);
  });

  it('shows the exit link when the take page renders the LMS result', async () => {
    const { ctx } = detectorSetup({
      url: TAKE_URL,
      html: CLASSIC_RESULT_PAGE,
      examBrowser: { configKey: KEY_HASH },
      routes: serviceRoutes(CLASSIC),
    });
    const run = await runDetector(ctx);
    run.stop();
    const exit = Array.from(panelOf(ctx.document)?.querySelectorAll('a') ?? []).find((a) => a.textContent === 'Exit the exam browser');
    expect(exit?.getAttribute('href')).toBe(`${SERVICE}/exb/exit/session/${COURSE}/${CLASSIC}/${EXIT_GRANT}`);
  });

  it('does not show the exit link during an attempt', async () => {
    const { ctx } = detectorSetup({
      url: TAKE_URL,
      html: '<div id="quiz_show"></div><form id="submit_quiz_form"></form>',
      examBrowser: { configKey: KEY_HASH },
      routes: serviceRoutes(CLASSIC),
    });
    const run = await runDetector(ctx);
    run.stop();
    expect(panelOf(ctx.document)?.textContent).not.toContain('Exit the exam browser');
  });
});

/** A classic quiz shown one question at a time continues at `take/questions/:question_id` (Canvas `config/routes.rb`). */
describe('detector in the exam browser on a one-question-at-a-time page', () => {
  const QUESTION_URL = `${LMS}/courses/${COURSE}/quizzes/512/take/questions/7`;

  it('proves with the question page, shows the tools and keeps the exit grant for the result page', async () => {
    const { ctx, requests } = detectorSetup({
      url: QUESTION_URL,
      html: '<div id="quiz_show"></div><form id="submit_quiz_form"></form>',
      examBrowser: { configKey: KEY_HASH },
      routes: serviceRoutes(CLASSIC),
    });
    const run = await runDetector(ctx);
    run.stop();
    expect(requests[0]).toMatchObject({
      method: 'POST',
      url: `${SERVICE}/api/exb/access-proof/${COURSE}/${CLASSIC}`,
      body: { configKeyHash: KEY_HASH, url: QUESTION_URL },
    });
    const links = Array.from(panelOf(ctx.document)?.querySelectorAll('a') ?? []);
    expect(links.map((a) => a.getAttribute('href'))).toContain('https://tools.example.edu/calc');
    expect(panelOf(ctx.document)?.textContent).not.toContain('Exit the exam browser');
    expect(loadExitGrant(ctx.storage, { courseId: COURSE, contentId: CLASSIC }, ctx.now())).toBe(EXIT_GRANT);
  });

  it('shows the exit link when the question page renders the LMS result', async () => {
    const { ctx } = detectorSetup({ url: QUESTION_URL, html: CLASSIC_RESULT_PAGE, examBrowser: { configKey: KEY_HASH }, routes: serviceRoutes(CLASSIC) });
    const run = await runDetector(ctx);
    run.stop();
    const exit = Array.from(panelOf(ctx.document)?.querySelectorAll('a') ?? []).find((a) => a.textContent === 'Exit the exam browser');
    expect(exit?.getAttribute('href')).toBe(`${SERVICE}/exb/exit/session/${COURSE}/${CLASSIC}/${EXIT_GRANT}`);
  });

  it('reminds an ordinary browser there, as on the take page', async () => {
    const { ctx, requests } = detectorSetup({ url: QUESTION_URL, html: '<div id="quiz_show"></div>', routes: serviceRoutes(CLASSIC) });
    const run = await runDetector(ctx);
    run.stop();
    expect(requests[0]?.url).toBe(`${SERVICE}/api/exb/requirement/${COURSE}/${CLASSIC}`);
    expect(panelOf(ctx.document)).not.toBeNull();
  });
});

describe('detector after a failed redemption', () => {
  const PROOF = `POST ${SERVICE}/api/exb/access-proof/${COURSE}/${CLASSIC}`;
  const REDEEM = `POST ${SERVICE}/api/exb/access-code/${COURSE}/${CLASSIC}`;
  const FRESH_PROOF_TOKEN = `${'Q'.repeat(42)}A`;
  const REDEEMED = { status: 200, body: { success: true, accessCode: 'c0de', exitGrant: EXIT_GRANT, exitGrantExpiresInSeconds: 43200, tools: [] } };

  /** Proofs answer the first token, then fresh ones; redemptions answer from `redeem` in turn. */
  function setup(redeem: RouteReply[], retryProof?: RouteReply) {
    let proofs = 0;
    return detectorSetup({
      url: TAKE_URL,
      html: ACCESS_CODE_PAGE(),
      examBrowser: { configKey: KEY_HASH },
      routes: serviceRoutes(CLASSIC, {
        [PROOF]: () => {
          proofs += 1;
          if (proofs > 1 && retryProof !== undefined) return retryProof;
          return { status: 200, body: { success: true, proofToken: proofs === 1 ? PROOF_TOKEN : FRESH_PROOF_TOKEN, expiresInSeconds: 120 } };
        },
        [REDEEM]: () => redeem.shift() ?? { status: 500, body: { success: false } },
      }),
    });
  }

  /** Runs the detector, letting its pause before the retry pass. */
  async function run(s: ReturnType<typeof setup>) {
    const running = runDetector(s.ctx);
    await settle();
    const beforePause = s.requests.length;
    s.timers.fireTimeouts();
    return { run: await running, beforePause };
  }

  it('proves again after a pause and redeems the fresh proof', async () => {
    const s = setup([{ status: 500, body: { success: false, error_code: 'INTERNAL_ERROR' } }, REDEEMED]);
    const { run: result, beforePause } = await run(s);
    expect(beforePause).toBe(2);
    expect(result.outcome).toBe('access-code-submitted');
    expect(s.forms.filled).toEqual(['c0de']);
    expect(s.requests.map((r) => `${r.method} ${r.url}`)).toEqual([PROOF, REDEEM, PROOF, REDEEM]);
    expect(s.requests.filter((r) => r.url.includes('/access-code/')).map((r) => r.headers['x-exb-proof-token'])).toEqual([
      PROOF_TOKEN,
      FRESH_PROOF_TOKEN,
    ]);
    expect(panelOf(s.ctx.document)).toBeNull();
  });

  it('tells the student to reload when the retry fails too, and leaves the prompt alone', async () => {
    const s = setup([{ status: 503, body: { success: false, error_code: 'SERVICE_UNAVAILABLE' } }, 'network-error']);
    const { run: result } = await run(s);
    expect(result.outcome).toBe('redemption-failed');
    expect(s.requests).toHaveLength(4);
    expect(s.forms.filled).toEqual([]);
    const panel = panelOf(s.ctx.document);
    expect(panel?.querySelector('h2')?.textContent).toBe('Access code not available');
    expect(panel?.textContent).toContain('Reload this page to try again.');
  });

  it('tells the student to reload when the fresh proof cannot be had', async () => {
    const s = setup(['network-error'], 'network-error');
    const { run: result } = await run(s);
    expect(result.outcome).toBe('redemption-failed');
    expect(s.requests.map((r) => `${r.method} ${r.url}`)).toEqual([PROOF, REDEEM, PROOF]);
    expect(panelOf(s.ctx.document)?.textContent).toContain('Reload this page');
  });

  it('says the configuration does not match when the fresh proof is refused for it', async () => {
    const s = setup([{ status: 403, body: { success: false } }], { status: 403, body: { success: false, error_code: 'INVALID_EXB_CONFIG_PROOF' } });
    const { run: result } = await run(s);
    expect(result.outcome).toBe('proof-rejected');
    expect(panelOf(s.ctx.document)?.textContent).toContain('fresh configuration');
    expect(s.forms.filled).toEqual([]);
  });
});

describe('detector on the classic result page', () => {
  const RESULT_URL = `${LMS}/courses/${COURSE}/quizzes/512`;

  it('shows the exit link from the grant redeemed on the take page', async () => {
    const { ctx, requests } = detectorSetup({ url: RESULT_URL, html: CLASSIC_RESULT_PAGE, examBrowser: { configKey: KEY_HASH } });
    saveExitGrant(ctx.storage, { courseId: COURSE, contentId: CLASSIC }, EXIT_GRANT, 43200, ctx.now());
    expect((await runDetector(ctx)).outcome).toBe('result-page');
    expect(panelOf(ctx.document)?.querySelector('a')?.getAttribute('href')).toBe(
      `${SERVICE}/exb/exit/session/${COURSE}/${CLASSIC}/${EXIT_GRANT}`,
    );
    expect(requests).toHaveLength(0);
  });

  it('shows nothing without LMS result evidence, a stored grant, or a fresh grant', async () => {
    const noResult = detectorSetup({ url: RESULT_URL, html: '<div id="quiz_show"></div>', examBrowser: { configKey: KEY_HASH } });
    saveExitGrant(noResult.ctx.storage, { courseId: COURSE, contentId: CLASSIC }, EXIT_GRANT, 43200, noResult.ctx.now());
    await runDetector(noResult.ctx);
    expect(panelOf(noResult.ctx.document)).toBeNull();

    const noGrant = detectorSetup({ url: RESULT_URL, html: CLASSIC_RESULT_PAGE, examBrowser: { configKey: KEY_HASH } });
    await runDetector(noGrant.ctx);
    expect(panelOf(noGrant.ctx.document)).toBeNull();

    const expired = detectorSetup({ url: RESULT_URL, html: CLASSIC_RESULT_PAGE, examBrowser: { configKey: KEY_HASH } });
    saveExitGrant(expired.ctx.storage, { courseId: COURSE, contentId: CLASSIC }, EXIT_GRANT, 10, expired.ctx.now() - 20_000);
    await runDetector(expired.ctx);
    expect(panelOf(expired.ctx.document)).toBeNull();

    const planted = detectorSetup({ url: RESULT_URL, html: CLASSIC_RESULT_PAGE, examBrowser: { configKey: KEY_HASH } });
    planted.ctx.storage?.setItem(`exb-exit-grant:${COURSE}:${CLASSIC}`, JSON.stringify({ grant: '../../evil', expiresAt: 9e15 }));
    await runDetector(planted.ctx);
    expect(panelOf(planted.ctx.document)).toBeNull();
  });

  it('tells an ordinary browser on the quiz page that the exam browser is required, and proves nothing there', async () => {
    const { ctx, requests } = detectorSetup({ url: RESULT_URL, html: CLASSIC_RESULT_PAGE, routes: serviceRoutes(CLASSIC) });
    expect((await runDetector(ctx)).outcome).toBe('exam-browser-required');
    expect(requests.map((request) => request.url)).toEqual([`${SERVICE}/api/exb/requirement/${COURSE}/${CLASSIC}`]);
    const panel = panelOf(ctx.document);
    expect(panel?.querySelector('h2')?.textContent).toBe('Secure exam browser required');
    expect(panel?.querySelector('a')?.getAttribute('href')).toBe(
      `${SERVICE}/exb/quiz/${COURSE}/${CLASSIC}?lms_url=${encodeURIComponent(RESULT_URL)}`,
    );
  });
});

describe('detector in the exam browser on a new quiz page', () => {
  const SUBMISSION = `GET ${LMS}/api/v1/courses/${COURSE}/assignments/9901/submissions/self`;

  it('shows tools, then the exit link once the LMS records the submission', async () => {
    let submitted = false;
    const { ctx, timers, requests } = detectorSetup({
      url: NEWQUIZ_URL,
      html: '<iframe id="tool_content" name="tool_content"></iframe>',
      examBrowser: { configKey: KEY_HASH },
      routes: serviceRoutes(NEWQUIZ, {
        [SUBMISSION]: () => ({
          status: 200,
          text: `while(1);${JSON.stringify(
            submitted ? { workflow_state: 'submitted', submitted_at: '2026-03-01T10:00:00Z' } : { workflow_state: 'unsubmitted', submitted_at: null },
          )}`,
        }),
      }),
    });
    const run = await runDetector(ctx);
    await settle();
    expect(run.outcome).toBe('active');
    expect(panelOf(ctx.document)?.textContent).toContain('Calculator');
    expect(panelOf(ctx.document)?.textContent).not.toContain('Exit the exam browser');
    // The engine's prompt is out of reach: the released code is in the panel, masked, for the student to type.
    expect(panelOf(ctx.document)?.querySelector('h2')?.textContent).toBe('Access code for this quiz');
    expect(panelOf(ctx.document)?.textContent).not.toContain('c0de');
    // In the page's flow right above the quiz frame, so it never covers the prompt the student types into.
    expect(panelOf(ctx.document)?.nextElementSibling?.id).toBe('tool_content');
    expect(panelOf(ctx.document)?.getAttribute('style')).not.toContain('position:fixed');
    Array.from(panelOf(ctx.document)?.querySelectorAll('button') ?? []).find((b) => b.textContent === 'Show the code')?.click();
    expect(panelOf(ctx.document)?.querySelector('#exb-access-code-value')?.textContent).toBe('c0de');
    // Released once: one proof, one redemption, nothing kept in storage.
    expect(requests.filter((r) => r.url.includes('/api/exb/access-code/'))).toHaveLength(1);
    expect(JSON.stringify({ ...ctx.storage })).not.toContain('c0de');

    submitted = true;
    timers.fireIntervals();
    await settle();
    const exit = Array.from(panelOf(ctx.document)?.querySelectorAll('a') ?? []).find((a) => a.textContent === 'Exit the exam browser');
    expect(exit?.getAttribute('href')).toBe(`${SERVICE}/exb/exit/session/${COURSE}/${encodeURI(NEWQUIZ)}/${EXIT_GRANT}`);
    expect(panelOf(ctx.document)?.querySelector('[data-exb-access-code]')).toBeNull();
    expect(requests.filter((r) => r.url.startsWith(LMS)).every((r) => r.credentials === 'same-origin')).toBe(true);
    expect(requests.filter((r) => r.url.startsWith(SERVICE) && !r.url.includes('/tools/')).every((r) => r.credentials === 'omit')).toBe(true);
    run.stop();
  });

  it('shows no code panel when the service released none', async () => {
    const { ctx } = detectorSetup({
      url: NEWQUIZ_URL,
      html: '<iframe id="tool_content" name="tool_content"></iframe>',
      examBrowser: { configKey: KEY_HASH },
      routes: serviceRoutes(NEWQUIZ, {
        [`POST ${SERVICE}/api/exb/access-code/${COURSE}/${NEWQUIZ}`]: () => ({
          status: 200,
          body: { success: true, accessCode: null, exitGrant: EXIT_GRANT, exitGrantExpiresInSeconds: 43200, tools: [] },
        }),
      }),
    });
    const run = await runDetector(ctx);
    expect(panelOf(ctx.document)).toBeNull();
    run.stop();
  });

  it('does not act on new quiz authoring pages', async () => {
    const { ctx, requests } = detectorSetup({
      url: `${NEWQUIZ_URL}/build`,
      examBrowser: { configKey: KEY_HASH },
      routes: serviceRoutes(NEWQUIZ),
    });
    expect((await runDetector(ctx)).outcome).toBe('not-an-lms-page');
    expect(requests).toHaveLength(0);
  });
});

describe('detector in an ordinary browser', () => {
  it('asks the service first and shows the prompt only when enforcement is confirmed', async () => {
    const { ctx, requests, forms } = detectorSetup({ url: TAKE_URL, html: ACCESS_CODE_PAGE(), routes: serviceRoutes(CLASSIC) });
    expect((await runDetector(ctx)).outcome).toBe('exam-browser-required');
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: 'GET', credentials: 'omit', cache: 'no-store' });
    const panel = panelOf(ctx.document);
    expect(panel?.querySelector('h2')?.textContent).toBe('Secure exam browser required');
    expect(panel?.querySelector('a')?.getAttribute('href')).toBe(
      `${SERVICE}/exb/quiz/${COURSE}/${CLASSIC}?lms_url=${encodeURIComponent(`${LMS}/courses/${COURSE}/quizzes/512`)}`,
    );
    expect(forms.filled).toEqual([]);
  });

  it('gives a new quiz the same guidance, linking to its own required-browser view', async () => {
    const { ctx, forms } = detectorSetup({ url: NEWQUIZ_URL, routes: serviceRoutes(NEWQUIZ) });
    expect((await runDetector(ctx)).outcome).toBe('exam-browser-required');
    const panel = panelOf(ctx.document);
    expect(panel?.querySelector('h2')?.textContent).toBe('Secure exam browser required');
    expect(panel?.querySelector('a')?.getAttribute('href')).toBe(
      `${SERVICE}/exb/new-quiz/${COURSE}/${NEWQUIZ}?lms_url=${encodeURIComponent(NEWQUIZ_URL)}`,
    );
    expect(forms.filled).toEqual([]);
  });

  it('shows nothing when the service does not confirm', async () => {
    for (const reply of [
      { status: 200, body: { success: true, exbRequired: false } },
      { status: 500, body: { success: true, exbRequired: true } },
      { status: 200, text: 'not json' },
      'network-error' as const,
    ]) {
      const { ctx } = detectorSetup({
        url: NEWQUIZ_URL,
        routes: { [`GET ${SERVICE}/api/exb/requirement/${COURSE}/${NEWQUIZ}`]: () => reply },
      });
      expect((await runDetector(ctx)).outcome).toBe('not-required');
      expect(panelOf(ctx.document)).toBeNull();
    }
  });

  it('ignores other LMS pages without a request', async () => {
    for (const path of ['/', '/courses/1', '/courses/1/quizzes/2/edit', '/courses/01/quizzes/2/take']) {
      const { ctx, requests } = detectorSetup({ url: `${LMS}${path}`, routes: serviceRoutes(CLASSIC) });
      expect((await runDetector(ctx)).outcome, path).toBe('not-an-lms-page');
      expect(requests).toHaveLength(0);
    }
  });
});

describe('diagnostics', () => {
  it('traces steps without secrets when diagnostics are on', async () => {
    const { ctx, requests } = detectorSetup({
      url: TAKE_URL,
      html: ACCESS_CODE_PAGE(),
      examBrowser: { configKey: KEY_HASH },
      routes: { ...serviceRoutes(CLASSIC), [`POST ${SERVICE}/api/debug/lms-detector-trace`]: () => ({ status: 200, body: { enabled: true } }) },
      config: { diagnostics: true },
    });
    await runDetector(ctx);
    await settle();
    const traces = requests.filter((r) => r.url.endsWith('/api/debug/lms-detector-trace'));
    expect(traces.length).toBeGreaterThan(0);
    const text = JSON.stringify(traces.map((t) => t.body));
    for (const secret of ['c0de', PROOF_TOKEN, EXIT_GRANT, KEY_HASH]) expect(text).not.toContain(secret);
    expect(traces.every((t) => t.credentials === 'omit')).toBe(true);
  });
});
