import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { http } from 'msw';
import { APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { createContext, resetRecoveryLms } from '../../src/app.js';
import type { AppContext } from '../../src/context.js';
import { openDatabase, type Database } from '../../src/db/orm.js';
import { CourseResetWorkflow } from '../../src/domain/course-reset/course-reset-workflow.js';
import { ResetJournal } from '../../src/domain/course-reset/reset-journal.js';
import { VERIFICATION_REASONS } from '../../src/domain/enforcement/access-code-verification.js';
import { deleteCourseAssignments } from '../../src/domain/presets/index.js';
import { createLogger } from '../../src/logger.js';
import { FAST_OAUTH, storeGrant } from '../support/oauth-testbed.js';
import { admin, instructor, sessionFor } from '../support/sessions.js';
import { createAdminBed, LMS_URL, type AdminBed } from './harness.js';
import { auditEntries, ENFORCED, enforceCourse, lmsCodes, localState, reset, ROUTES, settledBySweep } from './reset-harness.js';

/**
 * A course reset whose process dies half-way, at every point between two durable acts: before each LMS step, after a
 * removal was journaled but before the LMS was asked, inside the local transaction, and while undoing a failed step.
 *
 * The dying instance is a second copy of the service on its own connection pool (the "zombie"): at the chosen point it
 * stops for good, as a killed process does; its connections inside a transaction are terminated (PostgreSQL rolls that
 * transaction back, as when the process's sockets close) and its lease is let run out (the time a crash leaves it). Then
 * another instance settles the reset from the journal, on the same PostgreSQL and development LMS: the LMS's codes and
 * the records agree again, and the audit trail tells what happened.
 */
let t: AdminBed;
let zombieDb: Database;
let zombie: AppContext;
let recoverer: AppContext;

const silent = createLogger('silent');

beforeAll(async () => {
  t = await createAdminBed();
  zombieDb = await openDatabase({ databaseUrl: t.bed.t.databaseUrl, dataDir: t.bed.t.dataDir, logger: silent, poolSize: 12 });
  // A dead process's connections go away without anyone listening; here nobody may be hurt by their errors either.
  zombieDb.pool.on('connect', (client) => client.on('error', () => undefined));
  zombieDb.pool.on('error', () => undefined);
  zombie = await createContext({ config: t.bed.t.config, logger: silent, db: zombieDb, oauth: FAST_OAUTH });
  recoverer = await createContext({ config: t.bed.t.config, logger: silent, db: t.bed.t.db, oauth: FAST_OAUTH });
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.reset();
  await t.grant();
  await storeGrant(t.bed, 2, APPLICATION_SCOPES);
  await t.connect('101');
  await enforceCourse(t);
});

type CrashPoint = `before:${string}` | `lms:${string}` | `restore:${string}` | 'transaction';

/**
 * Starts a reset on the zombie instance and lets it die at `point`: it never goes on from there. Returns once it is
 * dead and its open transaction ended by the server; its lease is still live (`leaseRunsOut`).
 */
async function crashAt(point: CrashPoint): Promise<void> {
  let reached!: () => void;
  const atPoint = new Promise<'crashed'>((resolve) => (reached = () => resolve('crashed')));
  const die = (): Promise<never> => {
    reached();
    return new Promise<never>(() => undefined);
  };
  const workflow = new CourseResetWorkflow({
    orm: zombieDb.orm,
    connections: zombie.admin.connections,
    assessments: zombie.management.assessments,
    settings: zombie.management.settings,
    audit: zombie.audit,
    logger: silent,
    journal: new ResetJournal(zombieDb.orm, t.bed.t.config.secrets.appSecret),
    recovery: zombie.admin.resetRecovery,
    presetAssignments: {
      deleteForCourse: async (tx, courseId) => {
        // The last statements of the transaction before its receipt: the process dies with the transaction open.
        if (point === 'transaction') await die();
        return deleteCourseAssignments(tx, courseId);
      },
    },
    checkpoint: async (reachedPoint) => {
      if (reachedPoint === point) await die();
    },
  });
  const principal = admin();
  const running = workflow
    .reset({ principal, courseId: '101', lms: zombie.lms.forPrincipal(principal), requestId: 'crashing-request', refusalOptions: { authorizeUrl: '/x' } })
    .then(
      () => 'completed' as const,
      () => 'failed' as const,
    );
  expect(await Promise.race([atPoint, running])).toBe('crashed');
  // Its sockets close with it: the server ends the transaction it had open, rolling it back.
  await t.sql(
    `select pg_terminate_backend(pid) from pg_stat_activity
     where datname = current_database() and state like 'idle in transaction%' and pid <> pg_backend_pid()`,
  );
  await expect.poll(async () => (await t.sql(`select pid from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'`)).length).toBe(0);
}

/**
 * The dead reset's lease runs out (at most its 60 s after the crash; the test does not wait for it). Done right before
 * the recovery is asked for, since every instance of the bed also sweeps on its own.
 */
async function leaseRunsOut(): Promise<void> {
  await t.sql(`update lease set expires_at = now() - interval '1 second' where name = 'course-reset:101'`);
}

/** The sweep every instance runs at its start and then periodically. */
function sweep() {
  return recoverer.admin.resetRecovery.sweep(resetRecoveryLms(recoverer));
}

async function snapshot() {
  return { lms: lmsCodes(t.bed.lms), local: await localState(t) };
}

/** The LMS's codes after a reset that went through: the enforced quizzes' codes gone, quiz 204's hand-set code kept. */
function codesAfterReset(before: Awaited<ReturnType<typeof snapshot>>['lms']) {
  return {
    quizzes: before.quizzes.map((quiz) => (quiz.id === 201 || quiz.id === 202 ? { ...quiz, accessCode: null } : quiz)),
    newQuizzes: before.newQuizzes.map((quiz) => (quiz.id === 301 ? { id: 301, require: false, code: null } : quiz)),
  };
}

async function verification() {
  return t.sql<{ content_id: string; verification_status: string; verification_reason: string | null }>(
    `select content_id, verification_status, verification_reason from assessment_setting
     where course_id = '101' and content_id in (?, ?, ?) order by content_id`,
    [...ENFORCED],
  );
}

async function journalRows() {
  return t.sql<{ phase: string; removed: string[]; sealed: string }>(
    `select phase, removed, encode(codes_sealed, 'escape') as sealed from course_reset_journal where course_id = '101'`,
  );
}

async function liveLeases() {
  return t.sql(`select name from lease where expires_at > now()`);
}

/** Every point in the LMS phase, in the order the reset passes them. */
const LMS_PHASE_POINTS: CrashPoint[] = ENFORCED.flatMap((id) => [`before:${id}`, `lms:${id}`] as CrashPoint[]).concat(['before:local-phase']);

describe('a reset that dies in its LMS phase is undone from its journal', () => {
  for (const point of LMS_PHASE_POINTS) {
    it(`at ${point}: every removed code is put back, nothing deleted, the trail says "compensated"`, async () => {
      const before = await snapshot();
      const codes = [...before.lms.quizzes.map((quiz) => quiz.accessCode), ...before.lms.newQuizzes.map((quiz) => quiz.code)].filter(
        (code): code is string => code !== null,
      );
      await crashAt(point);

      // While it lies dead: the journal names what was begun and holds the codes sealed; nobody claims `verified`.
      const [journal] = await journalRows();
      expect(journal!.phase).toBe('lms');
      const doneBefore = ENFORCED.indexOf(point.slice(point.indexOf(':') + 1) as (typeof ENFORCED)[number]);
      const expectedRemoved = point === 'before:local-phase' ? [...ENFORCED] : ENFORCED.slice(0, doneBefore + (point.startsWith('lms:') ? 1 : 0));
      expect(journal!.removed).toEqual(expectedRemoved);
      for (const code of codes) expect(journal!.sealed).not.toContain(code);
      expect(await verification()).toEqual(
        ENFORCED.map((id) => ({ content_id: id, verification_status: 'unverified', verification_reason: VERIFICATION_REASONS.resetRunning })),
      );
      expect((await auditEntries(t)).map((entry) => entry.outcome)).toEqual(['started']);
      const detail = await t.request('GET', '/api/admin/courses/101');
      const shown = (detail.json().course.assessments as { id: string; verificationStatus: string }[]).filter((a) => (ENFORCED as readonly string[]).includes(a.id));
      expect(shown.map((assessment) => assessment.verificationStatus)).toEqual(['unverified', 'unverified', 'unverified']);

      await leaseRunsOut();
      await settledBySweep(t, recoverer, 'compensated');

      expect(await snapshot()).toEqual(before);
      expect(await journalRows()).toEqual([]);
      expect(await liveLeases()).toEqual([]);
      expect(await verification()).toEqual(
        ENFORCED.map((id) => ({ content_id: id, verification_status: 'unverified', verification_reason: VERIFICATION_REASONS.resetUndone })),
      );
      const entries = await auditEntries(t);
      expect(entries.map((entry) => entry.outcome)).toEqual(['started', 'compensated']);
      expect(entries[1]!.details).toMatchObject({ phase: 'lms', codesRestored: expectedRemoved.length, startedBy: '1' });
      // A second sweep finds nothing left to do.
      expect(await sweep()).toEqual({});
    });
  }

  it('while undoing a failed step: it is undone further, never finished', async () => {
    const before = await snapshot();
    // The LMS refuses the new quiz's removal; the reset dies while putting back the codes it removed.
    t.bed.lms.faults.next(ROUTES.patchNewQuiz, { status: 403 });
    await crashAt('restore:classicquiz_202');
    expect((await journalRows())[0]!.phase).toBe('compensating');
    await leaseRunsOut();
    await settledBySweep(t, recoverer, 'compensated');
    expect(await snapshot()).toEqual(before);
    expect((await auditEntries(t)).map((entry) => [entry.outcome, entry.details.phase])).toEqual([
      ['started', undefined],
      ['compensated', 'compensating'],
    ]);
  });
});

describe('a reset that dies in its local transaction is finished from its journal', () => {
  it('the transaction rolled back with the process: it is run again, the codes stay removed, the trail says "recovered"', async () => {
    const before = await snapshot();
    await crashAt('transaction');
    // The server rolled the transaction back: the records are all there, but every code is gone from the LMS.
    expect(await localState(t)).toEqual(before.local);
    expect(lmsCodes(t.bed.lms)).toEqual(codesAfterReset(before.lms));
    expect((await journalRows())[0]!.phase).toBe('local');

    await leaseRunsOut();
    await settledBySweep(t, recoverer, 'recovered');

    expect(lmsCodes(t.bed.lms)).toEqual(codesAfterReset(before.lms));
    const local = await localState(t);
    expect(local.settings).toBe('[]');
    expect(local.cached).toBe('[]');
    const [receipt] = await t.sql<{ reset_receipt: { removedCodeIds: string[]; byLmsUserId: string } }>(
      `select reset_receipt from admin_course where course_id = '101'`,
    );
    expect(receipt!.reset_receipt).toMatchObject({ removedCodeIds: [...ENFORCED], byLmsUserId: '1' });
    expect(await journalRows()).toEqual([]);
    expect(await liveLeases()).toEqual([]);
    const entries = await auditEntries(t);
    expect(entries.map((entry) => entry.outcome)).toEqual(['started', 'recovered']);
    expect(entries[1]!.details).toMatchObject({ phase: 'local', codesRemoved: 3, startedBy: '1' });
  });
});

describe('who settles an interrupted reset', () => {
  it('the next instance that starts, within one lease period of the crash', async () => {
    const before = await snapshot();
    await crashAt('lms:classicquiz_202');
    await leaseRunsOut();
    const started = Date.now();
    await t.appWith((config) => config);
    await expect.poll(journalRows, { timeout: 10_000, interval: 50 }).toEqual([]);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(await snapshot()).toEqual(before);
    expect((await auditEntries(t)).map((entry) => [entry.outcome, entry.details.codesRestored])).toEqual([
      ['started', undefined],
      ['compensated', 2],
    ]);
  });

  it('the next reset of the course: it undoes the interrupted one with its grant, then resets', async () => {
    const before = await snapshot();
    await crashAt('before:newquiz:101:301');
    await leaseRunsOut();
    const response = await reset(t);
    expect(response.statusCode, response.body).toBe(200);
    expect(lmsCodes(t.bed.lms)).toEqual(codesAfterReset(before.lms));
    expect(await journalRows()).toEqual([]);
    const entries = await auditEntries(t);
    expect(entries.map((entry) => [entry.outcome, entry.actor_lms_user_id])).toEqual([
      ['started', '1'],
      ['compensated', '1'],
      ['started', '1'],
      ['success', '1'],
    ]);
  });

  it('until it is settled, instructors’ changes to the course are refused as a reset in progress', async () => {
    await crashAt('lms:classicquiz_201');
    const teacher = sessionFor(t.app, instructor()).cookie;
    const enable = () =>
      t.app.inject({
        method: 'PUT',
        url: '/api/quizzes/classicquiz_203/exb',
        headers: { cookie: teacher, 'sec-fetch-site': 'same-origin' },
        payload: { required: true },
      });
    await leaseRunsOut();
    const refused = await enable();
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ error_code: 'COURSE_RESET_IN_PROGRESS' });
    await settledBySweep(t, recoverer, 'compensated');
    expect((await enable()).statusCode).toBe(200);
  });

  it('a reset that lost its lease and stopped: the sweep puts back what it removed', async () => {
    const before = await snapshot();
    // While the first code is removed, the lease runs out: the reset stops and leaves its journal for the recovery.
    t.bed.msw.use(
      http.put(`${LMS_URL}/api/v1/courses/101/quizzes/201`, async () => {
        await t.sql(`update lease set expires_at = now() - interval '1 second' where name = 'course-reset:101'`);
        return undefined;
      }),
    );
    const response = await reset(t);
    expect(response.json()).toMatchObject({ error_code: 'ADMIN_COURSE_RESET_VERIFY_REQUIRED' });
    expect((await journalRows()).map((row) => row.removed)).toEqual([['classicquiz_201']]);
    await leaseRunsOut();
    await settledBySweep(t, recoverer, 'compensated');
    expect(await snapshot()).toEqual(before);
    expect((await auditEntries(t)).map((entry) => entry.outcome)).toEqual(['started', 'verify-required', 'compensated']);
  });

  it('waits while the lease of the reset is still live: a running reset is never taken over', async () => {
    await crashAt('before:classicquiz_202');
    expect(await sweep()).toEqual({});
    expect(await journalRows()).toHaveLength(1);
  });

  it('leaves the journal for later when no LMS authorization can restore the codes', async () => {
    await crashAt('before:classicquiz_202');
    await t.sql(`delete from lms_oauth_token`);
    await leaseRunsOut();
    // Left pending (by this sweep, or by an instance's own that came first).
    expect(['pending', undefined]).toContain((await sweep())['101']);
    expect(await journalRows()).toHaveLength(1);
    expect(await liveLeases()).toEqual([]);
    await t.grant();
    await leaseRunsOut();
    await settledBySweep(t, recoverer, 'compensated');
  });
});
