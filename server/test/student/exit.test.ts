import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExamTokenStore } from '../../src/domain/exam-browser/token-store.js';
import { bootstrapOf } from '../exb-public/helpers.js';
import { COURSE, createStudentHarness, LMS, QUIZ, SERVICE, student, type StudentHarness } from './harness.js';

let h: StudentHarness;
beforeAll(async () => {
  h = await createStudentHarness();
  await h.authorizeStudent(3);
});
afterAll(() => h.close());

/** A full start on `contentId`: the configuration's quit URL and the exit grant of the redemption. */
async function startAndRedeem(contentId: string): Promise<{ quitUrl: string; exitGrant: string }> {
  const { opened } = await h.start(student(), contentId);
  const proof = await h.prove(contentId, opened.configKey);
  const redemption = await h.redeem(contentId, (proof.json() as { proofToken: string }).proofToken);
  expect(redemption.statusCode, redemption.body).toBe(200);
  return { quitUrl: opened.quitUrl!, exitGrant: (redemption.json() as { exitGrant: string }).exitGrant };
}

const get = (url: string) => h.app.inject({ method: 'GET', url });

function expectPrivatePage(response: LightMyRequestResponse): void {
  expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers['referrer-policy']).toBe('no-referrer');
}

describe('exit routes', () => {
  it('session page links to the quit route, which redirects (303) to the configuration’s quit URL', async () => {
    await h.enforce('classicquiz_601');
    const { quitUrl, exitGrant } = await startAndRedeem('classicquiz_601');
    const session = await get(`/exb/exit/session/${COURSE}/classicquiz_601/${exitGrant}`);
    expect(session.statusCode).toBe(200);
    expectPrivatePage(session);
    const quitPath = `/exb/exit/quit/${COURSE}/classicquiz_601/${exitGrant}`;
    expect(bootstrapOf(session.body)).toMatchObject({ view: 'exb-exit-session', quitUrl: quitPath });
    expect(session.headers['x-exb-quit']).toBeUndefined();
    // The grant is reusable for its lifetime.
    expect((await get(`/exb/exit/session/${COURSE}/classicquiz_601/${exitGrant}`)).statusCode).toBe(200);

    const quit = await get(quitPath);
    expect(quit.statusCode).toBe(303);
    expect(quit.headers.location).toBe(quitUrl);
    expect(quit.headers['cache-control']).toBe('no-store');

    const complete = await get(new URL(quitUrl).pathname);
    expect(complete.statusCode).toBe(200);
    expect(complete.headers['x-exb-quit']).toBe('true');
    expect(complete.headers['x-exb-exit']).toBe('submitted');
    expectPrivatePage(complete);
    expect(bootstrapOf(complete.body)).toMatchObject({ view: 'exb-exit-complete', courseId: COURSE, contentId: 'classicquiz_601' });
    // Without the testbed the page loads no script to tell a framing window anything.
    expect(complete.body).not.toContain('<script src=');
  });

  it('keeps the exit grant for 43200 seconds', async () => {
    await h.enforce('classicquiz_602');
    const { exitGrant } = await startAndRedeem('classicquiz_602');
    h.clock.advance(43_199.999);
    try {
      expect((await get(`/exb/exit/session/${COURSE}/classicquiz_602/${exitGrant}`)).statusCode).toBe(200);
      expect((await get(`/exb/exit/quit/${COURSE}/classicquiz_602/${exitGrant}`)).statusCode).toBe(303);
      h.clock.advance(0.001);
      expect((await get(`/exb/exit/session/${COURSE}/classicquiz_602/${exitGrant}`)).statusCode).toBe(403);
      expect((await get(`/exb/exit/quit/${COURSE}/classicquiz_602/${exitGrant}`)).statusCode).toBe(403);
    } finally {
      h.clock.advance(-43_200);
    }
  });

  it('refuses (403) a missing, unknown, foreign or inactive grant', async () => {
    await h.enforce('classicquiz_603');
    await h.enforce('classicquiz_604');
    const { exitGrant } = await startAndRedeem('classicquiz_603');
    for (const path of [
      `/exb/exit/session/${COURSE}/classicquiz_603`,
      `/exb/exit/session/${COURSE}/classicquiz_603/${'A'.repeat(43)}`,
      `/exb/exit/session/${COURSE}/classicquiz_603/not-a-grant`,
      `/exb/exit/session/${COURSE}/classicquiz_604/${exitGrant}`,
      `/exb/exit/quit/${COURSE}/classicquiz_604/${exitGrant}`,
      `/exb/exit/session/102/classicquiz_603/${exitGrant}`,
    ]) {
      const response = await get(path);
      expect(response.statusCode, path).toBe(403);
      expect(response.headers['x-exb-quit']).toBeUndefined();
    }
    await h.update('classicquiz_603', () => ({ enabled: false, exbRequired: false, accessCode: null }));
    expect((await get(`/exb/exit/session/${COURSE}/classicquiz_603/${exitGrant}`)).statusCode).toBe(403);
    expect((await get(`/exb/exit/quit/${COURSE}/classicquiz_603/${exitGrant}`)).statusCode).toBe(403);
  });

  it('binds the completion page to the current access code', async () => {
    await h.enforce('classicquiz_605');
    const { quitUrl } = await startAndRedeem('classicquiz_605');
    const path = new URL(quitUrl).pathname;
    await h.update('classicquiz_605', () => ({ accessCode: 'regenerated-605' }));
    const stale = await get(path);
    expect(stale.statusCode).toBe(403);
    expect(stale.headers['x-exb-quit']).toBeUndefined();
    for (const bad of [`/exb/exit/complete/${COURSE}/classicquiz_605`, `/exb/exit/complete/${COURSE}/classicquiz_605/${'A'.repeat(43)}`]) {
      expect((await get(bad)).statusCode).toBe(403);
    }
  });

  it('shows a manual exit page that does not quit, and 410 for the unbound quit paths', async () => {
    const manual = await get(`/exb/exit/${COURSE}/${QUIZ}`);
    expect(manual.statusCode).toBe(200);
    expect(manual.headers['x-exb-quit']).toBeUndefined();
    expect(bootstrapOf(manual.body)).toMatchObject({ view: 'exb-exit-manual' });
    for (const path of [`/exb/exit/quit/${COURSE}/${QUIZ}`, `/exb/exit/manual/${COURSE}/${QUIZ}`, '/exb/exit/quit/x/y', '/exb/exit/manual/1/2']) {
      const gone = await get(path);
      expect(gone.statusCode, path).toBe(410);
      expect(gone.headers['x-exb-quit']).toBeUndefined();
    }
    for (const path of [`/exb/exit/abc/${QUIZ}`, `/exb/exit/${COURSE}/quiz`, `/exb/exit/session/${COURSE}/newquiz:102:303/${'A'.repeat(43)}`]) {
      expect((await get(path)).statusCode, path).toBe(404);
    }
  });

  it('quit URLs are absolute URLs on the service for the assessment', async () => {
    await h.enforce('newquiz:101:302');
    const { opened } = await h.start(student(), 'newquiz:101:302');
    expect(opened.quitUrl).toMatch(new RegExp(`^${SERVICE}/exb/exit/complete/101/newquiz:101:302/[A-Za-z0-9_-]{43}$`));
    expect((await get(new URL(opened.quitUrl!).pathname)).statusCode).toBe(200);
    expect(LMS).not.toBe(SERVICE);
  });

  it('purges spent and expired tokens an hour after they expire, keeping Config Keys until theirs', async () => {
    await h.enforce('classicquiz_606');
    await startAndRedeem('classicquiz_606');
    const pool = await h.t.db.orm.em.getConnection().getNativeClient();
    const store = new ExamTokenStore(pool, h.t.config.secrets.appSecret, h.clock.read);
    const count = async () =>
      Number(
        (
          await pool.query<{ n: string }>(
            `select count(*) as n, count(config_key_sealed) as keys from exb_student_token where content_id = 'classicquiz_606'`,
          )
        ).rows[0]!.n,
      );
    const before = await count();
    expect(before).toBeGreaterThanOrEqual(4);
    h.clock.advance(120 + 3600 + 1);
    try {
      await store.purgeExpired();
      // Left: the spent grant with its Config Key and the exit grant, both within their 12 hours, and the session start,
      // whose 15 minutes ended less than an hour ago.
      expect(await count()).toBe(3);
      h.clock.advance(43_200);
      await store.purgeExpired();
      expect(await count()).toBe(0);
    } finally {
      h.clock.advance(-(120 + 3600 + 1 + 43_200));
    }
  });
});
