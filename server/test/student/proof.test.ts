import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ActivityCounters } from '../../src/domain/activity/activity-counters.js';
import { createLogger } from '../../src/logger.js';
import { configKeyHashFor } from '../../../e2e/src/exb-simulator/index.js';
import {
  ACCESS_CODE,
  COURSE,
  createStudentHarness,
  instructor,
  LMS,
  NEW_QUIZ,
  pageUrl,
  QUIZ,
  student,
  type StudentHarness,
} from './harness.js';

let h: StudentHarness;
beforeAll(async () => {
  h = await createStudentHarness();
  await h.enforce(QUIZ);
  await h.enforce(NEW_QUIZ);
  await h.authorizeStudent(3);
});
afterAll(() => h.close());

function expectSensitive(response: LightMyRequestResponse): void {
  expect(response.headers['cache-control']).toContain('no-store');
  expect(response.headers.pragma).toBe('no-cache');
  expect(response.headers.expires).toBe('0');
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['referrer-policy']).toBe('no-referrer');
}

const proofTokenOf = (response: LightMyRequestResponse) => (response.json() as { proofToken: string }).proofToken;

async function provenToken(contentId: string, principal = student()): Promise<string> {
  const { opened } = await h.start(principal, contentId);
  const proof = await h.prove(contentId, opened.configKey);
  expect(proof.statusCode, proof.body).toBe(200);
  return proofTokenOf(proof);
}

