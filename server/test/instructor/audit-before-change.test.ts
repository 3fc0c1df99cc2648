import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ExternalToolConfig } from '@exb/shared/exb-policy.js';
import { COURSE, createInstructorBed, type InstructorBed } from './harness.js';

/**
 * A change never stands without its audit entry: the attempt is entered before anything changes, so a trail that
 * cannot be written stops the change, and a change that ran answers with its own outcome even when its entry cannot
 * be completed (the entry then stays `pending`). The trail's writes are refused inside PostgreSQL by a trigger.
 */

const CLASSIC = 'classicquiz_201';
const TOOL: ExternalToolConfig = {
  id: 'calc',
  label: 'Calculator',
  url: 'https://calc.example.com/app',
  resourceRules: [],
  managedByAdmin: false,
  enabled: true,
};

describe('an audited change and its entry', () => {
  let t: InstructorBed;

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
  afterEach(async () => {
    await t.sql('drop trigger if exists refuse_audit_writes on audit_entry');
    await t.sql('drop function if exists refuse_audit_writes()');
  });

  /** From now on PostgreSQL refuses every `INSERT` or `UPDATE` of the trail. */
  async function refuseTrail(operation: 'insert' | 'update') {
    await t.sql(`create function refuse_audit_writes() returns trigger language plpgsql as $$ begin raise exception 'trail refused'; end $$`);
    await t.sql(`create trigger refuse_audit_writes before ${operation} on audit_entry for each row execute function refuse_audit_writes()`);
  }

  const code = () => t.bed.lms.state.quizzes.get(201)!.accessCode;
  const entries = () => t.sql<{ action: string; outcome: string; details: Record<string, unknown> }>('select action, outcome, details from audit_entry order by id');
  const stored = () => t.settings.loadAssessmentSettings(COURSE, CLASSIC);

  async function enabled() {
    await t.courseExitPassword();
    const response = await t.request('POST', `/api/quizzes/${COURSE}/201/exb/enable`);
    expect(response.statusCode, response.body).toBe(200);
    return code();
  }

  it('a disable whose attempt cannot be entered is not made: the LMS keeps the code and the caller is told', async () => {
    const before = await enabled();
    await t.sql('delete from audit_entry');
    await refuseTrail('insert');

    const response = await t.request('POST', `/api/quizzes/${COURSE}/201/exb/disable`);
    expect(response.statusCode).toBe(500);
    expect(code()).toBe(before);
    expect(await stored()).toMatchObject({ exbRequired: true, enabled: true, accessCode: before });
    expect(await entries()).toEqual([]);
  });

  it('no enforcement, policy, default, password, copy or repair change is made without its entry', async () => {
    const before = await enabled();
    await t.settings.saveCourseDefaults(COURSE, {
      courseId: COURSE,
      urlRules: [],
      externalTools: [TOOL],
      startPassword: null,
      exitPassword: 'course-exit-1',
      setupCompleted: true,
    });
    const settingsBefore = await stored();
    await t.sql('delete from audit_entry');
    await refuseTrail('insert');

    const attempts: Array<[method: 'POST' | 'PUT', url: string, body?: unknown]> = [
      ['POST', `/api/quizzes/${COURSE}/201/exb/regenerate-code`],
      ['POST', `/api/quizzes/${COURSE}/201/exb/protection/reapply`],
      ['PUT', `/api/quizzes/course/${COURSE}/defaults`, { quitPassword: 'course-exit-2' }],
      ['POST', '/api/quizzes/exb-config-structured?userId=2', { quizId: '201', quitPasswordOverride: true, quitPassword: 'quiz-exit-2' }],
      ['POST', `/api/quizzes/${COURSE}/201/exb/reset-defaults`],
      ['POST', `/api/quizzes/course/${COURSE}/passwords/reveal`],
      ['POST', `/api/quizzes/${COURSE}/201/passwords/reveal`],
      ['POST', `/api/quizzes/course/${COURSE}/exam-tools/calc/copy`, { courseIds: ['102'] }],
    ];
    for (const [method, url, body] of attempts) {
      const response = await t.request(method, url, body === undefined ? {} : { body });
      expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(500);
      // A refused reveal shows nothing.
      expect(response.body).not.toContain('course-exit-1');
    }
    expect(code()).toBe(before);
    expect(await stored()).toEqual(settingsBefore);
    expect((await t.settings.loadCourseDefaults(COURSE))?.exitPassword).toBe('course-exit-1');
    expect((await t.settings.loadCourseDefaults('102'))?.externalTools ?? []).toEqual([]);
    expect(await entries()).toEqual([]);
  });

  it('a disable that ran answers its success when its outcome cannot be written, and its entry stays pending', async () => {
    await enabled();
    await t.sql('delete from audit_entry');
    await refuseTrail('update');

    const response = await t.request('POST', `/api/quizzes/${COURSE}/201/exb/disable`);
    expect(response.statusCode, response.body).toBe(200);
    expect(code()).toBeNull();
    expect(await stored()).toMatchObject({ exbRequired: false, enabled: false, accessCode: null });
    expect(await entries()).toEqual([{ action: 'enforcement.disable', outcome: 'pending', details: {} }]);
  });

  it('a refused attempt is completed as refused, a successful one as success, each in its one entry', async () => {
    const refused = await t.request('POST', `/api/quizzes/${COURSE}/201/exb/enable`);
    expect(refused.statusCode).toBe(409);
    await enabled();
    expect(await entries()).toEqual([
      { action: 'enforcement.enable', outcome: 'refused', details: { errorCode: 'EXB_QUIT_PASSWORD_REQUIRED' } },
      { action: 'course-defaults.save', outcome: 'success', details: { fields: ['exitPassword'] } },
      { action: 'enforcement.enable', outcome: 'success', details: {} },
    ]);
  });
});
