import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { storeGrant } from '../support/oauth-testbed.js';
import { createAdminBed, type AdminBed } from './harness.js';
import { PRESETS, presetHelpers } from './preset-helpers.js';
import { auditEntries, codeWrites, COURSE, enforceCourse, lastSeq, lmsCodes, localState, PREVIEW, reset, RESET, seedStudentTokens } from './reset-harness.js';

/**
 * The course reset on PostgreSQL and the development LMS: what a successful reset removes and keeps, the preview the
 * dialog shows, and the refusals that come before anything changes (confirmation, a running reset, busy assessments).
 */
let t: AdminBed;
const presets = presetHelpers(() => t);

beforeAll(async () => {
  t = await createAdminBed();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.reset();
  await t.grant();
  await t.connect('101', '102');
  await enforceCourse(t);
});

describe('a successful reset', () => {
  it('removes the enforced codes in the LMS, deletes the course’s records and answers with the receipt', async () => {
    await seedStudentTokens(t);
    await storeGrant(t.bed, 2, APPLICATION_SCOPES);
    const grantsBefore = await t.sql('select lms_user_id from lms_oauth_token order by lms_user_id');
    const before = lmsCodes(t.bed.lms);
    const seq = lastSeq(t.bed.lms);

    const response = await reset(t);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      success: true,
      courseId: '101',
      assessmentsCleared: 6,
      accessCodesRemoved: 3,
      receipt: { id: expect.stringMatching(/^[0-9a-f-]{36}$/), resetAt: expect.any(String) },
    });

    // The LMS: the three enforced codes removed, one write each, in content id order; the hand-set code of quiz 204 kept.
    expect(codeWrites(t.bed.lms, seq)).toEqual([
      { path: '/api/v1/courses/101/quizzes/201', write: 'remove', status: 200, fault: null },
      { path: '/api/v1/courses/101/quizzes/202', write: 'remove', status: 200, fault: null },
      { path: '/api/quiz/v1/courses/101/quizzes/301', write: 'remove', status: 200, fault: null },
    ]);
    const after = lmsCodes(t.bed.lms);
    expect(after.quizzes).toEqual(before.quizzes.map((quiz) => (quiz.id === 201 || quiz.id === 202 ? { ...quiz, accessCode: null } : quiz)));
    expect(after.quizzes.find((quiz) => quiz.id === 204)?.accessCode).toBe('lab-2026');
    expect(after.newQuizzes.find((quiz) => quiz.id === 301)).toEqual({ id: 301, require: false, code: null });
    expect(t.bed.lms.calls.filter((call) => call.seq > seq).every((call) => call.userId === 1)).toBe(true);

    // The database: records, policy and transient state gone; the policy row kept at the next generation; grants kept.
    const local = await localState(t);
    expect(local.settings).toBe('[]');
    expect(local.cached).toBe('[]');
    expect(local.tokens).toBe('[]');
    expect(JSON.parse(local.defaults)).toEqual([{ url_rules: [], external_tools: [], exit: null, setup_completed: false, reset_generation: 1 }]);
    expect(await t.sql('select lms_user_id from lms_oauth_token order by lms_user_id')).toEqual(grantsBefore);
    const [record] = await t.sql<{ reset_receipt_id: string; reset_receipt: Record<string, unknown>; assessment_count: number; enabled_assessment_count: number }>(
      `select reset_receipt_id::text, reset_receipt, assessment_count, enabled_assessment_count from admin_course where course_id = '101'`,
    );
    expect(record).toMatchObject({ reset_receipt_id: body.receipt.id, assessment_count: 0, enabled_assessment_count: 0 });
    expect(record!.reset_receipt).toEqual({
      receiptId: body.receipt.id,
      courseId: '101',
      resetAt: body.receipt.resetAt,
      byLmsUserId: '1',
      assessmentsCleared: 6,
      accessCodesRemoved: 3,
      removedCodeIds: ['classicquiz_201', 'classicquiz_202', 'newquiz:101:301'],
      resetGeneration: 1,
    });
    // The other course is untouched, and the lock is gone.
    expect(await t.sql(`select count(*)::int as n from lease`)).toEqual([{ n: 0 }]);
    // The journal went with the records, in the same transaction.
    expect(await t.sql(`select course_id from course_reset_journal`)).toEqual([]);

    // Audited with who and what, never a code.
    const entries = await auditEntries(t);
    expect(entries).toEqual([
      { outcome: 'started', course_id: '101', actor_lms_user_id: '1', details: { assessmentsCleared: 6, codesRemoved: 3 } },
      {
        outcome: 'success',
        course_id: '101',
        actor_lms_user_id: '1',
        details: { assessmentsCleared: 6, codesRemoved: 3, receiptId: body.receipt.id },
      },
    ]);
    for (const quiz of before.quizzes) if (quiz.accessCode !== null) expect(JSON.stringify(entries)).not.toContain(quiz.accessCode);
    for (const quiz of before.quizzes) if (quiz.accessCode !== null && quiz.id !== 204) expect(t.bed.logs.join('\n')).not.toContain(quiz.accessCode);
  });

  it('advances the reset generation on every reset, and a reset course can be enforced again', async () => {
    expect((await reset(t)).statusCode).toBe(200);
    await enforceCourse(t);
    expect((await reset(t)).statusCode).toBe(200);
    expect(JSON.parse((await localState(t)).defaults)[0].reset_generation).toBe(2);
    // Nothing enforced: a reset removes no code and still clears and stores its receipt.
    const seq = lastSeq(t.bed.lms);
    const response = await reset(t);
    expect(response.json()).toMatchObject({ success: true, assessmentsCleared: 0, accessCodesRemoved: 0 });
    expect(codeWrites(t.bed.lms, seq)).toEqual([]);
  });

  it('deletes the course’s preset assignments with its catalog; the preset and other courses keep theirs', async () => {
    const preset = await presets.create();
    for (const course of ['101', '102']) {
      const rollout = await presets.call('PUT', `${PRESETS}/${preset.id}/courses/${course}`, { assigned: true });
      expect(rollout.statusCode, rollout.body).toBe(200);
    }
    expect((await t.settings.loadCourseDefaults('101'))?.externalTools).toHaveLength(1);
    expect((await reset(t)).statusCode).toBe(200);
    expect(await t.sql('select course_id from admin_tool_preset_assignment order by course_id')).toEqual([{ course_id: '102' }]);
    expect((await t.settings.loadCourseDefaults('101'))?.externalTools).toEqual([]);
    expect((await t.settings.loadCourseDefaults('102'))?.externalTools).toHaveLength(1);
    expect(await presets.find(preset.id)).toMatchObject({ assignedCourseIds: ['102'], assignedCourseCount: 1 });
  });

  it('clears the course’s pre-exam alerts, its repair opt-in and its exam-day LMS reads; other courses and the students’ steps stay', async () => {
    for (const course of ['101', '102']) {
      const contentId = course === '101' ? 'classicquiz_201' : 'classicquiz_205';
      await t.sql(
        `insert into pre_exam_sweep (course_id, content_id, starts_at, stage, found, repaired, outcome)
         values (?, ?, now() + interval '30 minutes', 'hour', 'missing', true, 'repaired')`,
        [course, contentId],
      );
      await t.sql('insert into course_sweep_option (course_id, auto_repair_before_start) values (?, true)', [course]);
      await t.sql(`insert into exb_exam_day_lms_read (course_id, content_id, kind, claimed_at, succeeded_at) values (?, ?, 'attempts', now(), now())`, [course, contentId]);
      await t.sql(`insert into exb_exam_day_roster (course_id, lms_user_id, display_name, read_at) values (?, '3', 'Student One', now())`, [course]);
      await t.sql(`insert into exb_exam_day_student (course_id, content_id, lms_user_id, launched_at) values (?, ?, '3', now())`, [course, contentId]);
    }
    const trpc = async (path: string, input?: unknown) => {
      const response = await t.app.inject({
        method: 'GET',
        url: `/trpc/${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`,
        headers: { cookie: t.session.cookie },
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json().result.data;
    };
    expect((await trpc('admin.preExamAlerts')).alerts.map((alert: { courseId: string }) => alert.courseId).sort()).toEqual(['101', '102']);

    expect((await reset(t)).statusCode).toBe(200);

    expect((await trpc('admin.preExamAlerts')).alerts).toEqual([expect.objectContaining({ courseId: '102', contentId: 'classicquiz_205', repaired: true })]);
    expect(await trpc('admin.courses.preExamSweep', { courseId: '101' })).toMatchObject({ autoRepairBeforeStart: false, alerts: [] });
    expect(await trpc('admin.courses.preExamSweep', { courseId: '102' })).toMatchObject({ autoRepairBeforeStart: true, alerts: [expect.anything()] });
    const left = async (table: string) => (await t.sql<{ course_id: string }>(`select course_id from ${table} order by course_id`)).map((row) => row.course_id);
    expect(await left('pre_exam_sweep')).toEqual(['102']);
    expect(await left('course_sweep_option')).toEqual(['102']);
    expect(await left('exb_exam_day_lms_read')).toEqual(['102']);
    expect(await left('exb_exam_day_roster')).toEqual(['102']);
    expect(await left('exb_exam_day_student')).toEqual(['101', '102']);
  });

  it('previews what it will remove, without a code and without changing anything', async () => {
    const before = { lms: lmsCodes(t.bed.lms), local: await localState(t) };
    const response = await t.request('GET', PREVIEW);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const preview = response.json();
    expect(preview).toMatchObject({ success: true, courseId: '101', courseName: 'Biology 101', assessmentsCleared: 6, accessCodesRemoved: 3 });
    expect(preview.assessments).toContainEqual({ id: 'classicquiz_201', title: 'Midterm exam', contentType: 'CLASSIC_QUIZ', enforced: true, lms: 'code' });
    expect(preview.assessments).toContainEqual({ id: 'classicquiz_204', title: 'Lab safety check', contentType: 'CLASSIC_QUIZ', enforced: false, lms: null });
    expect(preview.assessments).toContainEqual({ id: 'newquiz:101:301', title: 'Final exam (New Quizzes)', contentType: 'NEW_QUIZ', enforced: true, lms: 'code' });
    for (const quiz of before.lms.quizzes) if (quiz.accessCode !== null) expect(response.body).not.toContain(quiz.accessCode);
    expect({ lms: lmsCodes(t.bed.lms), local: await localState(t) }).toEqual(before);
  });
});