describe('GET /api/exb/requirement/:courseId/:quizId', () => {
  const requirement = (courseId: string, contentId: string) =>
    h.app.inject({ method: 'GET', url: `/api/exb/requirement/${courseId}/${contentId.includes('/') ? contentId : encodeURIComponent(contentId)}` });

  it('answers true for a fully active setting, with the exact cache-control header', async () => {
    const response = await requirement(COURSE, QUIZ);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, exbRequired: true });
    expect(response.headers['cache-control']).toBe('private, no-store, max-age=0');
    expect((await requirement(COURSE, NEW_QUIZ)).json()).toEqual({ success: true, exbRequired: true });
  });

  it('answers 200 false for absent, disabled, misconfigured, unverifiable and malformed', async () => {
    await h.enforce('classicquiz_701', { enabled: false, exbRequired: false, accessCode: null });
    await h.enforce('classicquiz_702', { exitPasswordOverride: null });
    await h.enforce('classicquiz_703', { accessCode: null });
    await h.enforce('classicquiz_704');
    await h.enforce('classicquiz_705', { exbRequired: false });
    // A sealed code that no longer opens for its row.
    await h.t.db.orm.em
      .getConnection()
      .execute(`update assessment_setting set access_code_sealed = '\\x00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff' where content_id = 'classicquiz_704'`);
    for (const [courseId, contentId] of [
      [COURSE, 'classicquiz_700'],
      [COURSE, 'classicquiz_701'],
      [COURSE, 'classicquiz_702'],
      [COURSE, 'classicquiz_703'],
      [COURSE, 'classicquiz_704'],
      [COURSE, 'classicquiz_705'],
      ['102', QUIZ],
      [COURSE, 'newquiz:102:303'],
      [COURSE, 'classicquiz_0201'],
      [COURSE, '201'],
      ['abc', QUIZ],
      [COURSE, 'x'.repeat(300)],
      [COURSE, `${QUIZ}/extra`],
      [COURSE, ''],
    ] as const) {
      const response = await requirement(courseId, contentId);
      expect(response.statusCode, `${courseId}/${contentId}`).toBe(200);
      expect(response.json()).toEqual({ success: true, exbRequired: false });
      expect(response.headers['cache-control']).toBe('private, no-store, max-age=0');
    }
  });

  it('answers concurrent identical requests alike', async () => {
    const responses = await Promise.all(Array.from({ length: 30 }, () => requirement(COURSE, QUIZ)));
    for (const response of responses) expect(response.json()).toEqual({ success: true, exbRequired: true });
  });

  it('lets the LMS origin read it across origins, without credentials', async () => {
    const response = await h.app.inject({ method: 'GET', url: `/api/exb/requirement/${COURSE}/${QUIZ}`, headers: { origin: LMS } });
    expect(response.headers['access-control-allow-origin']).toBe(LMS);
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
    const foreign = await h.app.inject({ method: 'GET', url: `/api/exb/requirement/${COURSE}/${QUIZ}`, headers: { origin: 'https://evil.example' } });
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('POST /api/exb/access-proof/:courseId/:quizId', () => {
  it('answers the contract body with sensitive headers', async () => {
    const { opened } = await h.start();
    const response = await h.prove(QUIZ, opened.configKey);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, proofToken: expect.stringMatching(/^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/), expiresInSeconds: 120 });
    expectSensitive(response);
  });

  it('refuses with INVALID_EXB_CONFIG_PROOF: wrong key, another page, plain HTTP, another origin, the result page', async () => {
    const { opened } = await h.start();
    const key = opened.configKey;
    const take = pageUrl(QUIZ);
    const cases: { url: string; hashUrl?: string; key?: string }[] = [
      { url: take, key: '0'.repeat(64) },
      { url: take, hashUrl: `${take}?other=1` },
      { url: take.replace('https:', 'http:') },
      { url: take.replace(LMS, 'https://lms.example.test.evil.example') },
      { url: take.replace(LMS, 'https://LMS.example.test:443') },
      { url: `${LMS}/courses/101/quizzes/201` },
      { url: `${LMS}/courses/101/quizzes/201/take/extra` },
      { url: `${LMS}/courses/102/quizzes/201/take` },
      { url: `${LMS}/courses/101/assignments/301` },
      { url: `https://user@lms.example.test/courses/101/quizzes/201/take` },
    ];
    for (const entry of cases) {
      const response = await h.app.inject({
        method: 'POST',
        url: `/api/exb/access-proof/${COURSE}/${QUIZ}`,
        payload: { configKeyHash: configKeyHashFor(entry.hashUrl ?? entry.url, entry.key ?? key), url: entry.url },
      });
      expect(response.statusCode, entry.url).toBe(403);
      expect(response.json()).toMatchObject({ success: false, error_code: 'INVALID_EXB_CONFIG_PROOF' });
      expectSensitive(response);
    }
    for (const configKeyHash of ['nothex', 'A'.repeat(63), `${'a'.repeat(64)} `]) {
      const response = await h.app.inject({ method: 'POST', url: `/api/exb/access-proof/${COURSE}/${QUIZ}`, payload: { configKeyHash, url: take } });
      expect(response.statusCode).toBe(403);
    }
  });

  it('never confuses ids that share a prefix: quiz 12 is not quiz 123, course 10 is not course 101', async () => {
    const proveWith = async (contentId: string, url: string) => {
      const { opened } = await h.start(student(), contentId);
      return { opened, response: await h.prove(contentId, opened.configKey, url) };
    };
    await h.enforce('classicquiz_12');
    await h.enforce('classicquiz_123');
    await h.enforce('newquiz:101:30');
    for (const [contentId, url] of [
      ['classicquiz_12', `${LMS}/courses/101/quizzes/123/take`],
      ['classicquiz_123', `${LMS}/courses/101/quizzes/12/take`],
      ['classicquiz_12', `${LMS}/courses/1011/quizzes/12/take`],
      ['classicquiz_12', `${LMS}/courses/10/quizzes/12/take`],
      ['newquiz:101:30', `${LMS}/courses/101/assignments/301`],
      ['newquiz:101:30', `${LMS}/courses/101/assignments/30/build`],
    ] as const) {
      const { response } = await proveWith(contentId, url);
      expect(response.statusCode, `${contentId} at ${url}`).toBe(403);
    }
    expect((await proveWith('classicquiz_12', `${LMS}/courses/101/quizzes/12/take`)).response.statusCode).toBe(200);
    expect((await proveWith('newquiz:101:30', `${LMS}/courses/101/assignments/30`)).response.statusCode).toBe(200);
  });

  it('accepts only the configuration of this assessment: another quiz’s key proves nothing here', async () => {
    const other = await h.start(student(), NEW_QUIZ);
    const response = await h.prove(QUIZ, other.opened.configKey);
    expect(response.statusCode).toBe(403);
  });

  it('accepts every student of a class, whichever downloaded before or after the others proved', async () => {
    await h.enforce('classicquiz_712');
    const early = [await h.start(student(), 'classicquiz_712'), await h.start(student(), 'classicquiz_712')];
    expect((await h.prove('classicquiz_712', early[0]!.opened.configKey)).statusCode).toBe(200);
    // Downloaded after this process hashed the class's keys for the page: only the new key is hashed.
    const late = await h.start(student(), 'classicquiz_712');
    expect((await h.prove('classicquiz_712', late.opened.configKey)).statusCode).toBe(200);
    for (const { opened } of early) expect((await h.prove('classicquiz_712', opened.configKey)).statusCode).toBe(200);
    expect((await h.prove('classicquiz_712', 'not-a-key-of-this-class')).statusCode).toBe(403);
  });

  it('refuses a configuration downloaded before the fingerprint changed, and accepts a fresh one', async () => {
    await h.enforce('classicquiz_711');
    const before = await h.start(student(), 'classicquiz_711');
    const instructorBefore = await h.start(instructor(), 'classicquiz_711');
    await h.update('classicquiz_711', () => ({ exitPasswordOverride: 'changed-exit' }));
    expect((await h.prove('classicquiz_711', before.opened.configKey)).statusCode).toBe(403);
    expect((await h.prove('classicquiz_711', instructorBefore.opened.configKey)).statusCode).toBe(403);
    const after = await h.start(student(), 'classicquiz_711');
    expect((await h.prove('classicquiz_711', after.opened.configKey)).statusCode).toBe(200);
  });

  it('refuses once enforcement is off, and answers 404 without an error code when there is no setting', async () => {
    await h.enforce('classicquiz_712');
    const { opened } = await h.start(student(), 'classicquiz_712');
    await h.update('classicquiz_712', () => ({ enabled: false, exbRequired: false }));
    const off = await h.prove('classicquiz_712', opened.configKey);
    expect(off.statusCode).toBe(403);
    expect(off.json()).toMatchObject({ error_code: 'INVALID_EXB_CONFIG_PROOF' });
    for (const [courseId, contentId] of [[COURSE, 'classicquiz_719'], ['102', QUIZ], [COURSE, 'bogus']] as const) {
      const url = `${LMS}/courses/${courseId}/quizzes/${contentId.replace('classicquiz_', '')}/take`;
      const response = await h.app.inject({
        method: 'POST',
        url: `/api/exb/access-proof/${courseId}/${contentId}`,
        payload: { configKeyHash: configKeyHashFor(url, opened.configKey), url },
      });
      expect(response.statusCode, `${courseId}/${contentId}`).toBe(404);
      expect(response.json()).toEqual({ success: false, message: expect.any(String) });
      expectSensitive(response);
    }
  });

  it('answers 400 for a missing hash or URL, and for a body that is not JSON', async () => {
    for (const payload of [{ url: pageUrl(QUIZ) }, { configKeyHash: 'a'.repeat(64) }, { configKeyHash: 5, url: pageUrl(QUIZ) }, { configKeyHash: 'a'.repeat(64), url: 'x'.repeat(5000) }]) {
      const response = await h.app.inject({ method: 'POST', url: `/api/exb/access-proof/${COURSE}/${QUIZ}`, payload });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error_code: 'INVALID_REQUEST' });
      expectSensitive(response);
    }
    const broken = await h.app.inject({
      method: 'POST',
      url: `/api/exb/access-proof/${COURSE}/${QUIZ}`,
      headers: { 'content-type': 'application/json' },
      payload: '{"configKeyHash":',
    });
    expect(broken.statusCode).toBe(400);
    expectSensitive(broken);
  });

  it('answers preflights from the LMS origin for the proof and the redemption', async () => {
    const proof = await h.app.inject({
      method: 'OPTIONS',
      url: `/api/exb/access-proof/${COURSE}/${QUIZ}`,
      headers: { origin: LMS, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(proof.statusCode).toBe(204);
    expect(proof.headers['access-control-allow-origin']).toBe(LMS);
    const code = await h.app.inject({
      method: 'OPTIONS',
      url: `/api/exb/access-code/${COURSE}/${QUIZ}`,
      headers: { origin: LMS, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-exb-proof-token' },
    });
    expect(code.statusCode).toBe(204);
    expect(code.headers['access-control-allow-headers']).toContain('x-exb-proof-token');
  });
});

describe('POST /api/exb/access-code/:courseId/:quizId', () => {
  it('releases the code once; a replay is refused', async () => {
    const token = await provenToken(QUIZ);
    const first = await h.redeem(QUIZ, token);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ success: true, accessCode: ACCESS_CODE, exitGrantExpiresInSeconds: 43200 });
    expectSensitive(first);
    const replay = await h.redeem(QUIZ, token);
    expect(replay.statusCode).toBe(403);
    expectSensitive(replay);
  });

  it('of 50 parallel redemptions of one proof exactly one succeeds', async () => {
    const token = await provenToken(QUIZ);
    const responses = await Promise.all(Array.from({ length: 50 }, () => h.redeem(QUIZ, token)));
    const succeeded = responses.filter((response) => response.statusCode === 200);
    expect(succeeded).toHaveLength(1);
    expect(succeeded[0]!.json()).toMatchObject({ accessCode: ACCESS_CODE });
    expect(responses.filter((response) => response.statusCode === 403)).toHaveLength(49);
  });

  it('expires the proof at 120 seconds', async () => {
    const valid = await provenToken(QUIZ);
    const expired = await provenToken(QUIZ);
    h.clock.advance(119.999);
    try {
      expect((await h.redeem(QUIZ, valid)).statusCode).toBe(200);
      h.clock.advance(0.001);
      expect((await h.redeem(QUIZ, expired)).statusCode).toBe(403);
    } finally {
      h.clock.advance(-120);
    }
  });

  it('refuses a proof after a fingerprint change, a regenerated code, or disabled enforcement', async () => {
    await h.enforce('classicquiz_721');
    const changed = await provenToken('classicquiz_721');
    await h.update('classicquiz_721', () => ({ usesCourseDefaults: false, urlRules: [{ match: 'exact', value: 'https://notes.example.edu/sheet' }] }));
    expect((await h.redeem('classicquiz_721', changed)).statusCode).toBe(403);

    const regenerated = await provenToken('classicquiz_721');
    await h.update('classicquiz_721', () => ({ accessCode: 'fresh-code-1' }));
    const refused = await h.redeem('classicquiz_721', regenerated);
    expect(refused.statusCode).toBe(403);
    expect(JSON.stringify(refused.json())).not.toContain('fresh-code-1');

    const disabled = await provenToken('classicquiz_721');
    await h.update('classicquiz_721', () => ({ enabled: false }));
    expect((await h.redeem('classicquiz_721', disabled)).statusCode).toBe(403);
  });

  it('leaves no exit grant and no counted release behind a refused redemption, and keeps the last release time', async () => {
    const contentId = 'classicquiz_722';
    // A student of its own, so these starts leave the other tests' per-principal budget alone.
    const principal = student({ lmsUserId: '4' });
    await h.authorizeStudent(4);
    await h.enforce(contentId);
    const released = await h.redeem(contentId, await provenToken(contentId, principal));
    expect(released.statusCode).toBe(200);
    const counters = new ActivityCounters(h.t.db.orm);
    const afterRelease = await counters.read(COURSE, contentId);
    expect(afterRelease.releases.count).toBe(1);

    // The statement issues a grant for a setting that SQL sees as releasable; the changed fingerprint refuses it after.
    h.clock.advance(5);
    try {
      const stale = await provenToken(contentId, principal);
      await h.update(contentId, () => ({ usesCourseDefaults: false, urlRules: [{ match: 'exact', value: 'https://notes.example.edu/other' }] }));
      expect((await h.redeem(contentId, stale)).statusCode).toBe(403);
      const regenerated = await provenToken(contentId, principal);
      await h.update(contentId, () => ({ accessCode: 'fresh-code-2' }));
      expect((await h.redeem(contentId, regenerated)).statusCode).toBe(403);
    } finally {
      h.clock.advance(-5);
    }

    const after = await counters.read(COURSE, contentId);
    expect(after.proofs.count).toBe(3);
    expect(after.releases).toEqual(afterRelease.releases);
    const grants = await h.t.db.pool.query(
      `select count(*)::int as n from exb_student_token where purpose = 'exit-grant' and course_id = $1 and content_id = $2`,
      [COURSE, contentId],
    );
    expect(grants.rows[0].n).toBe(1);
  });

  it('still refuses with 403 when the withdrawal of a refused redemption fails', async () => {
    const contentId = 'classicquiz_723';
    const principal = student({ lmsUserId: '4' });
    await h.authorizeStudent(4);
    await h.enforce(contentId);
    const stale = await provenToken(contentId, principal);
    await h.update(contentId, () => ({ usesCourseDefaults: false, urlRules: [{ match: 'exact', value: 'https://notes.example.edu/third' }] }));
    const { pool } = h.t.db;
    await pool.query(`create function refuse_exit_delete() returns trigger language plpgsql as $$
      begin raise exception 'exit grants of ${contentId} stay'; end $$`);
    await pool.query(`create trigger refuse_exit_delete before delete on exb_student_token for each row
      when (old.content_id = '${contentId}') execute function refuse_exit_delete()`);
    try {
      const refused = await h.redeem(contentId, stale);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ success: false, error_code: 'INVALID_EXB_PROOF_TOKEN' });
    } finally {
      await pool.query('drop trigger refuse_exit_delete on exb_student_token');
      await pool.query('drop function refuse_exit_delete()');
    }
    // The never-revealed grant stays behind; the proof stays spent.
    const grants = await pool.query(`select count(*)::int as n from exb_student_token where purpose = 'exit-grant' and content_id = $1`, [contentId]);
    expect(grants.rows[0].n).toBe(1);
    expect((await h.redeem(contentId, stale)).statusCode).toBe(403);
  });

  it('binds the proof to its course and content: elsewhere it is refused (403) or there is no setting (404)', async () => {
    const token = await provenToken(QUIZ);
    expect((await h.redeem(NEW_QUIZ, token)).statusCode).toBe(403);
    const foreign = await h.app.inject({ method: 'POST', url: `/api/exb/access-code/102/${QUIZ}`, headers: { 'x-exb-proof-token': token } });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ success: false, message: expect.any(String) });
    // Refusals elsewhere did not spend it.
    expect((await h.redeem(QUIZ, token)).statusCode).toBe(200);
  });

  it('refuses a missing or malformed proof token with 403, and malformed ids with 404', async () => {
    for (const headers of [{}, { 'x-exb-proof-token': '' }, { 'x-exb-proof-token': 'short' }, { 'x-exb-proof-token': `${'A'.repeat(42)}B` }]) {
      const response = await h.app.inject({ method: 'POST', url: `/api/exb/access-code/${COURSE}/${QUIZ}`, headers });
      expect(response.statusCode).toBe(403);
      expectSensitive(response);
    }
    const malformed = await h.app.inject({ method: 'POST', url: `/api/exb/access-code/${COURSE}/quiz`, headers: { 'x-exb-proof-token': 'A'.repeat(43) } });
    expect(malformed.statusCode).toBe(404);
  });

  it('answers GET with 405', async () => {
    const response = await h.app.inject({ method: 'GET', url: `/api/exb/access-code/${COURSE}/${QUIZ}` });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('POST');
    expectSensitive(response);
  });

  it('returns the approved tools of the assessment', async () => {
    await h.enforce('classicquiz_731', {
      usesCourseDefaults: false,
      quizOnlyTools: [
        { id: 'calc', label: 'Calculator', url: 'https://www.desmos.com/calculator', resourceRules: [], managedByAdmin: false, enabled: true },
        { id: 'off', label: 'Switched off', url: 'https://off.example.com/', resourceRules: [], managedByAdmin: false, enabled: false },
      ],
    });
    const token = await provenToken('classicquiz_731');
    const response = await h.redeem('classicquiz_731', token);
    expect(response.json()).toMatchObject({ tools: [{ id: 'calc', label: 'Calculator', url: 'https://www.desmos.com/calculator' }] });
  });
});

