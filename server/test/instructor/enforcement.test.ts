import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ACCESS_CODE_LENGTH, isGeneratedAccessCode } from '../../src/domain/enforcement/code-generator.js';
import { lockNames } from '../../src/domain/locks.js';
import { COURSE, createInstructorBed, LMS_ROUTES, type InstructorBed } from './harness.js';

const CLASSIC = 'classicquiz_201';
const NEW_QUIZ = 'newquiz:101:301';

describe('enforcement (instructor routes)', () => {
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

  const enable = (quizId: string, options = {}) => t.request('POST', `/api/quizzes/${COURSE}/${quizId}/exb/enable`, options);
  const disable = (quizId: string, options = {}) => t.request('POST', `/api/quizzes/${COURSE}/${quizId}/exb/disable`, options);
  const regenerate = (quizId: string, options = {}) => t.request('POST', `/api/quizzes/${COURSE}/${quizId}/exb/regenerate-code`, options);
  const stored = (contentId: string) => t.settings.loadAssessmentSettings(COURSE, contentId);
  const classicCode = () => t.bed.lms.state.quizzes.get(201)!.accessCode;
  const newQuizSettings = () => t.bed.lms.state.newQuizSettings(301);

  describe('enable', () => {
    it('sets a generated access code on the classic quiz in the LMS, then stores the state', async () => {
      await t.courseExitPassword();
      const response = await enable('201');
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body).toEqual({
        success: true,
        message: expect.any(String),
        setting: { exbRequired: true, enabled: true, hasAccessCode: true, configValid: true },
      });
      const code = classicCode();
      expect(isGeneratedAccessCode(code)).toBe(true);
      expect(code).toHaveLength(ACCESS_CODE_LENGTH);
      const call = t.bed.lms.calls.last(LMS_ROUTES.updateQuiz)!;
      expect(call.userId).toBe(2);
      expect(call.body).toMatchObject({ quiz: { access_code: code, notify_of_update: false } });
      expect(await stored(CLASSIC)).toMatchObject({ exbRequired: true, enabled: true, accessCode: code, verificationStatus: 'verified' });
      expect(response.body).not.toContain(code!);
    });

    it('sets require_student_access_code and the code on a new quiz', async () => {
      await t.courseExitPassword();
      const response = await enable(NEW_QUIZ);
      expect(response.statusCode).toBe(200);
      const settings = newQuizSettings();
      expect(settings.require_student_access_code).toBe(true);
      expect(isGeneratedAccessCode(settings.student_access_code)).toBe(true);
      expect(t.bed.lms.calls.last(LMS_ROUTES.patchNewQuiz)!.body).toMatchObject({
        quiz: { quiz_settings: { require_student_access_code: true, student_access_code: settings.student_access_code } },
      });
      expect((await stored(NEW_QUIZ))?.accessCode).toBe(settings.student_access_code);
    });

    it('the student flow sees the assessment as required exactly while enforcement is on', async () => {
      await t.courseExitPassword();
      const required = async (courseId: string, contentId: string) =>
        (await t.request('GET', `/api/exb/requirement/${courseId}/${encodeURIComponent(contentId)}`, { cookie: null })).json().exbRequired;
      expect(await required(COURSE, CLASSIC)).toBe(false);
      await enable('201');
      await enable(NEW_QUIZ);
      expect(await required(COURSE, CLASSIC)).toBe(true);
      expect(await required(COURSE, NEW_QUIZ)).toBe(true);
      expect(await required('102', CLASSIC)).toBe(false);
      await disable('201');
      expect(await required(COURSE, CLASSIC)).toBe(false);
    });

    it('enabling again keeps the code in use', async () => {
      await t.courseExitPassword();
      await enable('201');
      const code = classicCode();
      expect((await enable('classicquiz_201')).statusCode).toBe(200);
      expect(classicCode()).toBe(code);
      expect((await stored(CLASSIC))?.accessCode).toBe(code);
    });

    it('requires an effective exit password and calls no LMS without one', async () => {
      const response = await enable('201');
      expect(response.statusCode).toBe(409);
      expect(response.json()).toMatchObject({ success: false, error_code: 'EXB_QUIT_PASSWORD_REQUIRED' });
      expect(t.bed.lms.calls.count(LMS_ROUTES.updateQuiz)).toBe(0);
      expect(await stored(CLASSIC)).toBeNull();
    });

    it('accepts an assessment override or the managed default as the exit password', async () => {
      const policy = await t.request('POST', '/api/quizzes/exb-config-structured?userId=2', {
        body: { quizId: '202', quitPasswordOverride: true, quitPassword: 'assessment-exit' },
      });
      expect(policy.statusCode).toBe(200);
      expect((await enable('202')).statusCode).toBe(200);

      const managedApp = await t.appWith((config) => ({ ...config, exb: { ...config.exb, managedQuitPassword: 'managed-exit' } }));
      const response = await enable('203', { app: managedApp });
      expect(response.statusCode).toBe(200);
      expect(response.json().setting.configValid).toBe(true);
    });

    it('leaves local state unchanged when the LMS call fails', async () => {
      await t.courseExitPassword();
      for (const fault of [{ status: 500, times: 10 }, { kind: 'forbidden' as const }, { status: 400 }]) {
        t.bed.lms.faults.clear();
        t.bed.lms.faults.next(LMS_ROUTES.updateQuiz, fault);
        const response = await enable('201');
        expect(response.statusCode).toBeGreaterThanOrEqual(400);
        expect(response.json().success).toBe(false);
        expect(await stored(CLASSIC)).toBeNull();
        expect(classicCode()).toBeNull();
      }
      t.bed.lms.faults.clear();
      t.bed.lms.faults.forbidden(LMS_ROUTES.updateQuiz);
      expect((await enable('201')).json()).toMatchObject({ error_code: 'LMS_PERMISSION_DENIED' });
    });

    it('a lost LMS answer (change applied, response lost): local state unchanged and the LMS put back', async () => {
      await t.courseExitPassword();
      t.bed.lms.faults.next(LMS_ROUTES.patchNewQuiz, { kind: 'network-error', applyFirst: true });
      const response = await enable(NEW_QUIZ);
      expect(response.statusCode).toBe(502);
      expect(await stored(NEW_QUIZ)).toBeNull();
      const patches = t.bed.lms.calls.filter(LMS_ROUTES.patchNewQuiz);
      expect(patches).toHaveLength(2);
      expect(patches[1]!.body).toMatchObject({ quiz: { quiz_settings: { require_student_access_code: false, student_access_code: null } } });
      expect(newQuizSettings()).toMatchObject({ require_student_access_code: false, student_access_code: null });
    });

    it('a timed-out regeneration puts the stored code back in the LMS', async () => {
      await t.courseExitPassword();
      await enable('201');
      const code = classicCode();
      t.bed.lms.faults.next(LMS_ROUTES.updateQuiz, { kind: 'timeout', applyFirst: true, ms: 5_000 });
      const response = await regenerate('201');
      expect(response.statusCode).toBe(504);
      expect(response.json()).toMatchObject({ success: false, error_code: 'LMS_TIMEOUT' });
      expect(classicCode()).toBe(code);
      expect((await stored(CLASSIC))?.accessCode).toBe(code);
    });

    it('answers requiresAuth when the grant was revoked, and changes nothing', async () => {
      await t.courseExitPassword();
      const token = [...t.bed.lms.state.tokens.values()].find((record) => record.userId === 2)!;
      t.bed.lms.oauth.revoke(token);
      const response = await enable('201');
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ success: false, requiresAuth: true });
      expect(response.json().authUrl).toMatch(/^\/api\/oauth2reauthorize/);
      expect(await stored(CLASSIC)).toBeNull();
    });

    it('puts the LMS back when the local save fails after the LMS changed', async () => {
      await t.courseExitPassword();
      await enable('201');
      const code = classicCode();
      await t.sql(`create function refuse_setting_writes() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`);
      await t.sql('create trigger refuse_setting_writes before update on assessment_setting for each row execute function refuse_setting_writes()');
      try {
        const response = await regenerate('201');
        expect(response.statusCode).toBe(500);
        expect(response.json()).toEqual({ success: false, error_code: 'INTERNAL_ERROR', message: expect.any(String) });
        expect(t.bed.lms.calls.count(LMS_ROUTES.updateQuiz)).toBe(3);
        expect(classicCode()).toBe(code);
        expect((await stored(CLASSIC))?.accessCode).toBe(code);
      } finally {
        await t.sql('drop trigger refuse_setting_writes on assessment_setting');
        await t.sql('drop function refuse_setting_writes()');
      }
    });
  });

  describe('disable', () => {
    beforeEach(async () => {
      await t.courseExitPassword();
      await enable('201');
      await enable(NEW_QUIZ);
    });

    it('removes the access code in the LMS, then clears local state', async () => {
      const response = await disable('201');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ success: true, message: expect.any(String), setting: { exbRequired: false, enabled: false, hasAccessCode: false } });
      expect(classicCode()).toBeNull();
      expect(t.bed.lms.calls.last(LMS_ROUTES.updateQuiz)!.body).toMatchObject({ quiz: { access_code: null } });
      expect(await stored(CLASSIC)).toMatchObject({ exbRequired: false, enabled: false, accessCode: null });

      expect((await disable(NEW_QUIZ)).statusCode).toBe(200);
      expect(newQuizSettings()).toMatchObject({ require_student_access_code: false, student_access_code: null });
    });

    it('keeps local state when the LMS removal fails', async () => {
      const before = await stored(CLASSIC);
      t.bed.lms.faults.next(LMS_ROUTES.updateQuiz, { status: 503, times: 10 });
      const response = await disable('201');
      expect(response.statusCode).toBe(502);
      expect(await stored(CLASSIC)).toEqual(before);
      expect(classicCode()).toBe(before!.accessCode);
    });

    it('leaves an access code the instructor set in the LMS alone when enforcement was never on', async () => {
      const response = await disable('204');
      expect(response.statusCode).toBe(200);
      expect(t.bed.lms.state.quizzes.get(204)!.accessCode).toBe('lab-2026');
      expect(t.bed.lms.calls.filter((call) => call.route === LMS_ROUTES.updateQuiz && call.params.id === '204')).toHaveLength(0);
    });

    it('still clears local state when the quiz was deleted in the LMS', async () => {
      t.bed.lms.state.quizzes.get(201)!.deleted = true;
      expect((await disable('201')).statusCode).toBe(200);
      expect(await stored(CLASSIC)).toMatchObject({ exbRequired: false, accessCode: null });
    });
  });

  describe('PUT /api/quizzes/:quizId/exb', () => {
    it('enables and disables by `required`, scoped to the session course', async () => {
      await t.courseExitPassword();
      const on = await t.request('PUT', '/api/quizzes/201/exb', { body: { required: true } });
      expect(on.statusCode).toBe(200);
      expect(on.json().setting).toEqual({ exbRequired: true, enabled: true, hasAccessCode: true, configValid: true });
      expect(isGeneratedAccessCode(classicCode())).toBe(true);
      const off = await t.request('PUT', `/api/quizzes/${encodeURIComponent(NEW_QUIZ)}/exb`, { body: { required: false } });
      expect(off.statusCode).toBe(200);
      expect((await t.request('PUT', '/api/quizzes/classicquiz_201/exb', { body: { required: false } })).statusCode).toBe(200);
      expect(classicCode()).toBeNull();

      const missing = await t.request('PUT', '/api/quizzes/201/exb', { body: {} });
      expect(missing.statusCode).toBe(400);
      expect(missing.json()).toMatchObject({ success: false, error_code: 'INVALID_REQUEST' });
      const foreign = await t.request('PUT', '/api/quizzes/205/exb', { body: { required: true } });
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json().error_code).toBe('ASSESSMENT_NOT_FOUND');
    });
  });

  describe('regenerate-code', () => {
    it('sets a new code in the LMS at once and stores it; the code is not returned', async () => {
      await t.courseExitPassword();
      await enable('201');
      const old = classicCode()!;
      const response = await regenerate('201');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ success: true, message: expect.any(String) });
      const fresh = classicCode()!;
      expect(fresh).not.toBe(old);
      expect(isGeneratedAccessCode(fresh)).toBe(true);
      expect(response.body).not.toContain(fresh);
      expect((await stored(CLASSIC))?.accessCode).toBe(fresh);
      // The old code no longer opens the quiz in the LMS, as a student checking a code sees it.
      const studentToken = t.bed.lms.oauth.issueToken({
        user: 'student1',
        scopes: ['url:POST|/api/v1/courses/:course_id/quizzes/:id/validate_access_code'],
      }).accessToken;
      const validate = async (code: string) =>
        (
          await fetch(`${t.bed.lms.baseUrl}/api/v1/courses/101/quizzes/201/validate_access_code`, {
            method: 'POST',
            headers: { authorization: `Bearer ${studentToken}`, 'content-type': 'application/json' },
            body: JSON.stringify({ access_code: code }),
          })
        ).json();
      expect(await validate(old)).toBe(false);
      expect(await validate(fresh)).toBe(true);
    });

    it('answers EXB_NOT_ENABLED when enforcement is off', async () => {
      const response = await regenerate('201');
      expect(response.statusCode).toBe(409);
      expect(response.json()).toMatchObject({ success: false, error_code: 'EXB_NOT_ENABLED' });
      expect(t.bed.lms.calls.count(LMS_ROUTES.updateQuiz)).toBe(0);
    });

    it('keeps the old code everywhere when the LMS refuses the new one', async () => {
      await t.courseExitPassword();
      await enable(NEW_QUIZ);
      const old = newQuizSettings().student_access_code;
      t.bed.lms.faults.next(LMS_ROUTES.patchNewQuiz, { status: 500, times: 10 });
      expect((await regenerate(NEW_QUIZ)).statusCode).toBe(502);
      expect(newQuizSettings().student_access_code).toBe(old);
      expect((await stored(NEW_QUIZ))?.accessCode).toBe(old);
    });
  });

  describe('reset-defaults, config and status', () => {
    it('reset-defaults clears policy and overrides but keeps enforcement and the code', async () => {
      await t.courseExitPassword();
      await t.request('POST', '/api/quizzes/exb-config-structured?userId=2', {
        body: {
          quizId: '201',
          usesCourseDefaults: false,
          urlRules: [{ match: 'exact', value: 'https://library.example.edu/reserve' }],
          startPasswordOverride: true,
          startPassword: 'start-1',
          quitPasswordOverride: true,
          quitPassword: 'exit-1',
          externalToolIds: [],
        },
      });
      await enable('201');
      const code = classicCode();
      const response = await t.request('POST', `/api/quizzes/${COURSE}/201/exb/reset-defaults`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        success: true,
        message: expect.any(String),
        setting: { exbRequired: true, enabled: true, hasAccessCode: true, usesCourseDefaults: true, configValid: true },
      });
      expect(await stored(CLASSIC)).toMatchObject({
        exbRequired: true,
        accessCode: code,
        usesCourseDefaults: true,
        urlRules: [],
        externalToolIds: null,
        quizOnlyTools: [],
        startPasswordOverride: null,
        exitPasswordOverride: null,
      });
      expect(t.bed.lms.calls.count(LMS_ROUTES.updateQuiz)).toBe(1);
    });

    it('GET .../exb/config redirects to the exam-browser launch without an LMS call', async () => {
      const response = await t.request('GET', `/api/quizzes/${COURSE}/201/exb/config`);
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe('/exb/launch/classicquiz_201');
      const newQuiz = await t.request('GET', `/api/quizzes/${COURSE}/${encodeURIComponent(NEW_QUIZ)}/exb/config`);
      expect(newQuiz.headers.location).toBe('/exb/launch/newquiz:101:301');
      expect(t.bed.lms.calls.list()).toHaveLength(0);
      expect((await t.request('GET', `/api/quizzes/102/205/exb/config`)).statusCode).toBe(403);
    });

    it('GET .../exb/status is secret free', async () => {
      await t.request('PUT', `/api/quizzes/course/${COURSE}/defaults`, {
        body: {
          quitPassword: 'course-exit-secret',
          startPassword: 'course-start-secret',
          urlRules: [
            { match: 'domain', value: 'Library.Example.edu', broadDomainConfirmed: true },
            { match: 'exact', value: 'https://journals.example.org/a?b=c' },
          ],
          externalTools: [
            {
              id: 'calc',
              label: 'Calculator',
              url: 'https://calc.example.com/app',
              resourceRules: [{ match: 'domain', value: 'cdn.calc.example.com', broadDomainConfirmed: true }],
            },
          ],
        },
      });
      await enable('201');
      const response = await t.request('GET', `/api/quizzes/${COURSE}/201/exb/status`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        success: true,
        authenticated: true,
        exbEnabled: true,
        hasAccessCode: true,
        configValid: true,
        lmsDomain: 'lms.example.test',
        ssoDomains: [],
        educationalToolDomains: ['calc.example.com', 'cdn.calc.example.com'],
        customDomains: ['journals.example.org', 'library.example.edu'],
        externalTools: [{ id: 'calc', label: 'Calculator', url: 'https://calc.example.com/app' }],
      });
      for (const secret of [classicCode()!, 'course-exit-secret', 'course-start-secret']) expect(response.body).not.toContain(secret);

      // A revoked grant still proves who the instructor is: the status says the LMS needs authorizing again.
      await t.sql('update lms_oauth_token set reauthorization_required_at = now()');
      expect((await t.request('GET', `/api/quizzes/${COURSE}/201/exb/status`)).json().authenticated).toBe(false);
      // Without any grant nothing proves the user id, so nothing course-scoped answers.
      await t.sql('delete from lms_oauth_token');
      const unproven = await t.request('GET', `/api/quizzes/${COURSE}/201/exb/status`);
      expect(unproven.statusCode).toBe(401);
      expect(unproven.json()).toMatchObject({ error_code: 'LMS_AUTHORIZATION_REQUIRED', requiresAuth: true });
    });
  });

  describe('locks, resets and scoping', () => {
    beforeEach(async () => {
      await t.courseExitPassword();
    });

    it('parallel enables of one assessment: one runs, the others get 409', async () => {
      t.slowLms('put', '/api/v1/courses/101/quizzes/201', 300);
      const responses = await Promise.all(Array.from({ length: 6 }, () => enable('201')));
      expect(responses.filter((response) => response.statusCode === 200)).toHaveLength(1);
      for (const response of responses.filter((candidate) => candidate.statusCode !== 200)) {
        expect(response.statusCode).toBe(409);
        expect(response.json()).toMatchObject({ success: false, error_code: 'ASSESSMENT_OPERATION_IN_PROGRESS' });
      }
      expect(t.bed.lms.calls.count(LMS_ROUTES.updateQuiz)).toBe(1);
      // The lock is gone afterwards; a later request proceeds.
      expect(await t.sql('select * from lease')).toHaveLength(0);
      expect((await disable('201')).statusCode).toBe(200);
    });

    it('every kind of assessment mutation overlapping a running one gets 409', async () => {
      let reached!: () => void;
      const lmsReached = new Promise<void>((resolve) => (reached = resolve));
      t.slowLms('put', '/api/v1/courses/101/quizzes/201', 400, () => reached());
      const running = enable('201');
      await lmsReached;
      const overlapping = await Promise.all([
        enable('201'),
        regenerate('201'),
        disable('201'),
        t.request('PUT', '/api/quizzes/201/exb', { body: { required: false } }),
        t.request('POST', `/api/quizzes/${COURSE}/201/exb/reset-defaults`),
        t.request('POST', '/api/quizzes/exb-config-structured?userId=2', { body: { quizId: '201', usesCourseDefaults: true } }),
      ]);
      for (const response of overlapping) {
        expect(response.statusCode).toBe(409);
        expect(response.json()).toMatchObject({ success: false, error_code: 'ASSESSMENT_OPERATION_IN_PROGRESS' });
      }
      expect((await running).statusCode).toBe(200);
      expect(t.bed.lms.calls.count(LMS_ROUTES.updateQuiz)).toBe(1);
    });

    it('parallel requests on two instances share the lock', async () => {
      t.slowLms('patch', '/api/quiz/v1/courses/101/quizzes/301', 300);
      const second = t.bed.second;
      const cookie = t.sessionCookie((await import('../support/sessions.js')).instructor(), second);
      const responses = await Promise.all([enable(NEW_QUIZ), enable(NEW_QUIZ, { app: second, cookie })]);
      expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 409]);
      expect(t.bed.lms.calls.count(LMS_ROUTES.patchNewQuiz)).toBe(1);
    });

    it('different assessments do not block each other', async () => {
      t.slowLms('put', '/api/v1/courses/101/quizzes/201', 200);
      const responses = await Promise.all([enable('201'), enable('202'), enable(NEW_QUIZ)]);
      expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200]);
    });

    it('every mutation answers COURSE_RESET_IN_PROGRESS while a course reset runs', async () => {
      await enable('201');
      t.bed.lms.calls.clear();
      await t.sql(`insert into lease (name, owner, expires_at) values (?, 'reset', now() + interval '1 minute')`, [lockNames.courseReset(COURSE)]);
      const mutations = [
        enable('202'),
        disable('201'),
        regenerate('201'),
        t.request('POST', `/api/quizzes/${COURSE}/201/exb/reset-defaults`),
        t.request('PUT', '/api/quizzes/201/exb', { body: { required: false } }),
        t.request('POST', '/api/quizzes/exb-config-structured?userId=2', { body: { quizId: '201' } }),
        t.request('PUT', `/api/quizzes/course/${COURSE}/defaults`, { body: { setupCompleted: true } }),
        t.request('POST', `/api/quizzes/course/${COURSE}/refresh`),
        t.request('POST', `/api/quizzes/course/${COURSE}/passwords/reveal`),
        t.request('POST', `/api/quizzes/${COURSE}/201/passwords/reveal`),
      ];
      for (const response of await Promise.all(mutations)) {
        expect(response.statusCode).toBe(409);
        expect(response.json()).toMatchObject({ success: false, error_code: 'COURSE_RESET_IN_PROGRESS' });
      }
      expect(t.bed.lms.calls.list()).toHaveLength(0);
      // Reads still work during the reset.
      expect((await t.request('GET', '/api/quizzes')).statusCode).toBe(200);
      // An expired marker no longer blocks.
      await t.sql(`update lease set expires_at = now() - interval '1 second'`);
      expect((await enable('202')).statusCode).toBe(200);
    });

    it('rejects another course’s ids', async () => {
      const otherCoursePath = await enable('205');
      expect(otherCoursePath.statusCode).toBe(404);
      expect(otherCoursePath.json().error_code).toBe('ASSESSMENT_NOT_FOUND');
      const otherNewQuiz = await enable('newquiz:102:303');
      expect(otherNewQuiz.statusCode).toBe(404);
      for (const url of [`/api/quizzes/102/205/exb/enable`, `/api/quizzes/102/201/exb/disable`, `/api/quizzes/102/201/exb/regenerate-code`]) {
        const response = await t.request('POST', url);
        expect(response.statusCode).toBe(403);
        expect(response.json()).toMatchObject({ success: false, error_code: 'COURSE_MISMATCH' });
      }
      expect(t.bed.lms.state.quizzes.get(205)!.accessCode).toBeNull();
      expect(t.bed.lms.calls.count(LMS_ROUTES.updateQuiz)).toBe(0);
    });

    it('rejects cross-site mutations before anything happens', async () => {
      const response = await enable('201', { site: 'cross-site' });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ success: false, error_code: 'CROSS_SITE_REQUEST' });
      expect(t.bed.lms.calls.list()).toHaveLength(0);
      expect(await stored(CLASSIC)).toBeNull();
      // Without Fetch Metadata (older browsers, scripts) the Origin must be the service's own; without either, refused.
      expect((await enable('201', { site: null })).json()).toMatchObject({ error_code: 'CROSS_SITE_REQUEST' });
      expect((await enable('201', { site: null, headers: { origin: 'https://evil.example.test' } })).statusCode).toBe(403);
      expect(t.bed.lms.calls.list()).toHaveLength(0);
      expect((await enable('201', { site: null, headers: { origin: t.bed.t.config.baseUrl } })).statusCode).toBe(200);
    });
  });

  describe('the typed procedures behind the REST paths', () => {
    it('the same rules answer on /trpc, with the contract error code in the error data', async () => {
      await t.courseExitPassword();
      const crossSite = await t.request('POST', '/trpc/instructor.enforcement.enable', {
        body: { courseId: COURSE, quizId: '201' },
        site: 'cross-site',
      });
      expect(crossSite.statusCode).toBe(403);
      expect(crossSite.json().error.data.errorCode).toBe('CROSS_SITE_REQUEST');
      const ok = await t.request('POST', '/trpc/instructor.enforcement.enable', { body: { courseId: COURSE, quizId: '201' } });
      expect(ok.statusCode).toBe(200);
      expect(ok.json().result.data.setting.exbRequired).toBe(true);
      const notEnabled = await t.request('POST', '/trpc/instructor.enforcement.regenerateCode', { body: { courseId: COURSE, quizId: '202' } });
      expect(notEnabled.statusCode).toBe(409);
      expect(notEnabled.json().error.data.errorCode).toBe('EXB_NOT_ENABLED');
      await t.sql('delete from lms_oauth_token');
      const auth = await t.request('POST', '/trpc/instructor.enforcement.regenerateCode', { body: { courseId: COURSE, quizId: '201' } });
      expect(auth.statusCode).toBe(401);
      expect(auth.json().error.data).toMatchObject({ errorCode: 'LMS_AUTHORIZATION_REQUIRED', authUrl: expect.stringMatching(/^\/api\/oauth2reauthorize/) });
    });
  });
});
