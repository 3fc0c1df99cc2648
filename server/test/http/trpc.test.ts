import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';

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
});