describe('proofs across instances', () => {
  let other: FastifyInstance;
  beforeAll(async () => {
    other = await buildApp({ config: h.t.config, logger: createLogger('silent'), db: h.t.db, clock: h.clock.read });
    await other.ready();
  });
  afterAll(() => other.close());

  const proveOn = (app: FastifyInstance, contentId: string, configKey: string) => {
    const url = pageUrl(contentId);
    return app.inject({
      method: 'POST',
      url: `/api/exb/access-proof/${COURSE}/${contentId}`,
      payload: { configKeyHash: configKeyHashFor(url, configKey), url },
    });
  };

  it('accept on one instance a configuration downloaded through another, and redeem there', async () => {
    await h.enforce('classicquiz_741');
    const { opened } = await h.start(student(), 'classicquiz_741');
    const proof = await proveOn(other, 'classicquiz_741', opened.configKey);
    expect(proof.statusCode).toBe(200);
    const redemption = await other.inject({
      method: 'POST',
      url: `/api/exb/access-code/${COURSE}/classicquiz_741`,
      headers: { 'x-exb-proof-token': proofTokenOf(proof) },
    });
    expect(redemption.json()).toMatchObject({ success: true, accessCode: ACCESS_CODE });
  });

  it('never accept a stored key that does not open for its row, or one past its 43200 seconds', async () => {
    await h.enforce('classicquiz_742');
    const tampered = await h.start(student(), 'classicquiz_742');
    await h.t.db.orm.em
      .getConnection()
      .execute(`update exb_student_token set config_key_sealed = '\\x00' || config_key_sealed where content_id = 'classicquiz_742'`);
    expect((await proveOn(other, 'classicquiz_742', tampered.opened.configKey)).statusCode).toBe(403);

    await h.enforce('classicquiz_743');
    const aging = await h.start(student(), 'classicquiz_743');
    h.clock.advance(43_199);
    try {
      expect((await proveOn(h.app, 'classicquiz_743', aging.opened.configKey)).statusCode).toBe(200);
      h.clock.advance(1);
      expect((await proveOn(h.app, 'classicquiz_743', aging.opened.configKey)).statusCode).toBe(403);
      expect((await proveOn(other, 'classicquiz_743', aging.opened.configKey)).statusCode).toBe(403);
    } finally {
      h.clock.advance(-43_200);
    }
  });
});

