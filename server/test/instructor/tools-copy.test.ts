import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ExternalToolConfig } from '@exb/shared/exb-policy.js';
import { lockNames } from '../../src/domain/locks.js';
import { COURSE, createInstructorBed, LMS_ROUTES, type InstructorBed } from './harness.js';

const TOOL: ExternalToolConfig = {
  id: 'calc',
  label: 'Calculator',
  url: 'https://calc.example.com/app',
  resourceRules: [{ match: 'domain', value: 'cdn.calc.example.com', broadDomainConfirmed: true }],
  managedByAdmin: false,
  enabled: true,
};

const MANAGED: ExternalToolConfig = {
  id: 'school-dictionary',
  label: 'Dictionary',
  url: 'https://dictionary.example.com/',
  resourceRules: [],
  managedByAdmin: true,
  presetId: '7f0c2a1e-4a59-4c59-9a4e-0c9f5b2d6e11',
  enabled: true,
};

describe('exam tool copies (instructor routes)', () => {
  let t: InstructorBed;

  beforeAll(async () => {
    t = await createInstructorBed();
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    await t.reset();
    await t.grant();
    await catalog(COURSE, [TOOL, MANAGED]);
  });

  async function catalog(courseId: string, tools: ExternalToolConfig[]) {
    await t.settings.saveCourseDefaults(courseId, {
      courseId,
      urlRules: [],
      externalTools: tools,
      startPassword: null,
      exitPassword: null,
      setupCompleted: false,
    });
  }
  const targetsOf = (toolId: string, courseId = COURSE) =>
    t.request('GET', `/api/quizzes/course/${courseId}/exam-tools/${toolId}/copy-targets`);
  const copy = (courseIds: unknown, toolId = 'calc', options = {}) =>
    t.request('POST', `/api/quizzes/course/${COURSE}/exam-tools/${toolId}/copy`, { body: { courseIds }, ...options });
  const toolsOf = async (courseId: string) => (await t.settings.loadCourseDefaults(courseId))?.externalTools ?? [];

  describe('copy-targets', () => {
    it('lists the live LMS courses the user teaches, without the source course', async () => {
      const response = await targetsOf('calc');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        success: true,
        courses: [
          { courseId: '102', name: 'Chemistry 201', courseCode: 'CHEM201' },
          { courseId: '105', name: 'Physics 150 (draft)', courseCode: 'PHYS150' },
        ],
      });
      const call = t.bed.lms.calls.last(LMS_ROUTES.listCourses)!;
      expect(call.userId).toBe(2);
      expect(call.query).toMatchObject({ enrollment_type: 'teacher', enrollment_state: 'active' });
    });

    it('answers 409 for a school-managed tool and 404 for an unknown one, without an LMS call', async () => {
      const managed = await targetsOf('school-dictionary');
      expect(managed.statusCode).toBe(409);
      expect(managed.json()).toMatchObject({ success: false, error_code: 'EXAM_TOOL_MANAGED' });
      const unknown = await targetsOf('nope');
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ success: false, error_code: 'EXAM_TOOL_NOT_FOUND' });
      expect(t.bed.lms.calls.list()).toHaveLength(0);
    });

    it('needs an OAuth grant and the session course', async () => {
      await t.sql('delete from lms_oauth_token');
      const response = await targetsOf('calc');
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ success: false, requiresAuth: true, authUrl: expect.stringMatching(/^\/api\/oauth2reauthorize/) });
      await t.grant();
      expect((await targetsOf('calc', '102')).json()).toMatchObject({ error_code: 'COURSE_MISMATCH' });
    });
  });

  describe('copy', () => {
    it('appends the tool to each target and keeps it on retry', async () => {
      const first = await copy(['102', 105]);
      expect(first.statusCode).toBe(200);
      expect(first.json()).toEqual({
        success: true,
        copied: [
          { courseId: '102', name: 'Chemistry 201', courseCode: 'CHEM201', status: 'copied' },
          { courseId: '105', name: 'Physics 150 (draft)', courseCode: 'PHYS150', status: 'copied' },
        ],
        alreadyPresent: [],
        failed: [],
      });
      expect(await toolsOf('102')).toEqual([TOOL]);
      expect(await toolsOf('105')).toEqual([TOOL]);

      const retry = await copy(['102', '105']);
      expect(retry.json()).toMatchObject({ copied: [], failed: [], alreadyPresent: [{ courseId: '102', status: 'alreadyPresent' }, { courseId: '105', status: 'alreadyPresent' }] });
      expect(await toolsOf('102')).toHaveLength(1);
    });

    it('keeps an equivalent definition and gives a colliding id a new one', async () => {
      await catalog('102', [{ ...TOOL, id: 'their-calc', label: 'Their calculator' }]);
      await catalog('105', [{ ...TOOL, url: 'https://other.example.com/', label: 'Other' }]);
      const response = await copy(['102', '105']);
      expect(response.json()).toMatchObject({ alreadyPresent: [{ courseId: '102' }], copied: [{ courseId: '105' }] });
      expect(await toolsOf('102')).toHaveLength(1);
      const copied = (await toolsOf('105'))[1]!;
      expect(copied).toMatchObject({ label: 'Calculator', url: TOOL.url, resourceRules: TOOL.resourceRules, managedByAdmin: false });
      expect(copied.id).not.toBe('calc');
    });

    it('rejects targets missing from the live teacher-course list', async () => {
      // Olga teaches 104; 103 is concluded; 999 does not exist; 102 loses the teacher enrollment in the LMS.
      for (const enrollment of t.bed.lms.state.enrollments.values()) {
        if (enrollment.userId === 2 && enrollment.courseId === 102) enrollment.state = 'completed';
      }
      const response = await copy(['102', '103', '104', '999', '105']);
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.copied.map((entry: { courseId: string }) => entry.courseId)).toEqual(['105']);
      expect(body.failed.map((entry: { courseId: string; error_code: string }) => [entry.courseId, entry.error_code])).toEqual([
        ['102', 'COPY_TARGET_NOT_AUTHORIZED'],
        ['103', 'COPY_TARGET_NOT_AUTHORIZED'],
        ['104', 'COPY_TARGET_NOT_AUTHORIZED'],
        ['999', 'COPY_TARGET_NOT_AUTHORIZED'],
      ]);
      for (const courseId of ['102', '103', '104', '999']) expect(await t.settings.loadCourseDefaults(courseId)).toBeNull();
    });

    it('rejects targets whose reset generation advanced after the snapshot', async () => {
      await catalog('102', []);
      t.slowLms('get', '/api/v1/courses', 0, async () => {
        // A course reset lands while the teacher-course list is re-read.
        await t.sql("update course_defaults set reset_generation = reset_generation + 1 where course_id = '102'");
        await t.sql("insert into course_defaults (course_id, reset_generation) values ('105', 1) on conflict do nothing");
      });
      const response = await copy(['102', '105']);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        copied: [],
        failed: [
          { courseId: '102', status: 'failed', error_code: 'COPY_TARGET_RESET' },
          { courseId: '105', status: 'failed', error_code: 'COPY_TARGET_RESET' },
        ],
      });
      expect(await toolsOf('102')).toEqual([]);
      expect(await toolsOf('105')).toEqual([]);
    });

    it('a target being written or reset fails on its own', async () => {
      await t.sql(`insert into lease (name, owner, expires_at) values (?, 'x', now() + interval '1 minute'), (?, 'y', now() + interval '1 minute')`, [
        lockNames.courseWrite('102'),
        lockNames.courseReset('105'),
      ]);
      const response = await copy(['102', '105']);
      expect(response.json()).toMatchObject({
        copied: [],
        failed: [
          { courseId: '102', error_code: 'COURSE_UPDATE_IN_PROGRESS' },
          { courseId: '105', error_code: 'COURSE_RESET_IN_PROGRESS' },
        ],
      });
    });

    it('validates the target list and the tool before any LMS call', async () => {
      const cases: [unknown, string, number, string][] = [
        [['101', '102'], 'calc', 400, 'INVALID_COPY_TARGETS'],
        [[], 'calc', 400, 'INVALID_COPY_TARGETS'],
        [['abc'], 'calc', 400, 'INVALID_COPY_TARGETS'],
        [Array.from({ length: 101 }, (_, index) => String(1000 + index)), 'calc', 400, 'INVALID_COPY_TARGETS'],
        ['102', 'calc', 400, 'INVALID_REQUEST'],
        [['102'], 'school-dictionary', 409, 'EXAM_TOOL_MANAGED'],
        [['102'], 'nope', 404, 'EXAM_TOOL_NOT_FOUND'],
      ];
      for (const [courseIds, toolId, status, code] of cases) {
        const response = await copy(courseIds, toolId);
        expect(response.statusCode, `${JSON.stringify(courseIds).slice(0, 40)} ${toolId}`).toBe(status);
        expect(response.json()).toMatchObject({ success: false, error_code: code });
      }
      // Exactly 100 is allowed.
      const hundred = await copy(Array.from({ length: 100 }, (_, index) => String(1000 + index)));
      expect(hundred.statusCode).toBe(200);
      expect(hundred.json().failed).toHaveLength(100);
      expect(t.bed.lms.calls.count(LMS_ROUTES.listCourses)).toBe(1);
    });

    it('refuses cross-site requests and requests during a reset of the source course', async () => {
      expect((await copy(['102'], 'calc', { site: 'cross-site' })).json()).toMatchObject({ error_code: 'CROSS_SITE_REQUEST' });
      await t.sql(`insert into lease (name, owner, expires_at) values (?, 'r', now() + interval '1 minute')`, [lockNames.courseReset(COURSE)]);
      expect((await copy(['102'])).json()).toMatchObject({ error_code: 'COURSE_RESET_IN_PROGRESS' });
      expect(await t.settings.loadCourseDefaults('102')).toBeNull();
      expect(t.bed.lms.calls.list()).toHaveLength(0);
    });

    it('answers requiresAuth when the LMS rejects the grant, writing nothing', async () => {
      const token = [...t.bed.lms.state.tokens.values()].find((record) => record.userId === 2)!;
      t.bed.lms.oauth.revoke(token);
      const response = await copy(['102']);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ success: false, requiresAuth: true });
      expect(await t.settings.loadCourseDefaults('102')).toBeNull();
    });
  });
});
