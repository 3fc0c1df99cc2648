import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultAssessmentSettings } from '../../src/domain/settings/model.js';
import { admin, instructor, sessionFor, student } from '../support/sessions.js';
import { createAdminBed, type AdminBed, type AdminSession } from '../admin/harness.js';

/**
 * The root administrator's re-admission of one student, for any connected course: the same voiding and reset as the
 * teacher's (whose whole flow `student-steps.test.ts` walks), audited as the administrator's; refused to a teacher, a
 * student and a sub-account administrator.
 */

const QUIZ = 'classicquiz_201';
const PATH = '/trpc/admin.courses.readmitStudent';
const FINGERPRINT = 'f'.repeat(64);
const [A1, A2, B1] = ['a1', 'a2', 'b1'].map((id) => id.repeat(32)) as [string, string, string];
let t: AdminBed;

beforeAll(async () => {
  t = await createAdminBed();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.reset();
  await t.sql('delete from exb_exam_day_student');
  await t.grant();
  await t.connect('101');
  await t.settings.saveAssessmentSettings('101', { ...defaultAssessmentSettings('101', QUIZ), exbRequired: true, enabled: true, accessCode: 'exam-code-7431', exitPasswordOverride: 'leave-now' });
  // The student's way so far: downloaded twice, proven, released; an open link, a downloaded key and an exit grant.
  await t.sql(
    `insert into exb_exam_day_student (course_id, content_id, lms_user_id, launched_at, granted_at, downloads, last_download_at, proven_at, released_at, updated_at)
     values ('101', ?, '3', now(), now(), 2, now(), now(), now(), now()), ('101', ?, '4', now(), now(), 1, now(), null, null, now())`,
    [QUIZ, QUIZ],
  );
  await t.sql(
    `insert into exb_student_token (id, purpose, course_id, content_id, fingerprint, expires_at, lms_user_id)
     values (?, 'config-grant', '101', ?, ?, now() + interval '2 minutes', '3'),
            (?, 'exit-grant', '101', ?, ?, now() + interval '12 hours', '3'),
            (?, 'config-grant', '101', ?, ?, now() + interval '2 minutes', '4')`,
    [A1, QUIZ, FINGERPRINT, A2, QUIZ, FINGERPRINT, B1, QUIZ, FINGERPRINT],
  );
});

const readmit = (session: AdminSession | null, input: Record<string, unknown> = {}) =>
  t.request('POST', PATH, { session, body: { courseId: '101', assessmentId: QUIZ, lmsUserId: '3', reason: 'Second device', ...input } });

const live = async () =>
  (await t.sql<{ id: string }>(`select id from exb_student_token where expires_at > now() order by id`)).map((row) => row.id);

describe('the administrator’s re-admission', () => {
  it('voids the named student’s tokens and resets their record, audited as the administrator’s', async () => {
    const answer = await readmit(t.session);
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json().result.data).toMatchObject({ success: true, lmsUserId: '3', voided: 2 });
    expect(await live()).toEqual([B1]);
    const records = await t.sql<{ lms_user_id: string; downloads: number; proven_at: unknown; released_at: unknown; readmitted_at: unknown }>(
      `select lms_user_id, downloads, proven_at, released_at, readmitted_at from exb_exam_day_student order by lms_user_id`,
    );
    expect(records).toEqual([
      { lms_user_id: '3', downloads: 0, proven_at: null, released_at: null, readmitted_at: expect.anything() },
      { lms_user_id: '4', downloads: 1, proven_at: null, released_at: null, readmitted_at: null },
    ]);
    const [entry] = await t.sql<{ action: string; outcome: string; actor_role: string; details: Record<string, unknown> }>(
      `select action, outcome, actor_role, details from audit_entry where action = 'exam-day.readmit'`,
    );
    expect(entry).toMatchObject({ outcome: 'success', actor_role: 'admin', details: { studentLmsUserId: '3', reason: 'Second device', voided: 2 } });
  });

  it('is refused to a teacher, a student and a sub-account administrator, and for a course not connected', async () => {
    const teacher = { cookie: sessionFor(t.app, instructor()).cookie, actionToken: 'irrelevant' };
    const learner = { cookie: sessionFor(t.app, student()).cookie, actionToken: 'irrelevant' };
    await t.grant(8);
    const subAccount = await t.sessionOf(admin({ lmsUserId: '8', ltiSubject: 'sub-user-8', ltiContextId: t.bed.lms.state.accounts.get(2)!.ltiContextId }));
    const refusals: [AdminSession, number, string][] = [
      [teacher, 403, 'ADMIN_REQUIRED'],
      [learner, 403, 'ADMIN_REQUIRED'],
      [subAccount, 403, 'ADMIN_NOT_CONFIRMED'],
    ];
    for (const [session, status, code] of refusals) {
      const refused = await readmit(session);
      expect({ status: refused.statusCode, code: refused.json().error?.data?.errorCode }).toEqual({ status, code });
    }
    const unconnected = await readmit(t.session, { courseId: '102' });
    expect(unconnected.statusCode).toBe(404);
    const reasonless = await readmit(t.session, { reason: ' ' });
    expect(reasonless.statusCode).toBe(400);
    expect(await live()).toEqual([A1, A2, B1]);
    expect(await t.sql(`select * from audit_entry where action = 'exam-day.readmit' and outcome = 'success'`)).toEqual([]);
  });
});