describe('GET /api/exb/tools/:courseId/:quizId', () => {
  it('requires a principal of the course, and lists tools only while enforcement is fully active', async () => {
    const s = h.session(student());
    const tools = (contentId: string, cookie = s.cookie) =>
      h.app.inject({ method: 'GET', url: `/api/exb/tools/${COURSE}/${contentId}`, headers: { cookie, origin: LMS } });
    const none = await h.app.inject({ method: 'GET', url: `/api/exb/tools/${COURSE}/${QUIZ}` });
    expect(none.statusCode).toBe(403);
    expect(none.json()).toMatchObject({ error_code: 'LTI_PRINCIPAL_REQUIRED' });
    expect((await tools(QUIZ, h.session(student({ courseId: '102' })).cookie)).statusCode).toBe(403);

    const active = await tools('classicquiz_731');
    expect(active.statusCode).toBe(200);
    expect(active.json()).toEqual({ success: true, tools: [{ id: 'calc', label: 'Calculator', url: 'https://www.desmos.com/calculator' }] });
    expect(active.headers['access-control-allow-origin']).toBe(LMS);
    expect(active.headers['access-control-allow-credentials']).toBe('true');

    await h.update('classicquiz_731', () => ({ exitPasswordOverride: null }));
    expect((await tools('classicquiz_731')).json()).toEqual({ success: true, tools: [] });
    expect((await tools('classicquiz_739')).json()).toEqual({ success: true, tools: [] });
  });
});

