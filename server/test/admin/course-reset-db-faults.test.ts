import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { failNextWrites, runSql, stallWrites, terminateBackend } from '../support/db-faults.js';
import { startTcpRelay, type TcpRelay } from '../support/tcp-proxy.js';
import { createContext } from '../../src/app.js';
import { createLogger } from '../../src/logger.js';
import { FAST_OAUTH } from '../support/oauth-testbed.js';
import { createAdminBed, type AdminBed } from './harness.js';
import { auditEntries, enforceCourse, ENFORCED, lmsCodes, reset, settledBySweep } from './reset-harness.js';

/**
 * The course reset when its database transaction fails, for real: a write the database refuses, a commit it refuses, a
 * backend terminated in the middle of the transaction (definite failures: the LMS is compensated), and a connection
 * lost once `COMMIT` was sent (ambiguous: decided from the receipt). The service reaches PostgreSQL through a relay
 * the test can cut at an exact point of the protocol; the test reads the database directly.
 */
let relay: TcpRelay;
let t: AdminBed;
let direct: string;

beforeAll(async () => {
  const server = new URL(inject('databaseUrl'));
  relay = await startTcpRelay({ host: server.hostname, port: Number(server.port || 5432) });
  t = await createAdminBed({ connectThrough: (url) => relay.through(url) });
  direct = t.bed.t.databaseUrl;
});
afterAll(async () => {
  await relay.start();
  await t.close();
  await relay.stop();
});
afterEach(async () => {
  await relay.start();
  // Whatever failed, no connection stays checked out: a broken one is discarded, a healthy one returned.
  const pool = await t.bed.t.db.orm.em.getConnection().getNativeClient();
  expect(pool.totalCount - pool.idleCount).toBe(0);
});
beforeEach(async () => {
  await relay.start();
  await t.reset();
  await t.grant();
  await t.connect('101');
  await enforceCourse(t);
});

/** The course's records read past the relay, so they can be read while the service's connections are cut. */
async function records() {
  const rows = async (sql: string) => JSON.stringify(await runSql(direct, [sql]));
  return {
    settings: await rows(`select content_id, exb_required, encode(access_code_sealed, 'hex') as code from assessment_setting where course_id = '101' order by 1`),
    cached: await rows(`select content_id from assessment where course_id = '101' order by 1`),
    defaults: await rows(`select url_rules, encode(exit_password_sealed, 'hex') as exit, reset_generation from course_defaults where course_id = '101'`),
    receipt: await rows(`select reset_receipt_id from admin_course where course_id = '101'`),
  };
}

async function snapshot() {
  return { lms: lmsCodes(t.bed.lms), local: await records() };
}

/** What the codes and records are after a reset that went through: codes of the enforced quizzes gone, records gone. */
function resetState(before: Awaited<ReturnType<typeof snapshot>>) {
  return {
    quizzes: before.lms.quizzes.map((quiz) => (quiz.id === 201 || quiz.id === 202 ? { ...quiz, accessCode: null } : quiz)),
    newQuizzes: before.lms.newQuizzes.map((quiz) => (quiz.id === 301 ? { id: 301, require: false, code: null } : quiz)),
  };
}

