import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crossSiteMutationRefusal } from '../../src/security/fetch-metadata.js';
import { appRouter } from '../../src/trpc/router.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { instructor, sessionFor, student } from '../support/sessions.js';

const ORIGIN = 'https://tool.example.test';
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Unsafe routes the LMS or the exam browser call without the tool's session: they carry their own proof (a signed
 * launch, a proof token, a config key hash) or only record diagnostics. `/trpc/:path` is checked per procedure.
 */
const NOT_COOKIE_AUTHENTICATED = new Set([
  'POST /lti/login',
  'POST /lti/launch',
  'POST /exb/launch/:contentId',
  'POST /api/exb/access-proof/:courseId/:quizId',
  'POST /api/exb/access-code/:courseId/:quizId',
  'POST /api/exb/check-proof',
  'POST /api/debug/lms-detector-trace',
]);

/** Every registered route with an unsafe method, read from the router's own listing. */
function unsafeRoutes(app: FastifyInstance): string[] {
  const parents: string[] = [];
  const routes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (.+) \(([A-Z, ]+)\)$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const parent = depth === 0 ? '' : parents[depth - 1]!;
    const path = parent === '/' ? `/${match[2]}` : `${parent}${match[2]}`;
    parents[depth] = path;
    parents.length = depth + 1;
    for (const method of match[3]!.split(', ')) if (UNSAFE_METHODS.has(method)) routes.push(`${method} ${path}`);
  }
  return routes;
}

/** Path parameters (`:courseId`, or Fastify's merged `:quizId|:courseId`) filled in: the guard runs before any of them is read. */
function concrete(path: string): string {
  return path.replace(/:[A-Za-z]+(?:\|:[A-Za-z]+)*/g, '101');
}

const mutationProcedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>)
  .filter(([, procedure]) => procedure._def.type === 'mutation')
  .map(([path]) => path);

describe('the cross-site rule of cookie-authenticated mutations', () => {
  const json = { 'content-type': 'application/json' };

  it.each([
    ['Sec-Fetch-Site same-origin', { 'sec-fetch-site': 'same-origin', ...json }],
    ['no Fetch Metadata and the service Origin', { origin: ORIGIN, ...json }],
    ['a JSON type with parameters', { 'sec-fetch-site': 'same-origin', 'content-type': 'Application/JSON; charset=utf-8' }],
  ])('lets through %s', (_name, headers) => {
    expect(crossSiteMutationRefusal(headers, ORIGIN)).toBeNull();
  });

  it.each([
    ['another site', { 'sec-fetch-site': 'cross-site', origin: ORIGIN, ...json }],
    ['a subdomain of the same site', { 'sec-fetch-site': 'same-site', ...json }],
    ['a typed URL', { 'sec-fetch-site': 'none', ...json }],
    ['a browser without Fetch Metadata on another site', { origin: 'https://evil.example', ...json }],
    ['an opaque origin', { origin: 'null', ...json }],
    ['the service origin on another scheme', { origin: 'http://tool.example.test', ...json }],
    ['neither Fetch Metadata nor Origin', { ...json }],
  ])('refuses %s with 403 CROSS_SITE_REQUEST', (_name, headers) => {
    expect(crossSiteMutationRefusal(headers, ORIGIN)).toMatchObject({ status: 403, errorCode: 'CROSS_SITE_REQUEST' });
  });

  it.each([
    ['a form post', 'application/x-www-form-urlencoded'],
    ['a multipart form', 'multipart/form-data; boundary=x'],
    ['plain text', 'text/plain'],
    ['JSON lookalikes', 'application/json-patch+json'],
    ['no body type', undefined],
  ])('refuses %s from the tool itself with 415', (_name, contentType) => {
    const headers = { 'sec-fetch-site': 'same-origin', ...(contentType ? { 'content-type': contentType } : {}) };
    expect(crossSiteMutationRefusal(headers, ORIGIN)).toMatchObject({ status: 415, errorCode: 'UNSUPPORTED_MEDIA_TYPE' });
  });
});

