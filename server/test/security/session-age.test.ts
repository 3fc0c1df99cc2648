import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_MAX_AGE_MS } from '../../src/security/session.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { instructor, sessionFor, student } from '../support/sessions.js';

const MINUTE = 60_000;

describe('the maximum session age', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { BASE_URL: 'https://tool.example.test' } });
  });
  afterAll(() => t.close());

  const launchedAgo = (ms: number, principal = instructor()) => sessionFor(t.app, principal, { createdAt: Date.now() - ms }).cookie;

  it('is 12 hours from the launch', () => {
    expect(SESSION_MAX_AGE_MS).toBe(12 * 60 * MINUTE);
  });

  it('keeps a session just under 12 hours old', async () => {
    const cookie = launchedAgo(SESSION_MAX_AGE_MS - MINUTE);
    expect((await t.app.inject({ method: 'GET', url: '/lti/launch', headers: { cookie } })).statusCode).toBe(200);
    const whoami = await t.app.inject({ method: 'GET', url: '/trpc/session.whoami', headers: { cookie } });
    expect(whoami.statusCode).toBe(200);
  });

  it('ends a session 12 hours after its launch, however recently it was used', async () => {
    const cookie = launchedAgo(SESSION_MAX_AGE_MS + MINUTE);
    const reload = await t.app.inject({ method: 'GET', url: '/lti/launch', headers: { cookie } });
    expect(reload.statusCode).toBe(302);
    expect(reload.headers.location).toBe('/login');
    expect((await t.app.inject({ method: 'GET', url: '/trpc/session.whoami', headers: { cookie } })).statusCode).toBe(401);
    const start = await t.app.inject({ method: 'GET', url: '/api/oauth2authorize', headers: { cookie } });
    expect(start.statusCode).toBe(401);
    const readiness = await t.app.inject({
      method: 'POST',
      url: '/api/exb/session-readiness',
      headers: { cookie: launchedAgo(SESSION_MAX_AGE_MS + MINUTE, student()), 'sec-fetch-site': 'same-origin' },
      payload: {},
    });
    expect(readiness.json()).toMatchObject({ error_code: 'LTI_STUDENT_REQUIRED' });
  });
});
