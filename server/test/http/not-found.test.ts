import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PARAM_LENGTH } from '../../src/http/kit/errors.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { bootstrapOf } from '../exb-public/helpers.js';

const LMS = 'https://lms.example.test';
const NOT_FOUND =
  'There is no page of the exam browser tool at this address. The link may be mistyped or out of date. Go back to your course in the LMS and open the tool or the quiz from there.';

/** What a browser sends when it navigates to an address. */
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

describe('unknown addresses', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { BASE_URL: 'https://tool.example.test', LMS_URL: LMS } });
  });
  afterAll(() => t.close());

  it.each([
    ['an unknown page', '/no-such-page'],
    ['a malformed assessment launch', '/exb/launch/not-a-content-id'],
    ['a malformed exit', '/exb/exit/session/101/nope/grant'],
    ['a malformed required-browser view', '/exb/quiz/101/201'],
    ['a malformed download', '/exb/config/101/classicquiz_201.zip?grant=x'],
    ['an over-long path parameter', `/exb/launch/${'x'.repeat(MAX_PARAM_LENGTH + 1)}`],
  ])('%s gives a browser the page in the tool’s look with the way back to the LMS', async (_name, url) => {
    for (const method of ['GET', 'HEAD'] as const) {
      const response = await t.app.inject({ method, url, headers: BROWSER });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['content-security-policy']).toContain("default-src 'none'");
      if (method === 'GET') expect(bootstrapOf(response.body)).toEqual({ locale: 'en', view: 'not-found', title: 'Page not found', message: NOT_FOUND, lmsReturnUrl: LMS });
    }
  });

  it.each([
    ['an API route, even for a browser', 'GET', '/api/nothing-here', BROWSER, 'No such API route.'],
    ['a tRPC address, even for a browser', 'GET', '/trpc', BROWSER, 'No such API route.'],
    ['a client that does not accept HTML', 'GET', '/no-such-page', { accept: 'application/json' }, 'Nothing is at this address.'],
    ['a client that names no type', 'GET', '/no-such-page', {}, 'Nothing is at this address.'],
    ['a form post', 'POST', '/no-such-page', BROWSER, 'Nothing is at this address.'],
  ] as const)('%s keeps the JSON 404', async (_name, method, url, headers, message) => {
    const response = await t.app.inject({ method, url, headers });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ success: false, error_code: 'NOT_FOUND', message });
  });
});
