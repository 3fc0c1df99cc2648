import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_CODE_ROUTE, ACCESS_PROOF_ROUTE, CONFIG_DOWNLOAD_ROUTE, CONFIG_GRANT_ROUTE, DETECTOR_SCRIPT_ALIAS_ROUTE, DETECTOR_SCRIPT_ROUTE, THEME_LOADER_ROUTE, TOOLS_ROUTE } from '@exb/shared/service-paths.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { sessionFor, student } from '../support/sessions.js';

/** The hooks Fastify runs for one route, as `printRoutes` lists them under it. */
function hooksOf(t: TestApp, path: string, method: string): string {
  const lines = t.app.printRoutes({ commonPrefix: false, includeHooks: true }).split('\n');
  // A route line is `path (METHOD, ...)`; methods with the same hooks share one.
  const start = lines.findIndex((line) => {
    const match = /^(.*) \(([A-Z, ]+)\)$/.exec(line.replace(/^[\s│├└─]+/, ''));
    return match?.[1] === path.replace(/^\//, '') && match[2]!.split(', ').includes(method);
  });
  expect(start, `${method} ${path} is registered`).toBeGreaterThanOrEqual(0);
  const hooks: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.includes('•')) break;
    hooks.push(line);
  }
  return hooks.join('\n');
}

describe('the scopes of the hot routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { BASE_URL: 'https://tool.example.test', LMS_URL: 'https://lms.example.test' } });
    await t.app.ready();
  });
  afterAll(() => t.close());

  it.each([
    [DETECTOR_SCRIPT_ROUTE.path, 'GET'],
    [DETECTOR_SCRIPT_ALIAS_ROUTE.path, 'GET'],
    [THEME_LOADER_ROUTE.path, 'GET'],
    [ACCESS_PROOF_ROUTE.path, 'POST'],
    [ACCESS_CODE_ROUTE.path, 'POST'],
    [CONFIG_DOWNLOAD_ROUTE.path, 'GET'],
    [CONFIG_DOWNLOAD_ROUTE.path, 'HEAD'],
  ])('keeps the cookie and session hooks off %s (%s)', (path, method) => {
    expect(hooksOf(t, path, method)).not.toContain('fastifyCookieOnSendHandler');
  });

  it.each([
    [DETECTOR_SCRIPT_ROUTE.path, 'GET'],
    [DETECTOR_SCRIPT_ALIAS_ROUTE.path, 'GET'],
    [THEME_LOADER_ROUTE.path, 'GET'],
  ])('sends %s (%s), which script tags load, without any onSend hook', (path, method) => {
    expect(hooksOf(t, path, method)).not.toContain('(onSend)');
  });

  it.each([
    [DETECTOR_SCRIPT_ROUTE.path, 'GET'],
    [ACCESS_PROOF_ROUTE.path, 'POST'],
    [ACCESS_CODE_ROUTE.path, 'POST'],
    [CONFIG_GRANT_ROUTE.path, 'POST'],
  ])('keeps the body deadline on %s (%s)', (path, method) => {
    expect(hooksOf(t, path, method)).toContain('(preParsing)');
  });

  it.each([
    [CONFIG_GRANT_ROUTE.path, 'POST'],
    [TOOLS_ROUTE.path, 'GET'],
    ['/lti/launch', 'POST'],
  ])('runs %s (%s) with the session', (path, method) => {
    expect(hooksOf(t, path, method)).toContain('fastifyCookieOnSendHandler');
  });

  // `printRoutes` does not list the requirement check's wildcard route by its pattern; its answers are compared here.
  it('answers the hot routes alike with a session cookie, and sets none', async () => {
    const { cookie } = sessionFor(t.app, student());
    for (const url of [DETECTOR_SCRIPT_ROUTE.path, THEME_LOADER_ROUTE.path, '/api/exb/requirement/101/classicquiz_201']) {
      const plain = await t.app.inject({ method: 'GET', url });
      const withCookie = await t.app.inject({ method: 'GET', url, headers: { cookie } });
      expect(withCookie.statusCode).toBe(plain.statusCode);
      expect(withCookie.body).toBe(plain.body);
      expect(withCookie.headers['set-cookie']).toBeUndefined();
    }
  });

  it('keeps the session codec on the application', () => {
    const { cookie } = sessionFor(t.app, student());
    const sealed = decodeURIComponent(cookie.slice(cookie.indexOf('=') + 1));
    expect(t.app.decodeSecureSession(sealed)?.get('data')).toMatchObject({ principal: { kind: 'student', lmsUserId: '3' } });
  });
});