describe('budgets', () => {
  let small: StudentHarness;
  beforeAll(async () => {
    small = await createStudentHarness({ budgets: { proofPerIp: 1, redeemPerIp: 1, requirementLookupPerIp: 3 } });
    await small.enforce(QUIZ);
  });
  afterAll(() => small.close());

  it('answers 429 RATE_LIMITED for proofs and redemptions over the per-address budget, with sensitive headers', async () => {
    const { opened } = await small.start(instructor());
    expect((await small.prove(QUIZ, opened.configKey)).statusCode).toBe(200);
    const proof = await small.prove(QUIZ, opened.configKey);
    expect(proof.statusCode).toBe(429);
    expect(proof.headers['retry-after']).toBe('60');
    expect(proof.json()).toMatchObject({ error_code: 'RATE_LIMITED' });
    expectSensitive(proof);

    expect((await small.redeem(QUIZ, 'A'.repeat(43))).statusCode).toBe(403);
    const redemption = await small.redeem(QUIZ, 'A'.repeat(43));
    expect(redemption.statusCode).toBe(429);
    expect(redemption.headers['retry-after']).toBe('60');
  });

  it('answers requirement lookups over the per-address budget false without a lookup; another address has its own', async () => {
    await small.enforce(NEW_QUIZ);
    const ask = (contentId: string, remoteAddress = '203.0.113.9') =>
      small.app.inject({ method: 'GET', url: `/api/exb/requirement/${COURSE}/${encodeURIComponent(contentId)}`, remoteAddress });
    expect((await ask(QUIZ)).json()).toEqual({ success: true, exbRequired: true });
    for (const id of [9001, 9002]) expect((await ask(`classicquiz_${id}`)).json().exbRequired).toBe(false);
    // The budget is spent: an enforced assessment not asked for before is answered false, as unverifiable.
    const refused = await ask(NEW_QUIZ);
    expect(refused.statusCode).toBe(200);
    expect(refused.json()).toEqual({ success: true, exbRequired: false });
    expect((await ask(NEW_QUIZ, '198.51.100.7')).json()).toEqual({ success: true, exbRequired: true });
  });
});
