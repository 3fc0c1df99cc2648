import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeStudentChange, EXAM_DAY_RUNNING_HOURS } from '@exb/shared/exam-day.js';
import { admin, instructor, sessionFor } from '../support/sessions.js';
import { openSse } from '../support/sse.js';
import { createAdminBed, type AdminBed } from '../admin/harness.js';

/**
 * The administrator's exam-day board: the same board, its live signal and CSV for any connected course of the root
 * account, and the school-wide summary of the assessments running now. Rows are written with SQL into
 * `exb_exam_day_student`, as the student flow's statements write it.
 */
let t: AdminBed;
let base: string;
let quizId: string;

beforeAll(async () => {
  t = await createAdminBed();
  await t.grant();
  await t.connect('101');
  await t.request('POST', '/api/admin/courses/101/refresh');
  const ids = await t.sql<{ content_id: string }>(`select content_id from assessment where course_id = '101' order by content_id`);
  quizId = ids[0]!.content_id;
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address() as { port: number };
  base = `http://127.0.0.1:${address.port}`;
});
afterAll(() => t?.close());

const input = (courseId: string, assessmentId: string) => encodeURIComponent(JSON.stringify({ courseId, assessmentId }));

describe('the administrator’s board', () => {
  it('sends a board of a connected course live, and refuses an instructor, a sub-account administrator and a course not connected', async () => {
    const stream = await openSse(`${base}/trpc/admin.courses.examDayChanges?input=${input('101', quizId)}`, { cookie: t.session.cookie });
    try {
      expect((await stream.next()).event).toBe('connected');
      expect(JSON.parse((await stream.next()).data)).toMatchObject({ kind: 'board', board: { courseId: '101', assessmentId: quizId } });
      await t.sql(`insert into exb_exam_day_student (course_id, content_id, lms_user_id, launched_at) values ('101', ?, '900', now())`, [quizId]);
      const changes = JSON.parse((await stream.next(2_000)).data);
      expect(changes).toMatchObject({ kind: 'changes', students: [['900', null, expect.any(Number), 0, expect.any(Array)]] });
      expect(decodeStudentChange(changes.students[0])).toMatchObject({ lmsUserId: '900', state: 'not-started', launchedAt: expect.any(String) });
    } finally {
      stream.close();
    }

    await t.grant(8);
    const subAccount = await t.sessionOf(admin({ lmsUserId: '8', ltiSubject: 'sub-user-8', ltiContextId: t.bed.lms.state.accounts.get(2)!.ltiContextId }));
    const cases: [string, string, string][] = [
      [sessionFor(t.app, instructor()).cookie, '101', 'ADMIN_REQUIRED'],
      [subAccount.cookie, '101', 'ADMIN_NOT_CONFIRMED'],
      [t.session.cookie, '102', 'ADMIN_COURSE_NOT_CONNECTED'],
    ];
    for (const [cookie, courseId, code] of cases) {
      const refused = await openSse(`${base}/trpc/admin.courses.examDayChanges?input=${input(courseId, quizId)}`, { cookie });
      try {
        expect((await refused.next()).event).toBe('connected');
        const error = await refused.next();
        expect(error.event).toBe('serialized-error');
        expect(JSON.parse(error.data).data.errorCode).toBe(code);
      } finally {
        refused.close();
      }
      const csv = await t.request('GET', `/api/admin/courses/${courseId}/assessments/${encodeURIComponent(quizId)}/exb/board.csv`, {
        session: { cookie, actionToken: 'unused' },
      });
      expect(csv.json().error_code).toBe(code);
    }
  });

  it('exports the board as CSV for a connected course', async () => {
    const response = await t.request('GET', `/api/admin/courses/101/assessments/${encodeURIComponent(quizId)}/exb/board.csv`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.body.split('\r\n').some((line) => line.startsWith('900,,not-started,'))).toBe(true);
  });

  it('sums up the account’s assessments with activity in the last hours, with counts per state', async () => {
    await t.sql(`delete from exb_exam_day_student`);
    await t.sql(
      `insert into exb_exam_day_student (course_id, content_id, lms_user_id, downloads, last_download_at, proven_at, released_at, updated_at)
       values ('101', ?, '1', 1, now(), now(), now(), now()), ('101', ?, '2', 1, now(), null, null, now() - interval '${EXAM_DAY_RUNNING_HOURS + 1} hours'),
              ('999', 'quiz:1', '3', 1, now(), null, null, now())`,
      [quizId, quizId],
    );
    const response = await t.request('GET', '/trpc/admin.examDay.running');
    expect(response.statusCode, response.body).toBe(200);
    const running = response.json().result.data as { courseId: string; assessmentId: string; students: number; counts: Record<string, number> }[];
    // A course the account did not connect is not listed; a running assessment counts all its students.
    expect(running).toEqual([
      expect.objectContaining({ courseId: '101', assessmentId: quizId, students: 2, counts: expect.objectContaining({ 'released-no-attempt': 1, 'downloaded-not-proven': 1 }) }),
    ]);
    await t.sql(`update exb_exam_day_student set updated_at = now() - interval '${EXAM_DAY_RUNNING_HOURS + 1} hours'`);
    expect((await t.request('GET', '/trpc/admin.examDay.running')).json().result.data).toEqual([]);
    expect((await t.request('GET', '/trpc/admin.examDay.running', { session: { cookie: sessionFor(t.app, instructor()).cookie, actionToken: '' } })).statusCode).toBe(403);
  });
});