describe('a definite transaction failure is compensated', () => {
  it('when the database refuses the receipt’s write: 500, every code put back, nothing deleted', async () => {
    const before = await snapshot();
    const fault = await failNextWrites(direct, { table: 'admin_course', operation: 'UPDATE', when: 'new.reset_receipt_id is distinct from old.reset_receipt_id' });
    try {
      const response = await reset(t);
      expect(response.statusCode, response.body).toBe(500);
      expect(response.json()).toMatchObject({ error_code: 'INTERNAL_ERROR', outcome: 'rolled-back' });
      expect(await fault.refused()).toBe(1);
    } finally {
      await fault.remove();
    }
    expect(await snapshot()).toEqual(before);
    expect((await auditEntries(t)).map((entry) => entry.outcome)).toEqual(['started', 'rolled-back']);
  });

  it('when the database refuses the COMMIT itself (a deferred check): the server rolled back, so it is definite', async () => {
    const before = await snapshot();
    const fault = await failNextWrites(direct, { table: 'admin_course', operation: 'UPDATE', at: 'commit', when: 'new.reset_receipt_id is not null' });
    try {
      const response = await reset(t);
      expect(response.statusCode, response.body).toBe(500);
      expect(response.json()).toMatchObject({ outcome: 'rolled-back' });
      expect(await fault.refused()).toBe(1);
    } finally {
      await fault.remove();
    }
    expect(await snapshot()).toEqual(before);
  });

  it('when its backend is terminated in the middle of the transaction: 503, every code put back, nothing deleted', async () => {
    const before = await snapshot();
    const stall = await stallWrites(direct, { table: 'assessment', at: 'statement', operation: 'DELETE', seconds: 20 });
    try {
      const pending = reset(t);
      await terminateBackend(direct, await stall.sleeper());
      const response = await pending;
      expect(response.statusCode, response.body).toBe(503);
      expect(response.json()).toMatchObject({ error_code: 'SERVICE_UNAVAILABLE', outcome: 'rolled-back' });
    } finally {
      await stall.remove();
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe('an ambiguous commit is decided from the receipt', () => {
  it('not committed (the backend was terminated while committing): compensated, nothing lost', async () => {
    const before = await snapshot();
    const stall = await stallWrites(direct, { table: 'admin_course', at: 'commit', operation: 'UPDATE', when: 'new.reset_receipt_id is not null', seconds: 20 });
    try {
      const pending = reset(t);
      const pid = await stall.sleeper();
      // The service has sent COMMIT and waits for its answer.
      expect(await runSql(direct, [`select lower(query) as query from pg_stat_activity where pid = ${pid}`])).toEqual([{ query: 'commit' }]);
      await terminateBackend(direct, pid);
      const response = await pending;
      expect(response.statusCode, response.body).toBe(503);
      expect(response.json()).toMatchObject({ error_code: 'SERVICE_UNAVAILABLE', outcome: 'rolled-back' });
    } finally {
      await stall.remove();
    }
    expect(await snapshot()).toEqual(before);
    expect((await auditEntries(t)).map((entry) => entry.outcome)).toEqual(['started', 'rolled-back']);
  });

  it('not committed (COMMIT never reached the server): compensated, nothing lost', async () => {
    const before = await snapshot();
    const cut = relay.cutOnce({ after: 'reset_receipt_id', on: 'commit', drop: 'request' });
    const response = await reset(t);
    await cut;
    expect(response.statusCode, response.body).toBe(503);
    expect(response.json()).toMatchObject({ outcome: 'rolled-back' });
    expect(await snapshot()).toEqual(before);
  });

  it('committed (the answer to COMMIT was lost): the reset is kept and answered as done', async () => {
    const before = await snapshot();
    const cut = relay.cutOnce({ after: 'reset_receipt_id', on: 'commit', drop: 'reply' });
    const response = await reset(t);
    await cut;
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ success: true, assessmentsCleared: 6, accessCodesRemoved: 3 });
    const after = await snapshot();
    expect(after.lms).toEqual(resetState(before));
    expect(after.local).toMatchObject({ settings: '[]', cached: '[]', receipt: JSON.stringify([{ reset_receipt_id: body.receipt.id }]) });
    // The success entry was written in the transaction that committed; nothing else was recorded.
    expect((await auditEntries(t)).map((entry) => entry.outcome)).toEqual(['started', 'success']);
  });

  it('unreadable (the database stays unreachable): 409 ADMIN_COURSE_RESET_VERIFY_REQUIRED naming every removed code', async () => {
    const before = await snapshot();
    const cut = relay.cutOnce({ after: 'reset_receipt_id', on: 'commit', drop: 'reply', then: () => relay.stop() });
    const response = await reset(t);
    await cut;
    expect(response.statusCode, response.body).toBe(409);
    expect(response.json()).toMatchObject({
      success: false,
      error_code: 'ADMIN_COURSE_RESET_VERIFY_REQUIRED',
      outcome: 'verify-required',
      assessments: ENFORCED.map((id) => expect.objectContaining({ id })),
    });
    // What a person then finds on checking: the reset did go through, and the answer named exactly its codes.
    const after = await snapshot();
    expect(after.lms).toEqual(resetState(before));
    expect(after.local.settings).toBe('[]');
    await relay.start();
    // It committed, and the journal went with it: nothing is left for a recovery to do.
    expect(await runSql(direct, [`select course_id from course_reset_journal`])).toEqual([]);
  });

  it('unreadable and not committed (COMMIT never arrived, the database stays away): the journal stays, and the reset is finished from it', async () => {
    const before = await snapshot();
    const cut = relay.cutOnce({ after: 'reset_receipt_id', on: 'commit', drop: 'request', then: () => relay.stop() });
    const response = await reset(t);
    await cut;
    expect(response.statusCode, response.body).toBe(409);
    expect(response.json()).toMatchObject({ error_code: 'ADMIN_COURSE_RESET_VERIFY_REQUIRED', outcome: 'verify-required' });
    await relay.start();
    // Nothing of the transaction is there, but every code is gone from the LMS: the journal tells the recovery so.
    expect((await records()).settings).toBe(before.local.settings);
    expect(await runSql(direct, [`select phase from course_reset_journal where course_id = '101'`])).toEqual([{ phase: 'local' }]);
    // The lease could not be released while the database was away; a recovery waits until it has run out.
    await runSql(direct, [`update lease set expires_at = now() - interval '1 second' where name = 'course-reset:101'`]);
    const recoverer = await createContext({ config: t.bed.t.config, logger: createLogger('silent'), db: t.bed.t.db, oauth: FAST_OAUTH });
    await settledBySweep(t, recoverer, 'recovered');
    const after = await snapshot();
    expect(after.lms).toEqual(resetState(before));
    expect(after.local).toMatchObject({ settings: '[]', cached: '[]' });
    expect(await runSql(direct, [`select course_id from course_reset_journal`])).toEqual([]);
    expect((await auditEntries(t)).map((entry) => entry.outcome)).toEqual(['started', 'recovered']);
  });
});
