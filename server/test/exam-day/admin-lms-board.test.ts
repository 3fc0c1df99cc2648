import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_AND_APPLICATION_SCOPES, EXAM_DAY_SCOPES } from '@exb/shared/oauth-scopes.js';
import { storeGrant } from '../support/oauth-testbed.js';
import { createAdminBed, type AdminBed } from '../admin/harness.js';

/** The administrator's board of a connected course reads the LMS with the administrator's own grant. */

let t: AdminBed;

beforeAll(async () => {
  t = await createAdminBed();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.reset();
  for (const table of ['exb_exam_day_student', 'exb_exam_day_lms_read', 'exb_exam_day_roster']) await t.sql(`delete from ${table}`);
});

/** Connects course 101 and reads its assessments from the LMS. */
async function connected() {
  await t.connect('101');
  const refreshed = await t.request('POST', '/trpc/admin.courses.refresh', { body: { courseId: '101' } });
  expect(refreshed.statusCode, refreshed.body).toBe(200);
}

const board = (courseId: string, assessmentId: string) =>
  t.request('GET', `/trpc/admin.courses.examDayBoard?input=${encodeURIComponent(JSON.stringify({ courseId, assessmentId }))}`);

describe('the administrator’s exam-day board', () => {
  it('shows attempts and the roster read with the administrator’s grant', async () => {
    await storeGrant(t.bed, 1, [...ADMIN_AND_APPLICATION_SCOPES, ...Object.values(EXAM_DAY_SCOPES)]);
    await connected();
    t.bed.lms.state.startQuizAttempt(201, 4, '2026-11-27T09:10:00.000Z');
    const response = await board('101', 'classicquiz_201');
    expect(response.statusCode, response.body).toBe(200);
    const read = response.json().result.data;
    expect(read.students.map(({ lmsUserId, name, state }: { lmsUserId: string; name: string; state: string }) => [lmsUserId, name, state])).toEqual([
      ['3', 'Sam Student', 'not-started'],
      ['4', 'Sue Student', 'in-progress'],
    ]);
    expect(read.roster.source).toBe('enrollments');
    const lmsReads = t.bed.lms.calls.filter((call) => call.path.startsWith('/api/v1/courses/101/') && /submissions|enrollments/.test(call.path));
    expect(lmsReads.map((call) => call.userId)).toEqual([1, 1]);
  });

  it('names the missing scopes of an administrator grant that lacks them', async () => {
    await t.grant();
    await connected();
    const read = (await board('101', 'classicquiz_201')).json().result.data;
    expect(read.attempts.missingScope).toBe(EXAM_DAY_SCOPES.quizSubmissions);
    expect(read.roster).toMatchObject({ source: 'unavailable', missingScope: EXAM_DAY_SCOPES.enrollments });
    expect(read.students).toEqual([]);
  });

  it('refuses a course that is not connected without asking the LMS', async () => {
    await t.grant();
    const response = await board('102', 'classicquiz_205');
    expect(response.json().error.data.errorCode).toBe('ADMIN_COURSE_NOT_CONNECTED');
    expect(t.bed.lms.calls.filter((call) => /submissions|enrollments/.test(call.path))).toEqual([]);
  });
});
