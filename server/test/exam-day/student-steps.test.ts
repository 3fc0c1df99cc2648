import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { studentStepsRetention } from '../../src/domain/exam-day/student-steps.js';
import { ExamDayBoard } from '../../src/domain/exam-day/board.js';
import type { Principal } from '../../src/identity/principal.js';
import { sha256Hex } from '../../src/security/random-token.js';
import { admin, contextIdFor } from '../support/sessions.js';
import { COURSE, createStudentHarness, downloadPathOf, grantOf, instructor, NEW_QUIZ, QUIZ, SAME_ORIGIN, student, type StudentHarness } from '../student/harness.js';

/**
 * Exam day, through the real student flow: each step of a student's way in is recorded for that student by the
 * statement the step already runs, and a re-admission voids what the student held and lets them start again.
 */

let h: StudentHarness;
let board: ExamDayBoard;
const SAM = student();
const SUE = student({ lmsUserId: '4' });
// Sue starts from the course page: no launch of the assessment names her, her grant does.
const NAMED_SUE = student({ lmsUserId: '4', name: 'Sue Student' });

beforeAll(async () => {
  h = await createStudentHarness();
  board = new ExamDayBoard(h.t.db.orm, h.clock.read);
  await h.enforce(QUIZ);
  await h.enforce(NEW_QUIZ);
  await h.authorizeStudent(3);
  await h.authorizeStudent(4);
  // The instructor's grant: the LMS confirms the teacher for a re-admission.
  await h.authorizeStudent(2);
});
afterAll(() => h.close());
beforeEach(async () => {
  await sql('delete from exb_exam_day_student');
  await sql('delete from audit_entry');
});

const sql = async <T = Record<string, unknown>>(query: string, params: unknown[] = []): Promise<T[]> =>
  (await h.t.db.pool.query(query, params)).rows as T[];

async function row(lmsUserId: string, contentId = QUIZ) {
  return (await board.readNow(COURSE, contentId)).students.find((entry) => entry.lmsUserId === lmsUserId);
}

async function released(contentId: string, configKey: string): Promise<{ exitGrant: string; proofToken: string }> {
  const proof = await h.prove(contentId, configKey);
  expect(proof.statusCode).toBe(200);
  const proofToken = proof.json().proofToken as string;
  const redemption = await h.redeem(contentId, proofToken);
  expect(redemption.statusCode).toBe(200);
  return { exitGrant: redemption.json().exitGrant as string, proofToken };
}

const quit = (contentId: string, exitGrant: string) => h.app.inject({ method: 'GET', url: `/exb/exit/quit/${COURSE}/${contentId}/${exitGrant}` });

function trpc(principal: Principal, path: string, input: unknown): Promise<LightMyRequestResponse> {
  const s = h.session(principal);
  const headers: Record<string, string> = { cookie: s.cookie, ...SAME_ORIGIN, 'content-type': 'application/json' };
  if (principal.kind === 'admin') headers['x-exb-action-token'] = h.actionTokens.issue(s.session, 'admin-mutation');
  return h.app.inject({ method: 'POST', url: `/trpc/${path}`, headers, payload: JSON.stringify(input) });
}

const readmit = (principal: Principal, input: Record<string, unknown> = {}) =>
  trpc(principal, 'instructor.enforcement.readmitStudent', { courseId: COURSE, quizId: QUIZ, lmsUserId: '3', reason: 'Exam browser crashed', ...input });