describe('refusals before anything changes', () => {
  it.each([
    ['missing', {}],
    ['another course id', { confirmation: '102' }],
    ['a number', { confirmation: 101 }],
    ['padded', { confirmation: ' 101' }],
  ])('answers 400 ADMIN_COURSE_RESET_CONFIRMATION_REQUIRED when the confirmation is %s, before any LMS call', async (_name, body) => {
    const before = { lms: lmsCodes(t.bed.lms), local: await localState(t) };
    const calls = t.bed.lms.calls.count();
    const response = await reset(t, body);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ success: false, error_code: 'ADMIN_COURSE_RESET_CONFIRMATION_REQUIRED', outcome: 'refused' });
    expect(t.bed.lms.calls.count()).toBe(calls);
    expect({ lms: lmsCodes(t.bed.lms), local: await localState(t) }).toEqual(before);
    expect((await auditEntries(t)).map((entry) => [entry.outcome, entry.details.errorCode])).toEqual([['refused', 'ADMIN_COURSE_RESET_CONFIRMATION_REQUIRED']]);
  });

  it('checks the confirmation before the administrator is confirmed through the LMS', async () => {
    // A fresh instance has confirmed nobody yet: a correct request would call the LMS first.
    const fresh = await t.appWith((config) => config);
    const calls = t.bed.lms.calls.count();
    const response = await t.request('POST', RESET, { app: fresh, body: { confirmation: 'nope' } });
    expect(response.statusCode).toBe(400);
    expect(t.bed.lms.calls.count()).toBe(calls);
  });

  it('needs the action token, and refuses a course of another account as not connected', async () => {
    const noToken = await t.request('POST', RESET, { actionToken: null, body: { confirmation: '101' } });
    expect(noToken.statusCode).toBe(403);
    await t.sql(`insert into admin_course (course_id, account_id, name, origin) values ('170', '4', 'Northfield', 'admin')`);
    const foreign = await t.request('POST', '/api/admin/courses/170/reset', { body: { confirmation: '170' } });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error_code).toBe('ADMIN_COURSE_NOT_CONNECTED');
  });

  it('answers 409 COURSE_RESET_IN_PROGRESS while another reset of the course holds its lock', async () => {
    await t.sql(`insert into lease (name, owner, expires_at) values ('course-reset:101', 'other-reset', now() + interval '1 minute')`);
    const before = lmsCodes(t.bed.lms);
    const response = await reset(t);
    expect(response.statusCode).toBe(409);
    expect(response.json().error_code).toBe('COURSE_RESET_IN_PROGRESS');
    expect(lmsCodes(t.bed.lms)).toEqual(before);
    // The other reset's lock is left to it.
    expect(await t.sql(`select owner from lease where name = 'course-reset:101'`)).toEqual([{ owner: 'other-reset' }]);
  });

  it.each([
    ['an assessment operation', 'assessment:101:classicquiz_202', 'ADMIN_COURSE_RESET_ASSESSMENT_BUSY'],
    ['a course write', 'course-write:101', 'COURSE_UPDATE_IN_PROGRESS'],
  ])('answers 409 while %s is in flight, deleting nothing and calling no LMS', async (_name, lock, code) => {
    await t.sql(`insert into lease (name, owner, expires_at) values (?, 'instructor', now() + interval '1 minute')`, [lock]);
    const before = { lms: lmsCodes(t.bed.lms), local: await localState(t) };
    const calls = t.bed.lms.calls.count();
    const response = await reset(t);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ error_code: code, outcome: 'refused' });
    expect(t.bed.lms.calls.count()).toBe(calls);
    expect({ lms: lmsCodes(t.bed.lms), local: await localState(t) }).toEqual(before);
    // The reset's own marker is released again: instructors can go on.
    expect(await t.sql(`select name from lease order by name`)).toEqual([{ name: lock }]);
  });

  it('is the route the contract names, and also answers through the typed procedure', async () => {
    const procedure = await t.app.inject({
      method: 'POST',
      url: '/trpc/admin.courses.reset',
      headers: { cookie: t.session.cookie, 'x-exb-action-token': t.session.actionToken, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
      payload: JSON.stringify({ courseId: '101', confirmation: '101' }),
    });
    expect(procedure.statusCode, procedure.body).toBe(200);
    expect(procedure.json().result.data).toMatchObject({ success: true, accessCodesRemoved: 3 });
    expect(RESET).toBe(`${COURSE}/reset`);
  });
});
