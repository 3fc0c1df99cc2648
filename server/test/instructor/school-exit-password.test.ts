import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createInstructorBed, type InstructorBed } from './harness.js';

const PROCEDURE = '/trpc/instructor.courseDefaults.schoolExitPassword';

describe("the school's default exit password, as the teacher view asks for it", () => {
  let t: InstructorBed;

  beforeAll(async () => {
    t = await createInstructorBed();
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    await t.reset();
    await t.grant();
  });

  it('says whether one is set, never what it is', async () => {
    const none = await t.request('GET', PROCEDURE);
    expect(none.statusCode).toBe(200);
    expect(none.json().result.data).toEqual({ set: false });

    const managedApp = await t.appWith((config) => ({ ...config, exb: { ...config.exb, managedQuitPassword: 'managed-exit-secret' } }));
    const managed = await t.request('GET', PROCEDURE, { app: managedApp });
    expect(managed.json().result.data).toEqual({ set: true });
    expect(managed.body).not.toContain('managed-exit-secret');
  });

  it('answers instructors only', async () => {
    const response = await t.request('GET', PROCEDURE, { cookie: null });
    expect(response.statusCode).toBe(401);
  });
});
