import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { lockNames } from '../../src/domain/locks.js';
import { resolveEffectiveSettings } from '../../src/domain/settings/effective-settings.js';
import { settingsFingerprint } from '../../src/domain/settings/fingerprint.js';
import { defaultAssessmentSettings } from '../../src/domain/settings/model.js';
import { QuitTokens } from '../../src/domain/exam-browser/quit-token.js';
import { BASE_URL } from '../support/oauth-testbed.js';
import { COURSE, createInstructorBed, LMS_ROUTES, LMS_URL, type InstructorBed } from './harness.js';

const STRUCTURED = '/api/quizzes/exb-config-structured?userId=2';
const DEFAULTS = `/api/quizzes/course/${COURSE}/defaults`;

describe('course defaults and per-assessment policy (instructor routes)', () => {
  let t: InstructorBed;

  beforeAll(async () => {
    t = await createInstructorBed();
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    await t.reset();
    await t.grant();
    await t.discover();
    t.bed.lms.calls.clear();
  });

  const saveDefaults = (body: unknown, options = {}) => t.request('PUT', DEFAULTS, { body, ...options });
  const saveStructured = (body: unknown, url = STRUCTURED) => t.request('POST', url, { body });

  describe('GET and PUT /api/quizzes/course/:courseId/defaults', () => {
    it('starts empty and saves rules, tools and passwords, answering with passwords redacted', async () => {
      const empty = await t.request('GET', DEFAULTS);
      expect(empty.statusCode).toBe(200);
      expect(empty.json()).toEqual({
        success: true,
        defaults: { courseId: COURSE, urlRules: [], externalTools: [], setupCompleted: false, hasQuitPassword: false, hasStartPassword: false },
      });

      const saved = await saveDefaults({
        urlRules: [{ match: 'exact', value: 'HTTPS://Library.Example.edu/reserve#top', label: 'Reserve' }],
        externalTools: [{ label: 'Calculator', url: 'https://calc.example.com/app' }],
        quitPassword: 'exit-secret-1',
        startPassword: 'start-secret-1',
        setupCompleted: true,
      });
      expect(saved.statusCode).toBe(200);
      const body = saved.json();
      expect(body).toMatchObject({
        success: true,
        defaults: {
          courseId: COURSE,
          urlRules: [{ match: 'exact', value: 'https://library.example.edu/reserve', label: 'Reserve' }],
          externalTools: [{ label: 'Calculator', url: 'https://calc.example.com/app', managedByAdmin: false, enabled: true, resourceRules: [] }],
          setupCompleted: true,
          hasQuitPassword: true,
          hasStartPassword: true,
        },
      });
      expect(body.defaults.externalTools[0].id).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(saved.body).not.toMatch(/exit-secret-1|start-secret-1/);
      expect((await t.request('GET', DEFAULTS)).json().defaults).toEqual(body.defaults);
      expect(await t.settings.loadCourseDefaults(COURSE)).toMatchObject({ exitPassword: 'exit-secret-1', startPassword: 'start-secret-1' });
      expect(t.bed.lms.calls.list()).toHaveLength(0);
    });

    it('a field left out keeps its value; null removes a password override', async () => {
      await saveDefaults({ quitPassword: 'exit-secret-1', startPassword: 'start-secret-1', urlRules: [{ match: 'domain', value: 'example.edu', broadDomainConfirmed: true }] });
      await saveDefaults({ setupCompleted: true });
      expect(await t.settings.loadCourseDefaults(COURSE)).toMatchObject({
        exitPassword: 'exit-secret-1',
        startPassword: 'start-secret-1',
        setupCompleted: true,
        urlRules: [{ match: 'domain', value: 'example.edu', broadDomainConfirmed: true }],
      });
      const removed = await saveDefaults({ quitPassword: null });
      expect(removed.json().defaults).toMatchObject({ hasQuitPassword: false, hasStartPassword: true });
      expect((await t.settings.loadCourseDefaults(COURSE))?.exitPassword).toBeNull();
    });

    it('refuses unsafe policies with the policy error codes and saves nothing', async () => {
      await saveDefaults({ setupCompleted: true });
      const cases: [unknown, string][] = [
        [{ urlRules: [{ match: 'exact', value: 'https://example.edu/.*' }] }, 'INVALID_EXB_URL_POLICY'],
        [{ urlRules: [{ match: 'regex', value: '^https://' }] }, 'INVALID_EXB_URL_POLICY'],
        [{ urlRules: [{ match: 'exact', value: 'http://example.edu/' }] }, 'INVALID_EXB_URL_POLICY'],
        [{ urlRules: [{ match: 'domain', value: '*.example.edu', broadDomainConfirmed: true }] }, 'INVALID_EXB_DOMAIN_POLICY'],
        [{ urlRules: [{ match: 'domain', value: 'example.edu' }] }, 'INVALID_EXB_DOMAIN_POLICY'],
        [{ externalTools: [{ label: 'Calc', url: 'http://calc.example.com/' }] }, 'INVALID_EXB_TOOL_POLICY'],
        [{ externalTools: [{ label: 'Calc', url: 'https://calc.example.com/app', resourceRules: [{ match: 'domain', value: 'co.uk', broadDomainConfirmed: true }] }] }, 'INVALID_EXB_TOOL_POLICY'],
        [{ externalTools: [{ label: 'Calc', url: 'https://calc.example.com/app', managedByAdmin: true }] }, 'INVALID_EXB_TOOL_POLICY'],
        [{ quitPassword: 'pässwort' }, 'INVALID_REQUEST'],
        [{ setupCompleted: 'yes' }, 'INVALID_REQUEST'],
      ];
      for (const [body, code] of cases) {
        const response = await saveDefaults(body);
        expect(response.statusCode, JSON.stringify(body)).toBe(400);
        expect(response.json()).toMatchObject({ success: false, error_code: code });
      }
      expect(await t.settings.loadCourseDefaults(COURSE)).toMatchObject({ urlRules: [], externalTools: [], exitPassword: null });
    });

    it('keeps school-managed tools: switch on or off only', async () => {
      const managed = {
        id: 'school-dictionary',
        label: 'Dictionary',
        url: 'https://dictionary.example.com/',
        resourceRules: [],
        managedByAdmin: true,
        presetId: '7f0c2a1e-4a59-4c59-9a4e-0c9f5b2d6e11',
        enabled: true,
      };
      await t.settings.saveCourseDefaults(COURSE, {
        courseId: COURSE,
        urlRules: [],
        externalTools: [managed],
        startPassword: null,
        exitPassword: null,
        setupCompleted: false,
      });
      const changed = await saveDefaults({ externalTools: [{ ...managed, url: 'https://evil.example.com/' }] });
      expect(changed.statusCode).toBe(400);
      expect(changed.json().error_code).toBe('INVALID_EXB_TOOL_POLICY');
      const off = await saveDefaults({ externalTools: [{ id: 'school-dictionary', enabled: false }] });
      expect(off.statusCode).toBe(200);
      expect(off.json().defaults.externalTools).toEqual([{ ...managed, enabled: false }]);
      const omitted = await saveDefaults({ externalTools: [{ label: 'Calculator', url: 'https://calc.example.com/app' }] });
      expect(omitted.json().defaults.externalTools.map((tool: { id: string }) => tool.id)).toContain('school-dictionary');
    });

    it('refuses another course and cross-site writes', async () => {
      expect((await t.request('GET', '/api/quizzes/course/102/defaults')).json()).toMatchObject({ success: false, error_code: 'COURSE_MISMATCH' });
      const other = await t.request('PUT', '/api/quizzes/course/102/defaults', { body: { quitPassword: 'x' } });
      expect(other.statusCode).toBe(403);
      expect(await t.settings.loadCourseDefaults('102')).toBeNull();
      const crossSite = await saveDefaults({ quitPassword: 'x' }, { site: 'cross-site' });
      expect(crossSite.statusCode).toBe(403);
      expect(crossSite.json().error_code).toBe('CROSS_SITE_REQUEST');
      expect(await t.settings.loadCourseDefaults(COURSE)).toBeNull();
    });

    it('answers COURSE_UPDATE_IN_PROGRESS while another course-level write holds the course', async () => {
      await t.sql(`insert into lease (name, owner, expires_at) values (?, 'someone', now() + interval '1 minute')`, [lockNames.courseWrite(COURSE)]);
      const held = await saveDefaults({ quitPassword: 'x' });
      expect(held.statusCode).toBe(409);
      expect(held.json()).toMatchObject({ success: false, error_code: 'COURSE_UPDATE_IN_PROGRESS' });
      await t.sql('delete from lease');

      t.slowLms('get', '/api/v1/courses/101/assignments', 400);
      const refresh = t.request('POST', `/api/quizzes/course/${COURSE}/refresh`);
      await new Promise((resolve) => setTimeout(resolve, 150));
      const during = await saveDefaults({ quitPassword: 'x' });
      expect(during.statusCode).toBe(409);
      expect(during.json().error_code).toBe('COURSE_UPDATE_IN_PROGRESS');
      expect((await refresh).statusCode).toBe(200);
      expect((await saveDefaults({ quitPassword: 'x' })).statusCode).toBe(200);
    });
  });

  describe('POST /api/quizzes/exb-config-structured', () => {
    beforeEach(async () => {
      await saveDefaults({
        quitPassword: 'course-exit',
        externalTools: [
          { id: 'calc', label: 'Calculator', url: 'https://calc.example.com/app' },
          { id: 'dict', label: 'Dictionary', url: 'https://dict.example.com/app' },
        ],
      });
    });

    it('saves one assessment’s policy without touching enforcement or the LMS', async () => {
      expect((await t.request('POST', `/api/quizzes/${COURSE}/201/exb/enable`)).statusCode).toBe(200);
      const code = t.bed.lms.state.quizzes.get(201)!.accessCode;
      t.bed.lms.calls.clear();
      const response = await saveStructured({
        quizId: '201',
        usesCourseDefaults: false,
        urlRules: [{ match: 'exact', value: 'https://library.example.edu/reserve' }],
        quitPasswordOverride: true,
        quitPassword: 'quiz-exit',
        startPasswordOverride: true,
        startPassword: 'quiz-start',
        externalToolIds: ['dict'],
        quizOnlyExternalTools: [{ id: 'sheet', label: 'Formula sheet', url: 'https://files.example.edu/sheet.pdf' }],
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        success: true,
        message: expect.any(String),
        setting: { exbRequired: true, enabled: true, hasAccessCode: true, usesCourseDefaults: false, configValid: true },
      });
      expect(response.body).not.toMatch(/quiz-exit|quiz-start/);
      expect(await t.settings.loadAssessmentSettings(COURSE, 'classicquiz_201')).toMatchObject({
        exbRequired: true,
        accessCode: code,
        usesCourseDefaults: false,
        urlRules: [{ match: 'exact', value: 'https://library.example.edu/reserve' }],
        exitPasswordOverride: 'quiz-exit',
        startPasswordOverride: 'quiz-start',
        externalToolIds: ['dict'],
        quizOnlyTools: [{ id: 'sheet', label: 'Formula sheet', url: 'https://files.example.edu/sheet.pdf', managedByAdmin: false, enabled: true, resourceRules: [] }],
      });
      expect(t.bed.lms.calls.list()).toHaveLength(0);
    });

    it('names new quizzes by contentId, and keeps or removes password overrides', async () => {
      await saveStructured({ contentId: 'newquiz:101:301', quitPasswordOverride: true, quitPassword: 'nq-exit' });
      await saveStructured({ contentId: 'newquiz:101:301', quitPasswordOverride: true, quitPassword: null, externalToolIds: null });
      expect((await t.settings.loadAssessmentSettings(COURSE, 'newquiz:101:301'))?.exitPasswordOverride).toBe('nq-exit');
      await saveStructured({ contentId: 'newquiz:101:301', quitPasswordOverride: false, quitPassword: 'ignored' });
      expect(await t.settings.loadAssessmentSettings(COURSE, 'newquiz:101:301')).toMatchObject({ exitPasswordOverride: null, externalToolIds: null });
      // A bare id and the content id of the same quiz agree; different ones do not.
      expect((await saveStructured({ quizId: '202', contentId: 'classicquiz_202' })).statusCode).toBe(200);
      expect((await saveStructured({ quizId: '202', contentId: 'newquiz:101:301' })).json()).toMatchObject({ error_code: 'INVALID_REQUEST' });
      expect((await saveStructured({ usesCourseDefaults: true })).json()).toMatchObject({ error_code: 'INVALID_REQUEST' });
    });

    it('refuses with the contract codes', async () => {
      const cases: [unknown, number, string][] = [
        [{ quizId: '201', externalTools: [] }, 400, 'QUIZ_TOOL_DEFINITIONS_NOT_ALLOWED'],
        [{ quizId: '201', externalTools: [{ label: 'x', url: 'https://x.example.com/app' }], urlRules: 'bad' }, 400, 'QUIZ_TOOL_DEFINITIONS_NOT_ALLOWED'],
        [{ quizId: '201', urlRules: [{ match: 'exact', value: 'https://example.edu/*' }] }, 400, 'INVALID_EXB_URL_POLICY'],
        [{ quizId: '201', urlRules: [{ match: 'domain', value: '*.example.edu', broadDomainConfirmed: true }] }, 400, 'INVALID_EXB_DOMAIN_POLICY'],
        [{ quizId: '201', quizOnlyExternalTools: [{ label: 'x', url: 'ftp://x.example.com/' }] }, 400, 'INVALID_EXB_TOOL_POLICY'],
        [{ quizId: '201', quizOnlyExternalTools: [{ id: 'calc', label: 'x', url: 'https://x.example.com/app' }] }, 400, 'INVALID_EXB_TOOL_POLICY'],
        [{ quizId: '201', externalToolIds: ['calc', 'nope'] }, 400, 'INVALID_EXB_TOOL_SELECTION'],
        [{ quizId: '201', externalToolIds: 'calc' }, 400, 'INVALID_EXB_TOOL_SELECTION'],
        [{ quizId: '205' }, 404, 'ASSESSMENT_NOT_FOUND'],
        [{ contentId: 'newquiz:102:303' }, 404, 'ASSESSMENT_NOT_FOUND'],
      ];
      for (const [body, status, code] of cases) {
        const response = await saveStructured(body);
        expect(response.statusCode, JSON.stringify(body)).toBe(status);
        expect(response.json()).toMatchObject({ success: false, error_code: code });
      }
      expect(await t.settings.loadAssessmentSettings(COURSE, 'classicquiz_201')).toBeNull();
    });

    it('userId must be the session user', async () => {
      const other = await saveStructured({ quizId: '201' }, '/api/quizzes/exb-config-structured?userId=3');
      expect(other.statusCode).toBe(403);
      expect(other.json()).toMatchObject({ success: false, error_code: 'USER_MISMATCH' });
      const missing = await saveStructured({ quizId: '201' }, '/api/quizzes/exb-config-structured');
      expect(missing.statusCode).toBe(400);
      // The body cannot stand in for the query.
      const inBody = await saveStructured({ quizId: '201', userId: '2' }, '/api/quizzes/exb-config-structured?userId=7');
      expect(inBody.statusCode).toBe(403);
      expect(await t.settings.loadAssessmentSettings(COURSE, 'classicquiz_201')).toBeNull();
    });
  });

  describe('the settings fingerprint', () => {
    // As the student flow computes it: the quit URL derives from the stored access code.
    async function fingerprint(contentId: string): Promise<string> {
      const quitTokens = QuitTokens.fromAppSecret(t.bed.t.config.secrets.appSecret);
      const { assessment, courseDefaults } = await t.settings.loadPolicyInputs(COURSE, contentId);
      const settings = assessment ?? defaultAssessmentSettings(COURSE, contentId);
      const effective = resolveEffectiveSettings({ assessment: settings, courseDefaults });
      return settingsFingerprint(effective, {
        lmsOrigin: LMS_URL,
        serviceOrigin: BASE_URL,
        quitUrl: settings.accessCode === null ? null : quitTokens.quitUrl(BASE_URL, COURSE, contentId, settings.accessCode),
      });
    }

    it('changes exactly when a configuration input changes', async () => {
      const id = 'classicquiz_201';
      const steps: [string, () => Promise<unknown>, boolean][] = [
        ['course exit password set', () => saveDefaults({ quitPassword: 'exit-1' }), true],
        ['same exit password saved again', () => saveDefaults({ quitPassword: 'exit-1' }), false],
        ['setup marked complete', () => saveDefaults({ setupCompleted: true }), false],
        ['assessments refreshed with a new title', async () => {
          t.bed.lms.state.quizzes.get(201)!.title = 'Renamed';
          await t.discover();
        }, false],
        ['own rules equal to the (empty) course rules', () => saveStructured({ quizId: '201', usesCourseDefaults: false, urlRules: [] }), false],
        ['a URL rule added', () => saveStructured({ quizId: '201', urlRules: [{ match: 'exact', value: 'https://library.example.edu/r' }] }), true],
        ['the same rule spelled differently', () => saveStructured({ quizId: '201', urlRules: [{ match: 'exact', value: 'HTTPS://LIBRARY.example.edu/r#x', label: 'Library' }] }), false],
        ['a course tool added (inherited)', () => saveDefaults({ externalTools: [{ id: 'calc', label: 'Calculator', url: 'https://calc.example.com/app' }] }), true],
        ['the tool renamed', () => saveDefaults({ externalTools: [{ id: 'calc', label: 'Calc', url: 'https://calc.example.com/app' }] }), false],
        ['the tool deselected', () => saveStructured({ quizId: '201', externalToolIds: [] }), true],
        ['enforcement enabled (access code set)', () => t.request('POST', `/api/quizzes/${COURSE}/201/exb/enable`), true],
        ['enabled again', () => t.request('POST', `/api/quizzes/${COURSE}/201/exb/enable`), false],
        ['passwords revealed', () => t.request('POST', `/api/quizzes/${COURSE}/201/passwords/reveal`), false],
        ['status read', () => t.request('GET', `/api/quizzes/${COURSE}/201/exb/status`), false],
        ['access code regenerated', () => t.request('POST', `/api/quizzes/${COURSE}/201/exb/regenerate-code`), true],
        ['exit password override', () => saveStructured({ quizId: '201', quitPasswordOverride: true, quitPassword: 'exit-2' }), true],
        ['reset to course defaults', () => t.request('POST', `/api/quizzes/${COURSE}/201/exb/reset-defaults`), true],
        ['reset to course defaults again', () => t.request('POST', `/api/quizzes/${COURSE}/201/exb/reset-defaults`), false],
        ['enforcement disabled (access code removed)', () => t.request('POST', `/api/quizzes/${COURSE}/201/exb/disable`), true],
      ];
      let previous = await fingerprint(id);
      for (const [name, step, changes] of steps) {
        const result = await step();
        if (result && typeof result === 'object' && 'statusCode' in result) expect((result as { statusCode: number }).statusCode, name).toBeLessThan(400);
        const next = await fingerprint(id);
        expect(next !== previous, name).toBe(changes);
        previous = next;
      }
      // Enable, enable again (the same code written back), regenerate, disable.
      expect(t.bed.lms.calls.count(LMS_ROUTES.updateQuiz)).toBe(4);
    });
  });
});
