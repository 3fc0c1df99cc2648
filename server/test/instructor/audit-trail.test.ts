import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ExternalToolConfig } from '@exb/shared/exb-policy.js';
import { expectNoSecretsInTrail } from '../support/audit-secrets.js';
import { COURSE, createInstructorBed, type InstructorBed } from './harness.js';

/** Every instructor change to enforcement and its secrets leaves one entry, refusals too, and never a secret. */

const CLASSIC = 'classicquiz_201';
const TOOL: ExternalToolConfig = {
  id: 'calc',
  label: 'Calculator',
  url: 'https://calc.example.com/app',
  resourceRules: [],
  managedByAdmin: false,
  enabled: true,
};

interface EntryRow {
  action: string;
  outcome: string;
  actor_lms_user_id: string;
  actor_name: string | null;
  actor_role: string;
  course_id: string;
  content_id: string | null;
  request_id: string | null;
  details: Record<string, unknown>;
}

describe('audit trail of instructor changes', () => {
  let t: InstructorBed;
  const secrets: string[] = [];

  beforeAll(async () => {
    t = await createInstructorBed();
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    await t.reset();
    await t.sql('delete from audit_entry');
    await t.grant();
    await t.discover();
  });

  const entries = () => t.sql<EntryRow>('select * from audit_entry order by id');
  const lastEntry = async () => (await entries()).at(-1)!;
  const code = () => t.bed.lms.state.quizzes.get(201)!.accessCode;
  async function ok(method: 'POST' | 'PUT', url: string, body?: unknown) {
    const response = await t.request(method, url, body === undefined ? {} : { body });
    expect(response.statusCode, response.body).toBe(200);
    return response;
  }
  /** After every action: no secret of this test is in the trail, nor any code the LMS ever held. */
  async function checkTrail() {
    const stored = await t.settings.loadAssessmentSettings(COURSE, CLASSIC);
    secrets.push(...[code(), stored?.accessCode].filter((value): value is string => typeof value === 'string'));
    expectNoSecretsInTrail(await entries(), secrets);
  }

  it('enable, regenerate and disable: who, which assessment, the outcome and the request', async () => {
    secrets.push('course-exit-secret-1');
    await ok('PUT', `/api/quizzes/course/${COURSE}/defaults`, { quitPassword: 'course-exit-secret-1' });
    expect(await lastEntry()).toMatchObject({ action: 'course-defaults.save', outcome: 'success', details: { fields: ['exitPassword'] } });
    await checkTrail();

    await ok('POST', `/api/quizzes/${COURSE}/201/exb/enable`);
    const enabled = await lastEntry();
    expect(enabled).toMatchObject({
      action: 'enforcement.enable',
      outcome: 'success',
      actor_lms_user_id: '2',
      actor_role: 'instructor',
      course_id: COURSE,
      content_id: CLASSIC,
      request_id: expect.any(String),
    });
    await checkTrail();

    await ok('POST', `/api/quizzes/${COURSE}/201/exb/regenerate-code`);
    expect(await lastEntry()).toMatchObject({ action: 'enforcement.regenerate-code', outcome: 'success', content_id: CLASSIC });
    await checkTrail();

    await ok('POST', `/api/quizzes/${COURSE}/201/exb/disable`);
    expect(await lastEntry()).toMatchObject({ action: 'enforcement.disable', outcome: 'success', content_id: CLASSIC });
    await checkTrail();
    expect((await entries()).map((entry) => entry.action)).toEqual([
      'course-defaults.save',
      'enforcement.enable',
      'enforcement.regenerate-code',
      'enforcement.disable',
    ]);
  });

  it('a refused attempt is recorded as refused with its error code', async () => {
    const response = await t.request('POST', `/api/quizzes/${COURSE}/201/exb/enable`);
    expect(response.statusCode).toBe(409);
    expect(await lastEntry()).toMatchObject({
      action: 'enforcement.enable',
      outcome: 'refused',
      content_id: CLASSIC,
      details: { errorCode: 'EXB_QUIT_PASSWORD_REQUIRED' },
    });
    const regenerate = await t.request('POST', `/api/quizzes/${COURSE}/201/exb/regenerate-code`);
    expect(regenerate.statusCode).toBe(409);
    expect(await lastEntry()).toMatchObject({ action: 'enforcement.regenerate-code', outcome: 'refused', details: { errorCode: 'EXB_NOT_ENABLED' } });
  });

  it('an LMS failure is recorded as failed', async () => {
    await t.courseExitPassword();
    // The LMS connection drops while the code is written: an unexpected failure, not a refusal.
    t.slowLms('put', '/api/v1/courses/101/quizzes/201', 0, () => {
      throw new Error('connection dropped');
    });
    const response = await t.request('POST', `/api/quizzes/${COURSE}/201/exb/enable`);
    expect(response.statusCode).toBeGreaterThanOrEqual(500);
    expect(await lastEntry()).toMatchObject({ action: 'enforcement.enable', outcome: 'failed' });
  });

  it('policy saves and resets name the changed fields, never the passwords', async () => {
    secrets.push('quiz-exit-secret-2', 'quiz-start-secret-2');
    await ok('POST', '/api/quizzes/exb-config-structured?userId=2', {
      quizId: '201',
      quitPasswordOverride: true,
      quitPassword: 'quiz-exit-secret-2',
      startPasswordOverride: true,
      startPassword: 'quiz-start-secret-2',
      urlRules: [{ match: 'domain', value: 'example.org', broadDomainConfirmed: true }],
    });
    expect(await lastEntry()).toMatchObject({
      action: 'policy.save',
      outcome: 'success',
      content_id: CLASSIC,
      details: { fields: ['urlRules', 'exitPassword', 'startPassword'] },
    });
    await checkTrail();

    await ok('POST', `/api/quizzes/${COURSE}/201/exb/reset-defaults`);
    expect(await lastEntry()).toMatchObject({
      action: 'policy.reset-defaults',
      details: { fields: ['urlRules', 'exitPassword', 'startPassword'] },
    });
    await checkTrail();
  });

  it('password reveals are recorded with the sources shown, never the values', async () => {
    secrets.push('course-exit-secret-3', 'course-start-secret-3');
    await ok('PUT', `/api/quizzes/course/${COURSE}/defaults`, { quitPassword: 'course-exit-secret-3', startPassword: 'course-start-secret-3' });
    const course = await ok('POST', `/api/quizzes/course/${COURSE}/passwords/reveal`);
    expect(course.body).toContain('course-exit-secret-3');
    expect(await lastEntry()).toMatchObject({ action: 'password.reveal', content_id: null, details: { startFrom: 'course', exitFrom: 'course' } });
    await ok('POST', `/api/quizzes/${COURSE}/201/passwords/reveal`);
    expect(await lastEntry()).toMatchObject({ action: 'password.reveal', content_id: CLASSIC, details: { exitFrom: 'course' } });
    await checkTrail();
  });

  it('exam-tool copies are recorded in the source course with the target courses', async () => {
    await t.settings.saveCourseDefaults(COURSE, {
      courseId: COURSE,
      urlRules: [],
      externalTools: [TOOL],
      startPassword: null,
      exitPassword: null,
      setupCompleted: true,
    });
    const response = await t.request('POST', `/api/quizzes/course/${COURSE}/exam-tools/calc/copy`, { body: { courseIds: ['102'] } });
    expect(response.statusCode, response.body).toBe(200);
    const entry = await lastEntry();
    expect(entry).toMatchObject({ action: 'exam-tool.copy', outcome: 'success', course_id: COURSE, details: { toolId: 'calc' } });
    const details = entry.details as { copiedTo: string[]; alreadyIn: string[]; failedFor: string[] };
    expect([...details.copiedTo, ...details.alreadyIn, ...details.failedFor]).toEqual(['102']);
    await checkTrail();
  });

  it('the Activity query lists the assessment’s recent changes, newest first, with who made them', async () => {
    await t.courseExitPassword();
    await ok('POST', `/api/quizzes/${COURSE}/201/exb/enable`);
    await ok('POST', `/api/quizzes/${COURSE}/201/exb/regenerate-code`);
    const input = encodeURIComponent(JSON.stringify({ courseId: COURSE, quizId: CLASSIC }));
    const response = await t.request('GET', `/trpc/instructor.enforcement.activity?input=${input}`);
    expect(response.statusCode, response.body).toBe(200);
    const { changes, counters } = response.json().result.data;
    expect(changes.map((change: { action: string }) => change.action)).toEqual(['enforcement.regenerate-code', 'enforcement.enable']);
    expect(changes[0]).toMatchObject({ outcome: 'success', actor: { lmsUserId: '2', role: 'instructor' }, occurredAt: expect.any(String) });
    expect(counters.downloads).toEqual({ count: 0, lastAt: null });
    expect(response.body).not.toContain(code()!);
  });
});
