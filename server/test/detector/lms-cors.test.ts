import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandlers } from '../../src/http/kit/errors.js';
import { allowLmsOrigin } from '../../src/http/kit/lms-cors.js';
import { LMS } from './harness.js';

const ctx = { config: { lmsUrl: LMS } };
const OTHER = 'https://evil.example.test';
const TOOLS = '/api/exb/tools/:courseId/:quizId';
const ACCESS_CODE = '/api/exb/access-code/:courseId/:quizId';
const REQUIREMENT = '/api/exb/requirement/:courseId/:quizId';

/** Stand-ins for the student-flow routes, declared the way their module will: routes first, CORS after, and the reverse. */
async function appWithDummyRoutes(): Promise<FastifyInstance> {
  const app = Fastify();
  registerErrorHandlers(app);
  allowLmsOrigin(app, ctx, { paths: [REQUIREMENT], methods: ['GET'] });
  app.get(REQUIREMENT, async (_request, reply) => reply.header('vary', 'Accept-Encoding').send({ success: true, exbRequired: true }));
  app.post(ACCESS_CODE, async (request, reply) => {
    if (request.headers['x-exb-proof-token'] !== 'good') {
      return reply.code(403).send({ success: false, error_code: 'INVALID_PROOF_TOKEN', message: 'no' });
    }
    return reply.send({ success: true, accessCode: 'c0de' });
  });
  app.get(ACCESS_CODE, async (_request, reply) => reply.code(405).send({ success: false }));
  app.get(TOOLS, async () => ({ success: true, tools: [] }));
  app.get('/api/elsewhere', async () => ({ ok: true }));
  allowLmsOrigin(app, ctx, { paths: [ACCESS_CODE], methods: ['POST'] });
  allowLmsOrigin(app, ctx, { paths: [TOOLS], methods: ['GET'], credentials: true });
  await app.ready();
  return app;
}

function preflight(app: FastifyInstance, url: string, headers: Record<string, string>) {
  return app.inject({ method: 'OPTIONS', url, headers });
}

describe('LMS CORS', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await appWithDummyRoutes();
  });
  afterAll(() => app.close());

  it('answers a preflight from the LMS origin with 204 and exactly what the route allows', async () => {
    const response = await preflight(app, '/api/exb/access-code/101/classicquiz_5', {
      origin: LMS,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, x-exb-proof-token',
    });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(response.headers['access-control-allow-origin']).toBe(LMS);
    expect(response.headers['access-control-allow-methods']).toBe('POST');
    expect(response.headers['access-control-allow-headers']).toBe('content-type, x-exb-proof-token, x-exb-configkeyhash');
    expect(response.headers['access-control-max-age']).toBe('600');
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
    expect(response.headers.vary).toBe('Origin');
  });

  it('allows credentials only where asked (tools)', async () => {
    const tools = await preflight(app, '/api/exb/tools/101/classicquiz_5', { origin: LMS, 'access-control-request-method': 'GET' });
    expect(tools.statusCode).toBe(204);
    expect(tools.headers['access-control-allow-credentials']).toBe('true');
    const response = await app.inject({ method: 'GET', url: '/api/exb/tools/101/classicquiz_5', headers: { origin: LMS } });
    expect(response.headers['access-control-allow-origin']).toBe(LMS);
    expect(response.headers['access-control-allow-credentials']).toBe('true');
    const requirement = await app.inject({ method: 'GET', url: '/api/exb/requirement/101/classicquiz_5', headers: { origin: LMS } });
    expect(requirement.headers['access-control-allow-origin']).toBe(LMS);
    expect(requirement.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it.each<{ why: string; headers: Record<string, string> }>([
    { why: 'another origin', headers: { origin: OTHER, 'access-control-request-method': 'POST' } },
    { why: 'no origin', headers: { 'access-control-request-method': 'POST' } },
    { why: 'the LMS host on http', headers: { origin: 'http://lms.example.test', 'access-control-request-method': 'POST' } },
    { why: 'a method the route does not allow', headers: { origin: LMS, 'access-control-request-method': 'DELETE' } },
    { why: 'a GET the route answers 405 to', headers: { origin: LMS, 'access-control-request-method': 'GET' } },
    { why: 'no requested method', headers: { origin: LMS } },
    {
      why: 'a header the route does not allow',
      headers: { origin: LMS, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-evil' },
    },
  ])('refuses a preflight with $why, without any grant', async ({ headers }) => {
    const response = await preflight(app, '/api/exb/access-code/101/classicquiz_5', headers);
    expect(response.statusCode).toBe(403);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    expect(response.headers['access-control-allow-methods']).toBeUndefined();
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
    expect(response.headers.vary).toBe('Origin');
  });

  it('grants the LMS origin on responses, errors included, and never a wildcard', async () => {
    for (const token of ['good', 'bad']) {
      const response = await app.inject({
        method: 'POST',
        url: '/api/exb/access-code/101/classicquiz_5',
        headers: { origin: LMS, 'content-type': 'application/json', 'x-exb-proof-token': token },
        payload: '{}',
      });
      expect(response.statusCode).toBe(token === 'good' ? 200 : 403);
      expect(response.headers['access-control-allow-origin']).toBe(LMS);
      expect(response.headers.vary).toBe('Origin');
    }
    const malformed = await app.inject({
      method: 'POST',
      url: '/api/exb/access-code/101/classicquiz_5',
      headers: { origin: LMS, 'content-type': 'application/json' },
      payload: '{',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.headers['access-control-allow-origin']).toBe(LMS);
  });

  it('gives other origins no grant but still varies on Origin', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/exb/tools/101/classicquiz_5', headers: { origin: OTHER } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
    expect(response.headers.vary).toBe('Origin');
  });

  it('keeps the route’s own vary and covers HEAD with GET', async () => {
    const response = await app.inject({ method: 'HEAD', url: '/api/exb/requirement/101/classicquiz_5', headers: { origin: LMS } });
    expect(response.headers['access-control-allow-origin']).toBe(LMS);
    expect(response.headers.vary).toBe('Accept-Encoding, Origin');
  });

  it('leaves other routes and other methods of a covered path alone', async () => {
    const elsewhere = await app.inject({ method: 'GET', url: '/api/elsewhere', headers: { origin: LMS } });
    expect(elsewhere.headers['access-control-allow-origin']).toBeUndefined();
    expect(elsewhere.headers.vary).toBeUndefined();
    const get = await app.inject({ method: 'GET', url: '/api/exb/access-code/101/classicquiz_5', headers: { origin: LMS } });
    expect(get.statusCode).toBe(405);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
    const uncovered = await preflight(app, '/api/elsewhere', { origin: LMS, 'access-control-request-method': 'GET' });
    expect(uncovered.statusCode).toBe(404);
  });

  it('refuses declaring the same method and path twice', async () => {
    const other = Fastify();
    allowLmsOrigin(other, ctx, { paths: ['/x'], methods: ['POST'] });
    expect(() => allowLmsOrigin(other, ctx, { paths: ['/x'], methods: ['POST'] })).toThrow(/already declared/);
    // A second method on the same path joins the same preflight.
    allowLmsOrigin(other, ctx, { paths: ['/x'], methods: ['GET'], credentials: true });
    other.post('/x', async () => ({}));
    await other.ready();
    const response = await preflight(other, '/x', { origin: LMS, 'access-control-request-method': 'GET' });
    expect(response.headers['access-control-allow-methods']).toBe('POST, GET');
    expect(response.headers['access-control-allow-credentials']).toBe('true');
    await other.close();
  });
});