describe('each step of the way in', () => {
  it('moves the student through the states, each step at its time', async () => {
    expect(await row('3')).toBeUndefined();

    const grant = await h.grant(SAM);
    expect(grant.statusCode).toBe(200);
    expect(await row('3')).toMatchObject({ state: 'not-started', grantedAt: new Date(h.clock.now).toISOString(), downloads: 0, provenAt: null });
    expect((await h.grant(NAMED_SUE)).statusCode).toBe(200);
    expect(await row('4')).toMatchObject({ state: 'not-started', name: 'Sue Student' });

    h.clock.advance(5);
    const { opened } = await h.start(SAM);
    const downloadedAt = new Date(h.clock.now).toISOString();
    expect(await row('3')).toMatchObject({ state: 'downloaded-not-proven', downloads: 1, lastDownloadAt: downloadedAt, grantedAt: expect.any(String) });

    h.clock.advance(5);
    const provenAt = new Date(h.clock.now).toISOString();
    const proof = await h.prove(QUIZ, opened.configKey);
    expect(proof.statusCode).toBe(200);
    // The proof itself writes nothing (it costs no statement); its redemption records it at the proof's time.
    expect((await row('3'))?.state).toBe('downloaded-not-proven');
    h.clock.advance(2);
    const redemption = await h.redeem(QUIZ, proof.json().proofToken);
    expect(redemption.statusCode).toBe(200);
    expect(await row('3')).toMatchObject({ state: 'released-no-attempt', provenAt, releasedAt: new Date(h.clock.now).toISOString() });

    h.clock.advance(60);
    expect((await quit(QUIZ, redemption.json().exitGrant)).statusCode).toBe(303);
    expect(await row('3')).toMatchObject({ state: 'exited', exitedAt: new Date(h.clock.now).toISOString() });

    // Downloading again after the exit puts the student back on the way in; the count goes on.
    h.clock.advance(5);
    await h.start(SAM);
    const again = await row('3');
    expect(again?.downloads).toBe(2);
    expect(again?.state).not.toBe('exited');
  });

  it('shows a proof whose release was refused after the statement as proven but not released', async () => {
    const contentId = 'classicquiz_730';
    await h.enforce(contentId);
    const { opened } = await h.start(SAM, contentId);
    const proof = await h.prove(contentId, opened.configKey);
    expect(proof.statusCode).toBe(200);
    // The setting changed after the proof: the statement still issues the release SQL sees, which is then withdrawn.
    await h.update(contentId, () => ({ usesCourseDefaults: false, urlRules: [{ match: 'exact', value: 'https://notes.example.edu/exam-day' }] }));
    expect((await h.redeem(contentId, proof.json().proofToken)).statusCode).toBe(403);
    expect(await row('3', contentId)).toMatchObject({ state: 'proven-not-released', provenAt: expect.any(String), releasedAt: null });
  });

  it('attributes grant, download, proof and release to the student whose grant it was, however they interleave', async () => {
    const samGrant = (await h.grant(SAM)).json().exbLaunchUrl as string;
    const sueStart = await h.start(SUE);
    const samStart = await h.start(SAM);
    expect(grantOf(samGrant)).not.toBe('');
    const sueRelease = await released(QUIZ, sueStart.opened.configKey);
    const sam = await row('3');
    const sue = await row('4');
    expect(sam).toMatchObject({ state: 'downloaded-not-proven', downloads: 1, provenAt: null, releasedAt: null });
    expect(sue).toMatchObject({ state: 'released-no-attempt', downloads: 1, provenAt: expect.any(String), releasedAt: expect.any(String) });
    await released(QUIZ, samStart.opened.configKey);
    expect((await row('3'))?.state).toBe('released-no-attempt');
    expect((await quit(QUIZ, sueRelease.exitGrant)).statusCode).toBe(303);
    expect((await row('4'))?.state).toBe('exited');
    expect((await row('3'))?.exitedAt).toBeNull();

    // Every token of the way names its student in the clear; none names anyone else.
    const owners = await sql<{ purpose: string; lms_user_id: string | null }>(
      `select purpose, lms_user_id from exb_student_token where course_id = $1 and content_id = $2 and id = any($3)`,
      [COURSE, QUIZ, [sha256Hex(sueRelease.exitGrant), sha256Hex(sueRelease.proofToken)]],
    );
    expect(owners.sort((a, b) => a.purpose.localeCompare(b.purpose))).toEqual([
      { purpose: 'access-proof', lms_user_id: '4' },
      { purpose: 'exit-grant', lms_user_id: '4' },
    ]);
    const byPurpose = await sql<{ purpose: string; owners: string[] }>(
      `select purpose, array_agg(distinct lms_user_id order by lms_user_id) as owners from exb_student_token
        where course_id = $1 and content_id = $2 group by purpose order by purpose`,
      [COURSE, QUIZ],
    );
    for (const entry of byPurpose) expect(entry.owners.every((owner) => owner === '3' || owner === '4')).toBe(true);
    expect(byPurpose.map((entry) => entry.purpose)).toEqual(['access-proof', 'config-grant', 'exit-grant', 'launch-handoff', 'session-start']);
  });

  it('keeps every assessment apart and records nothing for an instructor', async () => {
    await h.start(SAM, NEW_QUIZ);
    expect((await row('3', NEW_QUIZ))?.downloads).toBe(1);
    expect(await row('3')).toBeUndefined();
    const teacher = await h.start(instructor());
    await released(QUIZ, teacher.opened.configKey);
    expect((await board.readNow(COURSE, QUIZ)).students).toEqual([]);
  });

  it('counts a spent grant once: a second download of the same link is refused and records nothing', async () => {
    const { exbLaunchUrl } = await h.start(SAM);
    expect((await h.app.inject({ method: 'GET', url: downloadPathOf(exbLaunchUrl) })).statusCode).toBe(403);
    expect((await row('3'))?.downloads).toBe(1);
  });

  it('keeps no secret: only times, a count, the student, a name and the order of its writes', async () => {
    await h.start(SAM);
    const columns = await sql<{ column_name: string }>(
      `select column_name from information_schema.columns where table_name = 'exb_exam_day_student' order by column_name`,
    );
    expect(columns.map((column) => column.column_name).filter((name) => !name.endsWith('_at'))).toEqual([
      'change_seq',
      'change_xid',
      'content_id',
      'course_id',
      'display_name',
      'downloads',
      'lms_user_id',
    ]);
  });
});

