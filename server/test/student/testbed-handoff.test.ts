import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapOf } from '../exb-public/helpers.js';
import { createStudentHarness, QUIZ, student, type StudentHarness } from './harness.js';

const EXAM_BROWSER_URL = 'https://lms.example.test/testbed/exam-browser';
const LINK_TEXT = 'Open in the testbed’s simulated exam browser';

/** The handoff page of a fresh grant in harness `h`: its bootstrap and markup. */
async function handoff(h: StudentHarness) {
  const grant = await h.grant(student(), QUIZ, { actionToken: h.actionTokens.issue(h.session(student()).session, 'config-grant') });
  const { handoffUrl, exbLaunchUrl } = grant.json() as { handoffUrl: string; exbLaunchUrl: string };
  const page = await h.app.inject({ method: 'GET', url: handoffUrl });
  expect(page.statusCode).toBe(200);
  return { exbLaunchUrl, body: page.body, bootstrap: bootstrapOf(page.body) };
}

// One harness at a time: msw's interception is process-wide (see the harness).
describe('the handoff page with the testbed and the development LMS', () => {
  let h: StudentHarness;
  beforeAll(async () => {
    h = await createStudentHarness({ env: { TESTBED_ENABLED: 'true' }, configOptions: { developmentLms: { examBrowserUrl: EXAM_BROWSER_URL } } });
    await h.enforce(QUIZ);
    await h.authorizeStudent(3);
  });
  afterAll(() => h.close());

  it('links to the simulated exam browser with the same one-time launch URL, in a window of its own', async () => {
    const { exbLaunchUrl, body, bootstrap } = await handoff(h);
    const expected = `${EXAM_BROWSER_URL}?${new URLSearchParams({ launch: exbLaunchUrl })}`;
    expect(bootstrap).toMatchObject({ view: 'exb-launch-handoff', available: true, exbLaunchUrl, testbedExamBrowserUrl: expected });
    expect(body).toContain(`href="${expected.replace(/&/g, '&amp;')}" target="_blank" rel="noopener">${LINK_TEXT}</a>`);
    // The real exam browser stays the page's main step, started by the student: a development machine usually has
    // none, and the browser's prompt for the unknown scheme would cover the page.
    expect(body).toContain(`class="button" href="${exbLaunchUrl}">Open the exam browser</a>`);
    expect(body).not.toContain('http-equiv="refresh"');
  });
});

describe('the handoff page with the testbed but another LMS', () => {
  let h: StudentHarness;
  beforeAll(async () => {
    h = await createStudentHarness({ env: { TESTBED_ENABLED: 'true' } });
    await h.enforce(QUIZ);
    await h.authorizeStudent(3);
  });
  afterAll(() => h.close());

  it('offers only the real exam browser', async () => {
    const { body, bootstrap } = await handoff(h);
    expect(bootstrap).toMatchObject({ available: true });
    expect(bootstrap).not.toHaveProperty('testbedExamBrowserUrl');
    expect(body).not.toContain(LINK_TEXT);
    expect(body).not.toContain('testbed');
    expect(body).toContain('http-equiv="refresh"');
  });
});
