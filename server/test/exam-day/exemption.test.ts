import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EXEMPTION_TTL_SECONDS } from '@exb/shared/exam-day-help.js';
import { ADMIN_AND_APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { AuditLog } from '../../src/audit/audit-log.js';
import { ExamDayExemptions } from '../../src/domain/exam-day/exemptions.js';
import type { Principal } from '../../src/identity/principal.js';
import { createLogger } from '../../src/logger.js';
import { ACTION_TOKEN_HEADER } from '../../src/security/action-token.js';
import { SENSITIVE_RESPONSE_HEADERS } from '../../src/security/sensitive-headers.js';
import { expectNoSecretsInTrail } from '../support/audit-secrets.js';
import { bootstrapOf } from '../support/oauth-testbed.js';
import { admin, contextIdFor } from '../support/sessions.js';
import { ACCESS_CODE, COURSE, createStudentHarness, instructor, NEW_QUIZ, QUIZ, SAME_ORIGIN, student, type StudentHarness } from '../student/harness.js';

/**
 * Exam day, the exemption from the exam browser: the course's instructor or a root administrator grants it to one
 * named student with a reason; that student alone gets the access code once, on their own page, within the exemption's
 * few minutes; the code is never in an answer to the teacher, in the audit trail or in a log line.
 */
let h: StudentHarness;
const logLines: string[] = [];
const RELEASE = `/api/exb/exemption/${COURSE}/${QUIZ}/release`;
const EXEMPT = `/api/quizzes/${COURSE}/${QUIZ}/exb/exempt-student`;
const REASON = 'Screen reader does not run in the exam browser';

beforeAll(async () => {
  h = await createStudentHarness({ listen: true, logLines });
});
afterAll(() => h.close());
beforeEach(async () => {
  const connection = h.t.db.orm.em.getConnection();
  for (const table of ['exb_exam_day_exemption', 'exb_exam_day_student', 'audit_entry', 'admin_course']) await connection.execute(`delete from ${table}`, [], 'run');
  await h.enforce(QUIZ);
  // The instructor's own grant: the LMS re-confirms them as a teacher of the course before any mutation.
  await h.authorizeStudent(2);
});

const sql = <T>(query: string, params: unknown[] = []) => h.t.db.orm.em.getConnection().execute<T[]>(query, params);

function exempt(principal: Principal = instructor(), body: Record<string, unknown> = { lmsUserId: '3', reason: REASON }, path = EXEMPT) {
  return h.app.inject({ method: 'POST', url: path, headers: { cookie: h.session(principal).cookie, ...SAME_ORIGIN }, payload: body });
}

function release(principal: Principal = student(), path = RELEASE) {
  return h.app.inject({ method: 'POST', url: path, headers: { cookie: h.session(principal).cookie, ...SAME_ORIGIN }, payload: {} });
}

/** The student's own course page, as their launch renders it. */
async function studentPage(principal: Principal = student()) {
  const page = await h.app.inject({ method: 'GET', url: '/lti/launch', headers: { cookie: h.session(principal).cookie } });
  expect(page.statusCode).toBe(200);
  return bootstrapOf(page.body);
}

const trail = () => sql<{ action: string; outcome: string; actor_lms_user_id: string; actor_role: string; details: Record<string, unknown> }>(
  'select action, outcome, actor_lms_user_id, actor_role, details from audit_entry order by occurred_at, id',
);

describe('granting an exemption', () => {
  it('lets the course’s instructor exempt one named student, with a reason, without showing the code', async () => {
    const response = await exempt();
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ success: true, courseId: COURSE, assessmentId: QUIZ, lmsUserId: '3', expiresInSeconds: EXEMPTION_TTL_SECONDS });
    expect(Date.parse(body.expiresAt) - h.clock.now).toBe(EXEMPTION_TTL_SECONDS * 1000);
    expect(response.body).not.toContain(ACCESS_CODE);
    expect(await trail()).toEqual([
      {
        action: 'exam-day.exempt',
        outcome: 'success',
        actor_lms_user_id: '2',
        actor_role: 'instructor',
        details: { studentLmsUserId: '3', reason: REASON, expiresAt: body.expiresAt },
      },
    ]);
    // The typed API answers the same.
    const trpc = await h.app.inject({
      method: 'POST',
      url: '/trpc/instructor.assessments.exemptStudent',
      headers: { cookie: h.session(instructor()).cookie, ...SAME_ORIGIN, 'content-type': 'application/json' },
      payload: { courseId: COURSE, quizId: QUIZ, lmsUserId: '4', reason: REASON },
    });
    expect(trpc.statusCode).toBe(200);
    expect(trpc.body).not.toContain(ACCESS_CODE);
  });

  it('requires a reason, a numeric student id and an enforced assessment', async () => {
    for (const body of [{ lmsUserId: '3' }, { lmsUserId: '3', reason: '   ' }, { lmsUserId: '3', reason: 'x'.repeat(501) }, { lmsUserId: 'sam', reason: REASON }]) {
      const response = await exempt(instructor(), body);
      expect({ body, status: response.statusCode }).toEqual({ body, status: 400 });
    }
    await h.update(QUIZ, () => ({ enabled: false }));
    const response = await exempt();
    expect(response.statusCode).toBe(409);
    expect(response.json().error_code).toBe('EXB_NOT_ENABLED');
    expect(await sql('select * from exb_exam_day_exemption')).toEqual([]);
    expect((await trail()).map((entry) => entry.outcome)).toEqual(['refused']);
  });

  it('refuses another course’s teacher, a student and a sub-account administrator', async () => {
    // A teacher of course 104 only: their session's course is not this one …
    await h.authorizeStudent(7);
    const elsewhere = await exempt(instructor({ lmsUserId: '7', courseId: '104' }));
    expect([elsewhere.statusCode, elsewhere.json().error_code]).toEqual([403, 'COURSE_MISMATCH']);
    // … and a launch that claims this course is refused by the LMS, which does not list them in it.
    const claimed = await exempt(instructor({ lmsUserId: '7' }));
    expect([claimed.statusCode, claimed.json().error_code]).toEqual([403, 'INSTRUCTOR_REQUIRED']);
    const byStudent = await exempt(student());
    expect([byStudent.statusCode, byStudent.json().error_code]).toEqual([403, 'INSTRUCTOR_REQUIRED']);
    // A sub-account administrator whose launch claimed the root account (signed context: sub-account 2).
    await h.authorizeStudent(8, ADMIN_AND_APPLICATION_SCOPES);
    const subAdmin = admin({ lmsUserId: '8', ltiContextId: contextIdFor('account', 2) });
    const refused = await adminExempt(subAdmin);
    expect([refused.statusCode, refused.json().error.data.errorCode]).toEqual([403, 'ADMIN_NOT_CONFIRMED']);
    // A cross-site request is refused before anything else.
    const crossSite = await h.app.inject({ method: 'POST', url: EXEMPT, headers: { cookie: h.session(instructor()).cookie, 'sec-fetch-site': 'cross-site' }, payload: { lmsUserId: '3', reason: REASON } });
    expect(crossSite.statusCode).toBe(403);
    expect(await sql('select * from exb_exam_day_exemption')).toEqual([]);
  });

  it('lets a root administrator exempt a student of a connected course, and only of a connected one', async () => {
    await h.authorizeStudent(1, ADMIN_AND_APPLICATION_SCOPES);
    const notConnected = await adminExempt(admin());
    expect([notConnected.statusCode, notConnected.json().error.data.errorCode]).toEqual([404, 'ADMIN_COURSE_NOT_CONNECTED']);
    const connect = await adminCall(admin(), 'admin.courses.connect', { courseIds: [COURSE] });
    expect(connect.statusCode).toBe(200);
    const granted = await adminExempt(admin());
    expect(granted.statusCode).toBe(200);
    expect(granted.body).not.toContain(ACCESS_CODE);
    const entries = (await trail()).filter((entry) => entry.action === 'exam-day.exempt');
    // The course that is not connected was refused before any attempt; the grant is entered under the administrator.
    expect(entries.map(({ outcome, actor_role, details }) => ({ outcome, actor_role, student: details.studentLmsUserId, reason: details.reason }))).toEqual([
      { outcome: 'success', actor_role: 'admin', student: '3', reason: REASON },
    ]);
    // Without the page's action token, nothing.
    const tokenless = await adminCall(admin(), 'admin.courses.exemptStudent', { courseId: COURSE, assessmentId: QUIZ, lmsUserId: '4', reason: REASON }, null);
    expect(tokenless.json().error.data.errorCode).toBe('INVALID_ACTION_TOKEN');
  });
});

