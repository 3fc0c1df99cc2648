import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createLogger } from '../../src/logger.js';
import { INTERNAL_ERROR_MESSAGE } from '../../src/trpc/init.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { instructor, sessionFor } from '../support/sessions.js';

describe('tRPC endpoint', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('refuses procedures that need a principal when there is no session, without internals', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/trpc/session.whoami' });
    expect(response.statusCode).toBe(401);
    const body = response.json();
    expect(body.error.message).toBe('Open this tool from the LMS to continue.');
    expect(JSON.stringify(body)).not.toMatch(/stack|at .*\.ts/);
  });

  it('answers 404 for unknown procedures', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/trpc/nothing.here' });
    expect(response.statusCode).toBe(404);
  });

  it('takes at most ten calls in one request', async () => {
    const batch = (size: number) => `/trpc/${Array(size).fill('session.whoami').join(',')}?batch=1&input=%7B%7D`;
    expect((await t.app.inject({ method: 'GET', url: batch(10) })).statusCode).toBe(401);
    const over = await t.app.inject({ method: 'GET', url: batch(11) });
    expect(over.statusCode).toBe(400);
    expect(JSON.stringify(over.json())).toMatch(/batch/i);
  });

  it('takes each mutation in a request of its own', async () => {
    const cookie = await sessionFor(t.app, instructor());
    const reveal = 'instructor.passwords.revealCourse';
    const many = await t.app.inject({
      method: 'POST',
      url: `/trpc/${reveal},${reveal}?batch=1`,
      headers: { cookie, 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
      payload: JSON.stringify({ 0: {}, 1: {} }),
    });
    expect(many.statusCode).toBe(400);
    expect(many.json()).toMatchObject({ success: false, error_code: 'INVALID_REQUEST' });
  });

  it('answers 405 to methods other than GET and POST', async () => {
    for (const method of ['TRACE', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const) {
      const response = await t.app.inject({ method, url: '/trpc/session.whoami' });
      expect(response.statusCode, method).toBe(405);
      expect(response.json()).toMatchObject({ error_code: 'METHOD_NOT_ALLOWED' });
    }
  });
});

describe('tRPC endpoint: unexpected failures', () => {
  let t: TestApp;
  let app: FastifyInstance;
  const logs: string[] = [];
  beforeAll(async () => {
    t = await createTestApp();
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    app = await buildApp({ config: t.config, logger: createLogger('info', sink), db: t.db });
    await app.ready();
    // A broken database: the query's own error names the table, which the browser must never see.
    await t.db.orm.em.getConnection().execute('drop table lms_oauth_token cascade');
  });
  afterAll(async () => {
    await app.close();
    await t.close();
  });

  it('answer with a generic message and log the detail with the request id', async () => {
    const { cookie } = sessionFor(app, instructor());
    const response = await app.inject({ method: 'GET', url: '/trpc/instructor.authorization.ensure', headers: { cookie } });
    expect(response.statusCode).toBe(500);
    const body = response.json();
    expect(body.error.message).toBe(INTERNAL_ERROR_MESSAGE);
    expect(response.body).not.toMatch(/lms_oauth_token|relation|does not exist|select /i);

    const failure = logs.map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => entry.msg === 'trpc procedure failed');
    expect(failure).toMatchObject({ path: 'instructor.authorization.ensure', reqId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect((failure!.err as { message: string }).message).toMatch(/relation "lms_oauth_token" does not exist/);
  });

  it('keep the messages of refusals', async () => {
    const response = await app.inject({ method: 'GET', url: '/trpc/instructor.assessments.list' });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.message).toBe('Open this tool from the LMS to continue.');
  });
});
