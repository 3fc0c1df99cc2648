import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_ROUTES } from '@exb/shared/service-paths.js';
import { createTestApp, type TestApp } from '../support/app.js';

describe('the routes the scripts and pages call', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { BASE_URL: 'https://tool.example.test', LMS_URL: 'https://lms.example.test' } });
    await t.app.ready();
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(Object.entries(SERVICE_ROUTES))('%s is a route the service registers', (_name, route) => {
    expect(t.app.hasRoute({ method: route.method, url: route.path })).toBe(true);
  });

  it('is told apart from a route the service does not have', () => {
    expect(t.app.hasRoute({ method: 'GET', url: '/api/exb/access-proof/:courseId/:quizId' })).toBe(false);
    expect(t.app.hasRoute({ method: 'POST', url: '/api/exb/access-proof/:courseId' })).toBe(false);
  });
});