async function adminCall(principal: Principal, procedure: string, input: unknown, actionToken?: string | null) {
  const { cookie } = h.session(principal);
  const token = actionToken === undefined ? bootstrapOf((await h.app.inject({ method: 'GET', url: '/lti/launch', headers: { cookie } })).body).actionToken : actionToken;
  return h.app.inject({
    method: 'POST',
    url: `/trpc/${procedure}`,
    headers: { cookie, ...SAME_ORIGIN, 'content-type': 'application/json', ...(typeof token === 'string' ? { [ACTION_TOKEN_HEADER]: token } : {}) },
    payload: input as Record<string, unknown>,
  });
}

const adminExempt = (principal: Principal) => adminCall(principal, 'admin.courses.exemptStudent', { courseId: COURSE, assessmentId: QUIZ, lmsUserId: '3', reason: REASON });

describe('using an exemption', () => {
  it('shows the student their exemption and releases the code exactly once to parallel requests', async () => {
    logLines.length = 0;
    expect((await exempt()).statusCode).toBe(200);
    const page = await studentPage();
    expect(page.exemptions).toEqual([
      expect.objectContaining({ contentId: QUIZ, title: expect.any(String), usedAt: null, releaseUrl: `/api/exb/exemption/${COURSE}/${QUIZ}/release` }),
    ]);
    expect(JSON.stringify(page)).not.toContain(ACCESS_CODE);

    // Real requests on the loopback port, all at once: one statement decides, so exactly one gets the code.
    const { cookie } = h.session(student());
    const answers = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const response = await fetch(`${h.t.url}${RELEASE}`, {
          method: 'POST',
          headers: { cookie, ...SAME_ORIGIN, 'content-type': 'application/json' },
          body: '{}',
        });
        return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
      }),
    );
    const winners = answers.filter((answer) => answer.status === 200);
    expect(winners.map((answer) => answer.body)).toEqual([{ success: true, accessCode: ACCESS_CODE }]);
    for (const [name, value] of Object.entries(SENSITIVE_RESPONSE_HEADERS)) expect(winners[0]!.headers.get(name)).toBe(value);
    for (const loser of answers.filter((answer) => answer.status !== 200)) {
      expect([loser.status, loser.body.error_code]).toEqual([410, 'EXAM_DAY_EXEMPTION_UNAVAILABLE']);
      expect(loser.headers.get('cache-control')).toBe(SENSITIVE_RESPONSE_HEADERS['cache-control']);
    }

    // The student's exam-day row says the code was released by exemption, in the statement that spent it.
    const rows = await sql<{ released_at: string; exempted_at: string }>('select released_at, exempted_at from exb_exam_day_student where lms_user_id = ?', ['3']);
    expect(rows.map((row) => [Date.parse(row.released_at), Date.parse(row.exempted_at)])).toEqual([[h.clock.now, h.clock.now]]);
    // The page says it was used; a later click gets nothing.
    expect((await studentPage()).exemptions).toEqual([expect.objectContaining({ contentId: QUIZ, usedAt: expect.any(String) })]);
    expect((await release()).statusCode).toBe(410);

    const entries = await trail();
    const uses = entries.filter((entry) => entry.action === 'exam-day.exemption-use');
    expect(uses.filter((entry) => entry.outcome === 'success')).toEqual([
      { action: 'exam-day.exemption-use', outcome: 'success', actor_lms_user_id: '3', actor_role: 'student', details: {} },
    ]);
    expectNoSecretsInTrail(entries, [ACCESS_CODE]);
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).not.toContain(ACCESS_CODE);
  });

  it('expires after its few minutes', async () => {
    expect((await exempt()).statusCode).toBe(200);
    h.clock.advance(EXEMPTION_TTL_SECONDS - 1);
    const offer = (await studentPage()).exemptions as { expiresAt: string; usedAt: null }[];
    expect(Date.parse(offer[0]!.expiresAt)).toBeGreaterThan(h.clock.now);
    h.clock.advance(1);
    const late = await release();
    expect([late.statusCode, late.json().error_code]).toEqual([410, 'EXAM_DAY_EXEMPTION_UNAVAILABLE']);
    // Still listed, so the page can say it lapsed; never used.
    expect((await studentPage()).exemptions).toEqual([expect.objectContaining({ usedAt: null })]);
    expect(await sql('select * from exb_exam_day_student')).toEqual([]);
    // A new grant starts the minutes again.
    expect((await exempt()).statusCode).toBe(200);
    expect((await release()).json()).toEqual({ success: true, accessCode: ACCESS_CODE });
  });

  it('is for the named student only', async () => {
    expect((await exempt()).statusCode).toBe(200);
    // Another student of the course: nothing waits for them, and their request does not spend the exemption.
    const other = await release(student({ lmsUserId: '4' }));
    expect([other.statusCode, other.json().error_code]).toEqual([410, 'EXAM_DAY_EXEMPTION_UNAVAILABLE']);
    expect((await studentPage(student({ lmsUserId: '4' }))).exemptions).toBeUndefined();
    // The same person launched from another course does not reach this course's exemption.
    const otherCourse = await release(student({ courseId: '103' }));
    expect([otherCourse.statusCode, otherCourse.json().error_code]).toEqual([403, 'LTI_PRINCIPAL_REQUIRED']);
    // Teachers never get the code through it.
    const teacher = await release(instructor());
    expect([teacher.statusCode, teacher.json().error_code]).toEqual([403, 'LTI_STUDENT_REQUIRED']);
    const crossSite = await h.app.inject({ method: 'POST', url: RELEASE, headers: { cookie: h.session(student()).cookie, 'sec-fetch-site': 'cross-site' }, payload: {} });
    expect(crossSite.statusCode).toBe(403);
    // A content id of another course in the path is no route of this course.
    expect((await release(student(), `/api/exb/exemption/${COURSE}/newquiz:102:303/release`)).statusCode).toBe(404);
    // The named student still has it.
    expect((await release()).json()).toEqual({ success: true, accessCode: ACCESS_CODE });
  });

  it('releases nothing once the assessment is no longer enforced, and keeps the exemption', async () => {
    expect((await exempt()).statusCode).toBe(200);
    await h.update(QUIZ, () => ({ enabled: false }));
    const refused = await release();
    expect(refused.statusCode).toBe(410);
    expect(await sql('select used_at from exb_exam_day_exemption')).toEqual([{ used_at: null }]);
  });

  it('is purged a day after it lapsed, once the page no longer shows it', async () => {
    const exemptions = new ExamDayExemptions({ orm: h.t.db.orm, settings: h.settings, audit: new AuditLog(h.t.db.orm, createLogger('silent')), clock: h.clock.read });
    expect((await exempt()).statusCode).toBe(200);
    h.clock.advance(EXEMPTION_TTL_SECONDS + 86_000);
    expect(await exemptions.purgeExpired()).toBe(0);
    h.clock.advance(1_000);
    expect((await studentPage()).exemptions).toBeUndefined();
    expect(await exemptions.purgeExpired()).toBe(1);
    expect(await sql('select * from exb_exam_day_exemption')).toEqual([]);
  });

  it('works for a new quiz through the address the page is given', async () => {
    await h.enforce(NEW_QUIZ, { accessCode: 'new-quiz-code-2211' });
    const granted = await exempt(instructor(), { lmsUserId: '3', reason: REASON }, `/api/quizzes/${COURSE}/${encodeURIComponent(NEW_QUIZ)}/exb/exempt-student`);
    expect(granted.statusCode).toBe(200);
    const offers = (await studentPage()).exemptions as { contentId: string; releaseUrl: string }[];
    expect(offers.map((offer) => offer.contentId)).toEqual([NEW_QUIZ]);
    expect((await release(student(), offers[0]!.releaseUrl)).json()).toEqual({ success: true, accessCode: 'new-quiz-code-2211' });
  });
});
