import { expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { MockLms } from '../../../e2e/src/lms/index.js';
import { resetRecoveryLms } from '../../src/app.js';
import type { AppContext } from '../../src/context.js';
import type { AdminBed } from './harness.js';

/**
 * What the course reset tests share: course 101 of the development LMS with two classic quizzes and a new quiz enforced
 * by the administrator, snapshots of what the LMS and the database hold, and the reset request itself.
 */

export const COURSE = '/api/admin/courses/101';
export const RESET = `${COURSE}/reset`;
export const PREVIEW = `${COURSE}/reset-preview`;

/** Content ids the setup enforces, in the order the reset removes their codes (content id order). */
export const ENFORCED = ['classicquiz_201', 'classicquiz_202', 'newquiz:101:301'] as const;

export const ROUTES = {
  getCourse: 'GET /api/v1/courses/:id',
  listQuizzes: 'GET /api/v1/courses/:course_id/quizzes',
  listAssignments: 'GET /api/v1/courses/:course_id/assignments',
  getQuiz: 'GET /api/v1/courses/:course_id/quizzes/:id',
  getNewQuiz: 'GET /api/quiz/v1/courses/:course_id/quizzes/:assignment_id',
  updateQuiz: 'PUT /api/v1/courses/:course_id/quizzes/:id',
  patchNewQuiz: 'PATCH /api/quiz/v1/courses/:course_id/quizzes/:assignment_id',
} as const;

/** Discovers course 101, gives it an exit password and requires the exam browser for the three `ENFORCED` quizzes. */
export async function enforceCourse(t: AdminBed): Promise<void> {
  expect((await t.request('POST', `${COURSE}/refresh`)).statusCode).toBe(200);
  await t.settings.saveCourseDefaults('101', {
    courseId: '101',
    urlRules: [{ id: 'r1', match: 'exact', value: 'https://example.org/allowed' }],
    externalTools: [],
    startPassword: 'start-101',
    exitPassword: 'exit-101',
    setupCompleted: true,
  });
  for (const id of ENFORCED) {
    const response = await t.request('PUT', `${COURSE}/assessments/${encodeURIComponent(id)}/exb`, { body: { required: true } });
    expect(response.statusCode, response.body).toBe(200);
  }
}

/**
 * Every access code of course 101 as the LMS holds it, exactly: classic quizzes' `access_code`, new quizzes' pair of
 * settings. Quiz 204 carries a code an instructor set by hand ("lab-2026"), which no reset may touch.
 */
export function lmsCodes(lms: MockLms) {
  const quizzes = [...lms.state.quizzes.values()]
    .filter((quiz) => quiz.courseId === 101)
    .map((quiz) => ({ id: quiz.id, accessCode: quiz.accessCode }));
  const newQuizzes = [...lms.state.assignments.values()]
    .filter((assignment) => assignment.courseId === 101 && assignment.newQuiz !== undefined && assignment.newQuiz !== null)
    .map((assignment) => ({
      id: assignment.id,
      require: assignment.newQuiz!.quizSettings.require_student_access_code,
      code: assignment.newQuiz!.quizSettings.student_access_code,
    }));
  return { quizzes, newQuizzes };
}

/** The course's local records, everything a reset deletes or changes, in a comparable form. */
export async function localState(t: AdminBed) {
  const rows = async (sql: string) => JSON.stringify(await t.sql(sql));
  return {
    settings: await rows(
      `select content_id, exb_required, enabled, encode(access_code_sealed, 'hex') as code, version
       from assessment_setting where course_id = '101' order by content_id`,
    ),
    cached: await rows(`select content_id, title from assessment where course_id = '101' order by content_id`),
    defaults: await rows(
      `select url_rules, external_tools, encode(exit_password_sealed, 'hex') as exit, setup_completed, reset_generation
       from course_defaults where course_id = '101'`,
    ),
    tokens: await rows(`select id from exb_student_token where course_id = '101' order by id`),
    receipt: await rows(`select reset_receipt_id, reset_receipt from admin_course where course_id = '101'`),
  };
}

/** Seeds open student state of the course (a config grant and a proof), which the reset clears. */
export async function seedStudentTokens(t: AdminBed): Promise<void> {
  for (const [id, purpose] of [
    ['a'.repeat(64), 'config-grant'],
    ['b'.repeat(64), 'access-proof'],
  ] as const) {
    await t.sql(
      `insert into exb_student_token (id, purpose, course_id, content_id, fingerprint, expires_at)
       values (?, ?, '101', 'classicquiz_201', ?, now() + interval '1 hour')`,
      [id, purpose, 'c'.repeat(64)],
    );
  }
}

/** `POST .../reset` with `body` (by default the right confirmation). */
export function reset(t: AdminBed, body: Record<string, unknown> = { confirmation: '101' }): Promise<LightMyRequestResponse> {
  return t.request('POST', RESET, { body });
}

/** The access-code writes the LMS received after call `afterSeq`, in order: which assessment, removed or set, and the answer. */
export function codeWrites(lms: MockLms, afterSeq = 0) {
  return lms.calls
    .filter((call) => call.seq > afterSeq && (call.route === ROUTES.updateQuiz || call.route === ROUTES.patchNewQuiz))
    .map((call) => {
      const quiz = (call.body as { quiz?: { access_code?: unknown; quiz_settings?: { student_access_code?: unknown } } }).quiz;
      const value = call.route === ROUTES.updateQuiz ? quiz?.access_code : quiz?.quiz_settings?.student_access_code;
      return { path: call.path, write: value === null || value === undefined ? 'remove' : 'set', status: call.status, fault: call.fault };
    });
}

/** The sequence number of the LMS's latest call, to look at what came after it. */
export function lastSeq(lms: MockLms): number {
  return lms.calls.last()?.seq ?? 0;
}

export async function auditEntries(t: AdminBed) {
  return t.sql<{ outcome: string; details: Record<string, unknown>; actor_lms_user_id: string; course_id: string }>(
    `select outcome, details, actor_lms_user_id, course_id from audit_entry where action = 'course.reset' order by id`,
  );
}

/**
 * Runs the recovery sweep as an instance does, and expects it to settle course 101 with `outcome`. Every instance of
 * the test bed also sweeps on its own every 15 s: when one of them took the course first, this waits until it is
 * settled (the audit trail then tells the outcome).
 */
export async function settledBySweep(t: AdminBed, recoverer: AppContext, outcome: string): Promise<void> {
  const result = await recoverer.admin.resetRecovery.sweep(resetRecoveryLms(recoverer));
  if (result['101'] === undefined) {
    await expect.poll(() => t.sql(`select course_id from course_reset_journal`), { timeout: 10_000 }).toEqual([]);
  } else {
    expect(result).toEqual({ '101': outcome });
  }
}
