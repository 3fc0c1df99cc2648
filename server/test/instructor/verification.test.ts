import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAccessCodeVerifier, createContext } from '../../src/app.js';
import type { AppConfig } from '../../src/config/app-config.js';
import { VERIFICATION_REASONS } from '../../src/domain/enforcement/access-code-verification.js';
import { VERIFIER_LEASE, VERIFIER_LEASE_SECONDS, type BackgroundVerifier } from '../../src/domain/enforcement/background-verifier.js';
import { createLogger } from '../../src/logger.js';
import { FAST_OAUTH } from '../support/oauth-testbed.js';
import { COURSE, createInstructorBed, LMS_ROUTES, type InstructorBed } from './harness.js';

/**
 * The LMS can lose or replace an access code behind the service's back (course copy, manual edit, LMS-side reset).
 * Every discovery compares, the views show it, a repair puts it back, and a background verifier finds it first.
 */
const CLASSIC = 'classicquiz_201';
const NEW_QUIZ = 'newquiz:101:301';
const GET_NEW_QUIZ = 'GET /api/quiz/v1/courses/:course_id/quizzes/:assignment_id';

describe('access-code verification', () => {
  let t: InstructorBed;

  beforeAll(async () => {
    t = await createInstructorBed();
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    await t.reset();
    await t.grant();
    await t.discover();
    await t.courseExitPassword();
    for (const quiz of ['201', NEW_QUIZ]) expect((await t.request('POST', `/api/quizzes/${COURSE}/${quiz}/exb/enable`)).statusCode).toBe(200);
    t.bed.lms.calls.clear();
  });

  const classicQuiz = () => t.bed.lms.state.quizzes.get(201)!;
  const newQuiz = () => t.bed.lms.state.newQuizSettings(301);
  const stored = (contentId: string) => t.settings.loadAssessmentSettings(COURSE, contentId);
  const verification = async () => (await t.request('GET', '/api/quizzes/exb-verification')).json();
  const refresh = async () => expect((await t.request('POST', `/api/quizzes/course/${COURSE}/refresh`)).statusCode).toBe(200);
  const required = async (contentId: string) =>
    (await t.request('GET', `/api/exb/requirement/${COURSE}/${encodeURIComponent(contentId)}`, { cookie: null })).json().exbRequired;

  it('a refresh finds codes the LMS still holds verified, for classic and new quizzes alike', async () => {
    await refresh();
    const map = await verification();
    expect(map[CLASSIC]).toMatchObject({ status: 'verified', reason: null, checkedAt: expect.any(String) });
    expect(map[NEW_QUIZ]).toMatchObject({ status: 'verified', reason: null });
    // Classic codes come from the listing discovery already read; only new quizzes need their own read: the enforced
    // one for this check, the unenforced one for codes the service does not manage (`unmanaged-code.ts`).
    expect(t.bed.lms.calls.count(LMS_ROUTES.listQuizzes)).toBe(1);
    expect(t.bed.lms.calls.count(GET_NEW_QUIZ)).toBe(2);
  });

  it('a code removed in the LMS is missing; another code or a deleted quiz is stale; the requirement stays local', async () => {
    classicQuiz().accessCode = null;
    Object.assign(newQuiz(), { require_student_access_code: true, student_access_code: 'typed-by-hand' });
    await refresh();
    let map = await verification();
    expect(map[CLASSIC]).toMatchObject({ status: 'missing', reason: VERIFICATION_REASONS.missing });
    expect(map[NEW_QUIZ]).toMatchObject({ status: 'stale', reason: VERIFICATION_REASONS.otherCode });
    expect(await required(CLASSIC)).toBe(true);

    Object.assign(newQuiz(), { require_student_access_code: false, student_access_code: null });
    t.bed.lms.state.assignments.delete(301);
    await refresh();
    map = await verification();
    expect(map[NEW_QUIZ]).toMatchObject({ status: 'stale', reason: VERIFICATION_REASONS.gone });
  });

  it('records from before verification are unverified until checked', async () => {
    await t.sql("update assessment_setting set verification_status = 'unverified', verified_at = null where course_id = ?", [COURSE]);
    expect((await verification())[CLASSIC]).toMatchObject({ status: 'unverified', checkedAt: null });
    await refresh();
    expect((await verification())[CLASSIC]).toMatchObject({ status: 'verified' });
  });

  it('re-apply protection writes the stored code back to the LMS, checks it and keeps the code students hold', async () => {
    const code = (await stored(CLASSIC))!.accessCode;
    classicQuiz().accessCode = null;
    await refresh();
    const response = await t.request('POST', `/api/quizzes/${COURSE}/201/exb/protection/reapply`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ success: true, setting: { exbRequired: true, hasAccessCode: true, verificationStatus: 'verified' } });
    expect(response.body).not.toContain(code!);
    expect(classicQuiz().accessCode).toBe(code);
    expect(t.bed.lms.calls.last(LMS_ROUTES.updateQuiz)!.body).toMatchObject({ quiz: { access_code: code } });
    expect((await stored(CLASSIC))!.accessCode).toBe(code);
    expect((await verification())[CLASSIC].status).toBe('verified');
    const audit = await t.sql<{ action: string; outcome: string; content_id: string }>(
      "select action, outcome, content_id from audit_entry where action = 'enforcement.reapply-protection'",
    );
    expect(audit).toEqual([{ action: 'enforcement.reapply-protection', outcome: 'success', content_id: CLASSIC }]);
  });

  it('re-apply leaves the status and code alone when the LMS refuses, under the assessment lock', async () => {
    classicQuiz().accessCode = null;
    await refresh();
    t.bed.lms.faults.next(LMS_ROUTES.updateQuiz, { status: 400 });
    const refused = await t.request('POST', `/api/quizzes/${COURSE}/201/exb/protection/reapply`);
    expect(refused.statusCode).toBeGreaterThanOrEqual(400);
    expect((await verification())[CLASSIC].status).toBe('missing');
    expect(classicQuiz().accessCode).toBeNull();

    await t.sql("insert into lease (name, owner, expires_at) values (?, 'other', now() + interval '1 minute')", [`assessment:${COURSE}:${CLASSIC}`]);
    const busy = await t.request('POST', `/api/quizzes/${COURSE}/201/exb/protection/reapply`);
    expect(busy.statusCode).toBe(409);
    expect(classicQuiz().accessCode).toBeNull();
  });

  it('accepting the LMS code of a stale assessment stores it for proven exam browsers, without writing to the LMS', async () => {
    Object.assign(newQuiz(), { require_student_access_code: true, student_access_code: 'room-b-code' });
    await refresh();
    t.bed.lms.calls.clear();
    const path = `/api/quizzes/${COURSE}/${encodeURIComponent(NEW_QUIZ)}/exb/protection/accept-lms-code`;
    const response = await t.request('POST', path);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().setting.verificationStatus).toBe('verified');
    expect(t.bed.lms.calls.count(LMS_ROUTES.patchNewQuiz)).toBe(0);
    expect((await stored(NEW_QUIZ))!.accessCode).toBe('room-b-code');
    expect((await verification())[NEW_QUIZ].status).toBe('verified');

    // Nothing to accept when the LMS has no code: that is a re-apply.
    Object.assign(newQuiz(), { require_student_access_code: false, student_access_code: null });
    const missing = await t.request('POST', path);
    expect(missing.statusCode).toBe(409);
    expect(missing.json().error_code).toBe('LMS_ACCESS_CODE_MISSING');
    expect((await stored(NEW_QUIZ))!.accessCode).toBe('room-b-code');
  });

  describe('background verifier', () => {
    const verifierWith = async (change: Partial<AppConfig['accessCodeVerifier']>, leaseSeconds?: number): Promise<BackgroundVerifier> => {
      const ctx = await createContext({ config: t.bed.t.config, logger: createLogger('silent'), db: t.bed.t.db, oauth: FAST_OAUTH });
      return createAccessCodeVerifier(ctx, { ...t.bed.t.config.accessCodeVerifier, ...change }, leaseSeconds);
    };
    const leaseSecondsLeft = async () =>
      Number((await t.sql<{ left: string }>('select extract(epoch from expires_at - now()) as left from lease where name = ?', [VERIFIER_LEASE]))[0]?.left ?? 0);
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const neverChecked = () => t.sql("update assessment_setting set verified_at = null, verification_status = 'unverified'");
    const lmsReads = () => t.bed.lms.calls.count(LMS_ROUTES.listQuizzes) + t.bed.lms.calls.count(GET_NEW_QUIZ);

    beforeEach(async () => {
      await t.sql("delete from admission_budget where key like 'access-code-verifier%'");
    });

    it('finds a missing code with the stored grant, oldest check first, without anyone refreshing', async () => {
      await neverChecked();
      classicQuiz().accessCode = null;
      const report = await (await verifierWith({ callsPerMinute: 10 })).runBatch();
      expect(report).toEqual({ ran: true, checked: 2, unchecked: 0, deferred: 0 });
      expect((await verification())[CLASSIC]).toMatchObject({ status: 'missing' });
      expect((await verification())[NEW_QUIZ]).toMatchObject({ status: 'verified' });
      expect(t.bed.lms.calls.last(LMS_ROUTES.listQuizzes)!.userId).toBe(2);
      // Just checked: not due again until the re-check interval has passed.
      t.bed.lms.calls.clear();
      expect(await (await verifierWith({ callsPerMinute: 10 })).runBatch()).toEqual({ ran: true, checked: 0, unchecked: 0, deferred: 0 });
      expect(lmsReads()).toBe(0);
    });

    it('never makes more LMS calls per minute than its budget, across batches and instances', async () => {
      await neverChecked();
      const first = await verifierWith({ callsPerMinute: 1 });
      const report = await first.runBatch();
      expect(report.checked).toBe(1);
      expect(report.deferred).toBe(1);
      expect(lmsReads()).toBe(1);
      const second = await (await verifierWith({ callsPerMinute: 1 })).runBatch();
      expect(second).toMatchObject({ checked: 0, deferred: 1 });
      expect(lmsReads()).toBe(1);
    });

    it('charges every HTTP attempt to the budget, the retry of a failing LMS included', async () => {
      await neverChecked();
      t.bed.lms.faults.next('*', { status: 500, times: 50 });
      const failing = await (await verifierWith({ callsPerMinute: 3 })).runBatch();
      expect(t.bed.lms.calls.list().length).toBe(3);
      expect(failing.deferred).toBeGreaterThan(0);
    });

    it('charges the retries of a throttling LMS to the budget', async () => {
      await neverChecked();
      t.bed.lms.faults.rateLimit('*', { times: 50 });
      const throttled = await (await verifierWith({ callsPerMinute: 3 })).runBatch();
      expect(t.bed.lms.calls.list().length).toBe(3);
      expect(throttled.deferred).toBeGreaterThan(0);
    });

    it('holds a short lease, renews it while a batch runs and releases it when the batch ends', async () => {
      expect(VERIFIER_LEASE_SECONDS).toBeLessThanOrEqual(30);
      await neverChecked();
      t.bed.lms.faults.timeout(LMS_ROUTES.listQuizzes, { ms: 2_500 });
      const batch = (await verifierWith({ callsPerMinute: 10 }, 1)).runBatch();
      await sleep(1_700);
      // Past the unrenewed lifetime the holder still holds it; nobody else runs.
      expect(await leaseSecondsLeft()).toBeGreaterThan(0);
      expect((await (await verifierWith({ callsPerMinute: 10 })).runBatch()).ran).toBe(false);
      expect((await batch).ran).toBe(true);
      expect(await leaseSecondsLeft()).toBe(0);
    });

    it('a holder that stops releases the lease after the assessment at hand; one that died blocks only until it expires', async () => {
      await neverChecked();
      t.bed.lms.faults.timeout(LMS_ROUTES.listQuizzes, { ms: 800 });
      const first = await verifierWith({ callsPerMinute: 10 });
      const batch = first.runBatch();
      await sleep(300);
      await first.stop();
      expect((await batch).checked).toBeLessThanOrEqual(1);
      expect(await leaseSecondsLeft()).toBe(0);
      expect((await first.runBatch()).ran).toBe(false);
      expect((await (await verifierWith({ callsPerMinute: 10 })).runBatch()).ran).toBe(true);

      // A holder that died leaves its row: the next instance runs once it has expired, a second later here.
      await t.sql("insert into lease (name, owner, expires_at) values (?, 'dead', now() + interval '1 second')", [VERIFIER_LEASE]);
      expect((await (await verifierWith({})).runBatch()).ran).toBe(false);
      await sleep(1_100);
      expect((await (await verifierWith({})).runBatch()).ran).toBe(true);
    });

    it('runs one batch at a time over all instances (lease)', async () => {
      await neverChecked();
      await t.sql("insert into lease (name, owner, expires_at) values (?, 'elsewhere', now() + interval '1 minute')", [VERIFIER_LEASE]);
      expect(await (await verifierWith({})).runBatch()).toEqual({ ran: false, checked: 0, unchecked: 0, deferred: 0 });
      expect(lmsReads()).toBe(0);
    });

    it('stops cleanly on an expired grant and marks the assessments unverified with the reason', async () => {
      await t.sql("update assessment_setting set verified_at = now() - interval '1 day'");
      for (const record of t.bed.lms.state.tokens.values()) if (record.userId === 2) t.bed.lms.oauth.revoke(record);
      const report = await (await verifierWith({ callsPerMinute: 10 })).runBatch();
      expect(report).toMatchObject({ ran: true, checked: 0, unchecked: 2 });
      const map = await verification();
      expect(map[CLASSIC]).toMatchObject({ status: 'unverified', reason: VERIFICATION_REASONS.grantExpired });
      expect(map[NEW_QUIZ]).toMatchObject({ status: 'unverified', reason: VERIFICATION_REASONS.grantExpired });
      // One refused call, not one per assessment.
      expect(lmsReads()).toBeLessThanOrEqual(1);
      // The grant is flagged for re-authorization, so the next batch finds no grant rather than calling again.
      await t.sql("update assessment_setting set verified_at = now() - interval '1 day'");
      t.bed.lms.calls.clear();
      const next = await (await verifierWith({ callsPerMinute: 10 })).runBatch();
      expect(next).toMatchObject({ checked: 0, unchecked: 2 });
      expect(lmsReads()).toBe(0);
      expect((await verification())[CLASSIC].reason).toBe(VERIFICATION_REASONS.noGrant);
    });
  });
});