describe('re-admission', () => {
  it('voids the student’s links, downloads, proofs and exit grants, audited with the reason, and lets them start again', async () => {
    // Sam's first exam browser got in; a second device holds a fresh, unused link and a proof not yet redeemed.
    const first = await h.start(SAM);
    const firstRelease = await released(QUIZ, first.opened.configKey);
    const second = await h.start(SAM);
    const pendingProof = (await h.prove(QUIZ, second.opened.configKey)).json().proofToken as string;
    const unusedLink = (await h.grant(SAM)).json().exbLaunchUrl as string;
    // Sue is not re-admitted: her start goes on untouched.
    const sue = await h.start(SUE);

    h.clock.advance(30);
    const answer = await readmit(instructor());
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json().result.data).toMatchObject({ success: true, lmsUserId: '3', readmittedAt: new Date(h.clock.now).toISOString() });
    expect(answer.json().result.data.voided).toBeGreaterThanOrEqual(4);

    expect(await row('3')).toMatchObject({
      state: 'not-started',
      downloads: 0,
      lastDownloadAt: null,
      provenAt: null,
      releasedAt: null,
      exitedAt: null,
      readmittedAt: new Date(h.clock.now).toISOString(),
      grantedAt: expect.any(String),
    });

    // Nothing Sam held before works any more.
    expect((await h.app.inject({ method: 'HEAD', url: downloadPathOf(unusedLink) })).statusCode).toBe(403);
    expect((await h.app.inject({ method: 'GET', url: downloadPathOf(unusedLink) })).statusCode).toBe(403);
    expect((await h.redeem(QUIZ, pendingProof)).statusCode).toBe(403);
    // This process still knows the old key, so a proof with it is answered; its redemption is refused all the same.
    const oldKeyProof = await h.prove(QUIZ, first.opened.configKey);
    expect(oldKeyProof.statusCode).toBe(200);
    expect((await h.redeem(QUIZ, oldKeyProof.json().proofToken)).statusCode).toBe(403);
    expect((await quit(QUIZ, firstRelease.exitGrant)).statusCode).toBe(403);
    expect((await row('3'))?.state).toBe('not-started');

    // Sue's start is not touched.
    await released(QUIZ, sue.opened.configKey);

    // Sam starts again, end to end.
    h.clock.advance(5);
    const again = await h.start(SAM);
    const againRelease = await released(QUIZ, again.opened.configKey);
    expect(await row('3')).toMatchObject({ state: 'released-no-attempt', downloads: 1, readmittedAt: expect.any(String) });
    expect((await quit(QUIZ, againRelease.exitGrant)).statusCode).toBe(303);

    const [entry] = await sql<{ action: string; outcome: string; course_id: string; content_id: string; actor_lms_user_id: string; details: Record<string, unknown> }>(
      `select * from audit_entry where action = 'exam-day.readmit'`,
    );
    expect(entry).toMatchObject({
      outcome: 'success',
      course_id: COURSE,
      content_id: QUIZ,
      details: { studentLmsUserId: '3', reason: 'Exam browser crashed', voided: answer.json().result.data.voided },
    });
  });

  it('requires a reason and a student id, and refuses them without a write', async () => {
    await h.start(SAM);
    for (const input of [{ reason: '' }, { reason: '   ' }, { reason: 'x'.repeat(501) }, { lmsUserId: 'sam' }, { lmsUserId: '' }]) {
      const refused = await readmit(instructor(), input);
      expect({ input, status: refused.statusCode }).toEqual({ input, status: 400 });
    }
    const missing = await trpc(instructor(), 'instructor.enforcement.readmitStudent', { courseId: COURSE, quizId: QUIZ, lmsUserId: '3' });
    expect(missing.statusCode).toBe(400);
    expect((await row('3'))?.downloads).toBe(1);
    expect(await sql(`select * from audit_entry`)).toEqual([]);
  });

  it('is refused to a student, another course’s teacher and an administrator on the teacher’s route', async () => {
    const { opened } = await h.start(SAM);
    const refusals: [Principal, string][] = [
      [SUE, 'INSTRUCTOR_REQUIRED'],
      [instructor({ courseId: '102', ltiContextId: contextIdFor('course', 102) }), 'COURSE_MISMATCH'],
      [admin(), 'INSTRUCTOR_REQUIRED'],
    ];
    for (const [principal, code] of refusals) {
      const refused = await readmit(principal);
      expect({ kind: principal.kind, status: refused.statusCode, code: refused.json().error?.data?.errorCode }).toMatchObject({
        kind: principal.kind,
        status: 403,
        code,
      });
    }
    // Nothing was voided: Sam's download still proves and releases.
    expect((await row('3'))?.downloads).toBe(1);
    await released(QUIZ, opened.configKey);
    expect(await sql(`select * from audit_entry where outcome = 'success'`)).toEqual([]);
  });

  it('answers 404 for an assessment of another course named in the teacher’s course', async () => {
    const refused = await readmit(instructor(), { quizId: 'classicquiz_999' });
    expect(refused.statusCode).toBe(404);
  });
});

describe('retention', () => {
  it('purges records untouched for EXAM_DAY_RETENTION_DAYS, keeping the rest', async () => {
    expect(h.t.config.examDay.retentionDays).toBe(30);
    await h.start(SAM);
    await h.start(SUE);
    const day = 86_400_000;
    await sql(`update exb_exam_day_student set updated_at = $1 where lms_user_id = '4'`, [new Date(Date.now() - 31 * day)]);
    await sql(`update exb_exam_day_student set updated_at = $1 where lms_user_id = '3'`, [new Date(Date.now() - 29 * day)]);
    const retention = studentStepsRetention(h.t.db.pool, h.t.config.examDay.retentionDays);
    expect(await retention.purgeExpired()).toBe(1);
    expect((await board.readNow(COURSE, QUIZ)).students.map((entry) => entry.lmsUserId)).toEqual(['3']);
    // A step touches the record again.
    await sql(`update exb_exam_day_student set updated_at = $1 where lms_user_id = '3'`, [new Date(Date.now() - 31 * day)]);
    await h.start(SAM);
    expect(await retention.purgeExpired()).toBe(0);
  });
});