describe('every cookie-authenticated mutation is behind the guard', () => {
  let t: TestApp;
  let cookies: string[];
  beforeAll(async () => {
    t = await createTestApp({ env: { BASE_URL: ORIGIN } });
    cookies = [sessionFor(t.app, instructor()).cookie, sessionFor(t.app, student()).cookie];
  });
  afterAll(() => t.close());

  const guarded = () =>
    unsafeRoutes(t.app).filter((route) => !NOT_COOKIE_AUTHENTICATED.has(route) && !route.endsWith(' /trpc/:path'));

  it('finds the REST mutations (the route listing is read correctly)', () => {
    expect(guarded()).toEqual(
      expect.arrayContaining([
        'POST /api/oauth2/popup-ticket',
        'POST /api/exb/config-grant/:courseId/:contentId',
        'POST /api/exb/session-readiness',
        'POST /api/exb/session-readiness/dismiss',
        'POST /api/quizzes/exb-config-structured',
        'PUT /api/quizzes/course/:courseId/defaults',
        'POST /api/quizzes/course/:courseId/exam-tools/:toolId/copy',
      ]),
    );
    expect(unsafeRoutes(t.app)).toEqual(expect.arrayContaining([...NOT_COOKIE_AUTHENTICATED]));
    expect(mutationProcedures).toEqual(expect.arrayContaining(['instructor.enforcement.enable', 'instructor.courseDefaults.save']));
  });

  function send(route: string, cookie: string, headers: Record<string, string>, payload?: string) {
    const [method, path] = route.split(' ') as [InjectOptions['method'], string];
    return t.app.inject({ method, url: concrete(path), headers: { cookie, ...headers }, ...(payload === undefined ? {} : { payload }) });
  }

  const crossSite: [string, Record<string, string>][] = [
    ['another site', { 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }],
    ['a browser without Fetch Metadata on another site', { origin: 'https://evil.example', 'content-type': 'application/json' }],
    ['neither Fetch Metadata nor Origin', { 'content-type': 'application/json' }],
  ];

  it.each(crossSite)('REST: refuses a request from %s with 403 before anything else', async (_name, headers) => {
    for (const route of guarded()) {
      for (const cookie of cookies) {
        const response = await send(route, cookie, headers, '{}');
        expect({ route, status: response.statusCode, code: response.json().error_code }).toEqual({ route, status: 403, code: 'CROSS_SITE_REQUEST' });
      }
    }
  });

  it('REST: refuses simple requests of the tool’s own origin (form post, plain text, no body) with 415', async () => {
    for (const route of guarded()) {
      for (const [type, payload] of [['application/x-www-form-urlencoded', 'a=1'], ['text/plain', '{}'], [undefined, undefined]] as const) {
        const headers = { 'sec-fetch-site': 'same-origin', ...(type ? { 'content-type': type } : {}) };
        const response = await send(route, cookies[0]!, headers, payload);
        expect({ route, type, status: response.statusCode, code: response.json().error_code }).toEqual({
          route,
          type,
          status: 415,
          code: 'UNSUPPORTED_MEDIA_TYPE',
        });
      }
    }
  });

  it('REST: lets the tool’s own JSON requests through to the next check (here: no session)', async () => {
    for (const route of guarded()) {
      for (const headers of [{ 'sec-fetch-site': 'same-origin' }, { origin: ORIGIN }] as Record<string, string>[]) {
        const response = await send(route, '', { ...headers, 'content-type': 'application/json' }, '{}');
        expect({ route, status: response.statusCode }).toEqual({ route, status: expect.toSatisfy((status: number) => status === 401 || status === 403) });
        expect(['CROSS_SITE_REQUEST', 'UNSUPPORTED_MEDIA_TYPE']).not.toContain(response.json().error_code);
      }
    }
  });

  it.each(crossSite)('tRPC: refuses every mutation from %s with 403', async (_name, headers) => {
    for (const procedure of mutationProcedures) {
      const response = await send(`POST /trpc/${procedure}`, cookies[0]!, headers, '{}');
      expect({ procedure, status: response.statusCode, code: response.json().error?.data?.errorCode }).toEqual({
        procedure,
        status: 403,
        code: 'CROSS_SITE_REQUEST',
      });
    }
  });

  it('tRPC: refuses form posts to mutations and lets the tool’s own JSON through', async () => {
    for (const procedure of mutationProcedures) {
      const form = await send(`POST /trpc/${procedure}`, cookies[0]!, { 'sec-fetch-site': 'same-origin', 'content-type': 'application/x-www-form-urlencoded' }, 'a=1');
      expect({ procedure, status: form.statusCode }).toEqual({ procedure, status: 415 });
      const own = await send(`POST /trpc/${procedure}`, '', { origin: ORIGIN, 'content-type': 'application/json' }, '{}');
      expect({ procedure, status: own.statusCode }).toEqual({ procedure, status: 401 });
    }
  });
});
