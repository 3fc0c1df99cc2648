import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createContext, createPreExamSweep } from '../../src/app.js';
import { createLogger } from '../../src/logger.js';
import { FAST_OAUTH } from '../support/oauth-testbed.js';
import { student } from '../support/sessions.js';
import { COURSE, createInstructorBed, LMS_ROUTES, type InstructorBed } from '../instructor/harness.js';

/**
 * The pre-exam sweep: an hour before an enforced assessment's LMS start and again ten minutes before it, the service
 * checks the LMS still holds its access code; a course that opted in gets drift repaired, others an alert; every
 * automatic repair is in the trail with the service as the actor.
 */
const CLASSIC = 'classicquiz_201';
const NEW_QUIZ = 'newquiz:101:301';
const MINUTE = 60_000;

describe('pre-exam sweep', () => {
  let t: InstructorBed;
  let base: number;

  beforeAll(async () => {
    t = await createInstructorBed();
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    await t.reset();
    await t.sql('delete from audit_entry');
    await t.sql('delete from pre_exam_sweep');
    await t.sql('delete from course_sweep_option');
    await t.grant();
    // Whole minutes from now, so the stored times compare exactly.
    base = Math.ceil(Date.now() / MINUTE) * MINUTE;
    classicQuiz().dueAt = new Date(base + 50 * MINUTE).toISOString();
    t.bed.lms.state.assignments.get(301)!.unlockAt = new Date(base + 3 * 60 * MINUTE).toISOString();
    await t.discover();
    await t.courseExitPassword();
    for (const quiz of ['201', NEW_QUIZ]) expect((await t.request('POST', `/api/quizzes/${COURSE}/${encodeURIComponent(quiz)}/exb/enable`)).statusCode).toBe(200);
    t.bed.lms.calls.clear();
  });

  const classicQuiz = () => t.bed.lms.state.quizzes.get(201)!;
  const stored = (contentId: string) => t.settings.loadAssessmentSettings(COURSE, contentId);
  const sweepAt = async (at: number, leaseSeconds?: number) => {
    const ctx = await createContext({ config: t.bed.t.config, logger: createLogger('silent'), db: t.bed.t.db, oauth: FAST_OAUTH });
    return createPreExamSweep(ctx, { now: () => new Date(at), ...(leaseSeconds === undefined ? {} : { leaseSeconds }) });
  };
  const trpc = async (path: string, input?: unknown, method: 'GET' | 'POST' = 'GET') => {
    const url = method === 'GET' ? `/trpc/${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}` : `/trpc/${path}`;
    const response = await t.request(method, url, method === 'POST' ? { body: input } : {});
    expect(response.statusCode, response.body).toBe(200);
    return response.json().result.data;
  };
  const optIn = (value: boolean) => trpc('instructor.preExamSweep.setOption', { autoRepairBeforeStart: value }, 'POST');
  const alerts = async () => (await trpc('instructor.preExamSweep.alerts')).alerts as { contentId: string; found: string; repaired: boolean; outcome: string; stage: string }[];
  const repairs = () =>
    t.sql<{ outcome: string; content_id: string; actor_role: string; actor_lms_user_id: string | null; details: Record<string, unknown> }>(
      "select outcome, content_id, actor_role, actor_lms_user_id, details from audit_entry where action = 'enforcement.pre-exam-repair' order by id",
    );

  it('discovery stores the LMS unlock and due times of classic and new quizzes', async () => {
    const rows = await t.sql<{ content_id: string; unlock_at: Date | null; due_at: Date | null }>(
      'select content_id, unlock_at, due_at from assessment where course_id = ? and content_id in (?, ?) order by content_id',
      [COURSE, CLASSIC, NEW_QUIZ],
    );
    expect(rows.map((row) => [row.content_id, row.unlock_at && new Date(row.unlock_at).getTime(), row.due_at && new Date(row.due_at).getTime()])).toEqual([
      [CLASSIC, null, base + 50 * MINUTE],
      [NEW_QUIZ, base + 180 * MINUTE, null],
    ]);
  });

  describe('per-section dates', () => {
    const section = (minutes: { unlock?: number; due?: number }) => ({
      id: 901,
      title: 'Section A',
      setType: 'CourseSection' as const,
      setId: 11,
      ...(minutes.unlock === undefined ? {} : { unlockAt: new Date(base + minutes.unlock * MINUTE).toISOString() }),
      ...(minutes.due === undefined ? {} : { dueAt: new Date(base + minutes.due * MINUTE).toISOString() }),
    });
    const sweeps = async () =>
      (await t.sql<{ content_id: string; starts_at: Date; stage: string; outcome: string }>('select content_id, starts_at, stage, outcome from pre_exam_sweep order by starts_at, stage')).map(
        (row) => [row.content_id, new Date(row.starts_at).getTime() - base, row.stage, row.outcome],
      );

    it('a section of a classic quiz due tomorrow that starts in 30 minutes is swept before its start, and again ten minutes before', async () => {
      classicQuiz().dueAt = new Date(base + 24 * 60 * MINUTE).toISOString();
      classicQuiz().accessCode = null;
      await t.discover();
      // Only the base dates: tomorrow is not within the hour.
      expect((await (await sweepAt(base)).run()).outcomes).toMatchObject({ alerted: 0, 'in-place': 0, unchecked: 0 });
      expect(await sweeps()).toEqual([]);

      classicQuiz().overrides = [section({ unlock: 30, due: 24 * 60 + 30 })];
      await t.discover();
      const stored = await t.sql<{ override_starts: Date[] }>('select override_starts from assessment where course_id = ? and content_id = ?', [COURSE, CLASSIC]);
      expect(stored[0]!.override_starts.map((time) => new Date(time).getTime() - base)).toEqual([30 * MINUTE, (24 * 60 + 30) * MINUTE]);

      expect((await (await sweepAt(base)).run()).outcomes).toMatchObject({ alerted: 1 });
      expect(await alerts()).toEqual([expect.objectContaining({ contentId: CLASSIC, found: 'missing', stage: 'hour', startsAt: new Date(base + 30 * MINUTE).toISOString() })]);
      expect((await (await sweepAt(base + 21 * MINUTE)).run()).outcomes).toMatchObject({ alerted: 1 });
      expect(await sweeps()).toEqual([
        [CLASSIC, 30 * MINUTE, 'hour', 'alerted'],
        [CLASSIC, 30 * MINUTE, 'ten-minutes', 'alerted'],
      ]);
    });

    it('a section of a new quiz that unlocks within the hour is swept, read through the assignments’ all_dates', async () => {
      await optIn(true);
      Object.assign(t.bed.lms.state.newQuizSettings(301), { require_student_access_code: false, student_access_code: null });
      t.bed.lms.state.assignments.get(301)!.overrides = [section({ unlock: 20 })];
      await t.discover();
      expect(t.bed.lms.calls.last(LMS_ROUTES.listAssignments)!.query).toMatchObject({ include: ['all_dates'] });
      const report = await (await sweepAt(base)).run();
      expect(report.outcomes).toMatchObject({ repaired: 1, 'in-place': 1 });
      expect(t.bed.lms.state.newQuizSettings(301)).toMatchObject({ require_student_access_code: true, student_access_code: (await stored(NEW_QUIZ))!.accessCode });
      expect(await sweeps()).toEqual([
        [NEW_QUIZ, 20 * MINUTE, 'hour', 'repaired'],
        [CLASSIC, 50 * MINUTE, 'hour', 'in-place'],
      ]);
    });

    it('without overrides the base dates alone are swept, as before', async () => {
      const stored = await t.sql<{ override_starts: Date[] }>('select override_starts from assessment where course_id = ? order by content_id', [COURSE]);
      expect(stored.every((row) => row.override_starts.length === 0)).toBe(true);
      expect((await (await sweepAt(base)).run()).outcomes).toMatchObject({ 'in-place': 1 });
      expect(await sweeps()).toEqual([[CLASSIC, 50 * MINUTE, 'hour', 'in-place']]);
    });
  });

  it('opted in: a code removed in the LMS 50 minutes before the due time is put back, and again ten minutes before', async () => {
    await optIn(true);
    const code = (await stored(CLASSIC))!.accessCode!;
    classicQuiz().accessCode = null;

    const first = await (await sweepAt(base)).run();
    expect(first).toMatchObject({ ran: true, outcomes: { repaired: 1 } });
    expect(classicQuiz().accessCode).toBe(code);
    expect(t.bed.lms.calls.last(LMS_ROUTES.updateQuiz)!.body).toMatchObject({ quiz: { access_code: code } });
    // The assessment due in three hours was not swept: only the classic quiz's list was read, no new quiz.
    expect(t.bed.lms.calls.count('GET /api/quiz/v1/courses/:course_id/quizzes/:assignment_id')).toBe(0);
    expect(await alerts()).toEqual([expect.objectContaining({ contentId: CLASSIC, found: 'missing', repaired: true, outcome: 'repaired', stage: 'hour' })]);

    // Nothing more to do until ten minutes before.
    expect((await (await sweepAt(base + 20 * MINUTE)).run()).outcomes).toMatchObject({ repaired: 0, 'in-place': 0 });

    classicQuiz().accessCode = 'typed-by-hand';
    const second = await (await sweepAt(base + 41 * MINUTE)).run();
    expect(second.outcomes).toMatchObject({ repaired: 1 });
    expect(classicQuiz().accessCode).toBe(code);
    expect((await stored(CLASSIC))!.accessCode).toBe(code);

    const audit = await repairs();
    expect(audit.map(({ outcome, content_id, actor_role, actor_lms_user_id }) => ({ outcome, content_id, actor_role, actor_lms_user_id }))).toEqual([
      { outcome: 'success', content_id: CLASSIC, actor_role: 'system', actor_lms_user_id: null },
      { outcome: 'success', content_id: CLASSIC, actor_role: 'system', actor_lms_user_id: null },
    ]);
    expect(audit.map((entry) => entry.details)).toEqual([
      expect.objectContaining({ reason: 'pre-exam sweep', found: 'missing', verificationStatus: 'verified' }),
      expect.objectContaining({ reason: 'pre-exam sweep', found: 'stale', verificationStatus: 'verified' }),
    ]);
    expect(JSON.stringify(audit)).not.toContain(code);
    expect(JSON.stringify(await alerts())).not.toContain(code);

    // The repair wrote with the stored grant of the course's instructor (the background verifier's rule).
    expect(t.bed.lms.calls.last(LMS_ROUTES.updateQuiz)!.userId).toBe(2);
  });

  it('not opted in: the drift is only alerted, the LMS is left alone and nothing is audited as repaired', async () => {
    classicQuiz().accessCode = null;
    const report = await (await sweepAt(base)).run();
    expect(report.outcomes).toMatchObject({ alerted: 1, repaired: 0 });
    expect(classicQuiz().accessCode).toBeNull();
    expect(t.bed.lms.calls.count(LMS_ROUTES.updateQuiz)).toBe(0);
    expect(await alerts()).toEqual([expect.objectContaining({ contentId: CLASSIC, found: 'missing', repaired: false, outcome: 'alerted' })]);
    expect(await repairs()).toEqual([]);
    // The teacher's verification view says so too.
    expect((await t.request('GET', '/api/quizzes/exb-verification')).json()[CLASSIC]).toMatchObject({ status: 'missing' });

    // Ten minutes before, checked again (still alerted).
    expect((await (await sweepAt(base + 41 * MINUTE)).run()).outcomes).toMatchObject({ alerted: 1 });
    expect(await alerts()).toEqual([expect.objectContaining({ contentId: CLASSIC, stage: 'ten-minutes' })]);
  });

  it('an assessment that starts in three hours is not swept until its hour comes', async () => {
    Object.assign(t.bed.lms.state.newQuizSettings(301), { require_student_access_code: false, student_access_code: null });
    await optIn(true);
    const report = await (await sweepAt(base)).run();
    expect(report.outcomes).toMatchObject({ 'in-place': 1 });
    expect(t.bed.lms.calls.count(LMS_ROUTES.patchNewQuiz)).toBe(0);
    expect((await t.sql<{ content_id: string }>('select content_id from pre_exam_sweep')).map((row) => row.content_id)).toEqual([CLASSIC]);

    const later = await (await sweepAt(base + 125 * MINUTE)).run();
    expect(later.outcomes).toMatchObject({ repaired: 1 });
    expect(t.bed.lms.state.newQuizSettings(301)).toMatchObject({ require_student_access_code: true, student_access_code: (await stored(NEW_QUIZ))!.accessCode });
  });

  it('two instances sweeping at once make one repair', async () => {
    await optIn(true);
    classicQuiz().accessCode = null;
    t.slowLms('get', `/api/v1/courses/${COURSE}/quizzes`, 150);
    const [a, b] = await Promise.all([(await sweepAt(base)).run(), (await sweepAt(base)).run()]);
    expect([a.outcomes.repaired, b.outcomes.repaired].sort()).toEqual([0, 1]);
    expect(t.bed.lms.calls.count(LMS_ROUTES.updateQuiz)).toBe(1);
    expect((await repairs()).length).toBe(1);
    // The claim guards too: a sweep that got past an expired lease finds the start already swept.
    await t.sql('delete from lease');
    expect((await (await sweepAt(base)).run()).outcomes).toMatchObject({ repaired: 0, alerted: 0, 'in-place': 0 });
  });

  it('an unlock and a due time in the same hour make one check of the assessment', async () => {
    classicQuiz().unlockAt = new Date(base + 20 * MINUTE).toISOString();
    await t.discover();
    t.bed.lms.calls.clear();
    const report = await (await sweepAt(base)).run();
    expect(report.outcomes).toMatchObject({ 'in-place': 1 });
    expect(t.bed.lms.calls.count(LMS_ROUTES.listQuizzes)).toBe(1);
    const rows = await t.sql<{ starts_at: Date; stage: string; outcome: string }>('select starts_at, stage, outcome from pre_exam_sweep order by starts_at');
    expect(rows.map((row) => [new Date(row.starts_at).getTime() - base, row.stage, row.outcome])).toEqual([
      [20 * MINUTE, 'hour', 'in-place'],
      [50 * MINUTE, 'hour', 'in-place'],
    ]);
  });

  it('a spent call budget gives the sweep back for a later run, with nothing checked or changed', async () => {
    await optIn(true);
    classicQuiz().accessCode = null;
    const ctx = await createContext({
      config: { ...t.bed.t.config, accessCodeVerifier: { ...t.bed.t.config.accessCodeVerifier, callsPerMinute: 1 } },
      logger: createLogger('silent'),
      db: t.bed.t.db,
      oauth: FAST_OAUTH,
    });
    await t.sql("delete from admission_budget where key like 'access-code-verifier%'");
    const sweep = createPreExamSweep(ctx, { now: () => new Date(base) });
    // The one call of this minute goes to the read; the repair, which takes its two calls before it starts, waits.
    const report = await sweep.run();
    expect(report).toMatchObject({ ran: true, deferred: 1, outcomes: { repaired: 0 } });
    expect(classicQuiz().accessCode).toBeNull();
    expect(t.bed.lms.calls.count(LMS_ROUTES.updateQuiz)).toBe(0);
    expect(await t.sql('select 1 from pre_exam_sweep')).toEqual([]);
    expect(await repairs()).toEqual([]);
  });

  it('a failed repair leaves the LMS as it was, is audited as failed and alerted', async () => {
    await optIn(true);
    classicQuiz().accessCode = null;
    t.bed.lms.faults.next(LMS_ROUTES.updateQuiz, { status: 400 });
    expect((await (await sweepAt(base)).run()).outcomes).toMatchObject({ 'repair-failed': 1 });
    expect(classicQuiz().accessCode).toBeNull();
    expect((await repairs()).map((entry) => entry.outcome)).toEqual(['failed']);
    expect(await alerts()).toEqual([expect.objectContaining({ contentId: CLASSIC, repaired: false, outcome: 'repair-failed' })]);
  });

  it('housekeeping drops sweeps of starts a week past, and keeps recent ones', async () => {
    await (await sweepAt(base)).run();
    await t.sql(
      "insert into pre_exam_sweep (course_id, content_id, starts_at, stage, found, outcome) values (?, ?, now() - interval '8 days', 'hour', 'missing', 'alerted')",
      [COURSE, CLASSIC],
    );
    const ctx = await createContext({ config: t.bed.t.config, logger: createLogger('silent'), db: t.bed.t.db, oauth: FAST_OAUTH });
    expect(await ctx.management.sweepRecords.purgeExpired()).toBe(1);
    expect((await t.sql('select 1 from pre_exam_sweep')).length).toBe(1);
  });

  it('the opt-in is the course’s, audited, and another course’s teacher or a student cannot change it', async () => {
    expect((await trpc('instructor.preExamSweep.option')).autoRepairBeforeStart).toBe(false);
    await optIn(true);
    expect((await trpc('instructor.preExamSweep.option')).autoRepairBeforeStart).toBe(true);
    const audit = await t.sql<{ details: Record<string, unknown> }>("select details from audit_entry where action = 'course-defaults.save' and details->>'autoRepairBeforeStart' is not null");
    expect(audit).toEqual([{ details: { fields: ['autoRepairBeforeStart'], autoRepairBeforeStart: true } }]);
    const refused = await t.request('POST', '/trpc/instructor.preExamSweep.setOption', { body: { autoRepairBeforeStart: false }, cookie: t.sessionCookie(student()) });
    expect(refused.statusCode).toBe(403);
    expect((await trpc('instructor.preExamSweep.option')).autoRepairBeforeStart).toBe(true);
  });
});
