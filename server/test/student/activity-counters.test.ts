import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityCounters } from '../../src/domain/activity/activity-counters.js';
import { COURSE, createStudentHarness, NEW_QUIZ, QUIZ, type StudentHarness } from './harness.js';

let h: StudentHarness;
let counters: ActivityCounters;
beforeAll(async () => {
  h = await createStudentHarness();
  counters = new ActivityCounters(h.t.db.orm);
  await h.enforce(QUIZ);
  await h.enforce(NEW_QUIZ);
  await h.authorizeStudent(3);
});
afterAll(() => h.close());

describe('exam-day counters', () => {
  it('count downloads, proofs, releases and exits of the assessment, with the last time of each', async () => {
    expect(await counters.read(COURSE, QUIZ)).toEqual({
      downloads: { count: 0, lastAt: null },
      proofs: { count: 0, lastAt: null },
      releases: { count: 0, lastAt: null },
      exits: { count: 0, lastAt: null },
    });
    const { opened } = await h.start();
    expect((await counters.read(COURSE, QUIZ)).downloads.count).toBe(1);

    const proof = await h.prove(QUIZ, opened.configKey);
    expect(proof.statusCode).toBe(200);
    // A refused proof (wrong hash) counts nothing.
    expect((await h.prove(QUIZ, 'ab'.repeat(32))).statusCode).toBe(403);
    const redemption = await h.redeem(QUIZ, proof.json().proofToken);
    expect(redemption.statusCode).toBe(200);
    // A second redemption of the spent proof releases nothing and counts nothing.
    expect((await h.redeem(QUIZ, proof.json().proofToken)).statusCode).toBe(403);

    const exitGrant = redemption.json().exitGrant as string;
    const quit = await h.app.inject({ method: 'GET', url: `/exb/exit/quit/${COURSE}/${QUIZ}/${exitGrant}` });
    expect(quit.statusCode).toBe(303);
    // The exit page itself is no exit; a forged grant neither.
    await h.app.inject({ method: 'GET', url: `/exb/exit/session/${COURSE}/${QUIZ}/${exitGrant}` });
    expect((await h.app.inject({ method: 'GET', url: `/exb/exit/quit/${COURSE}/${QUIZ}/${'x'.repeat(43)}` })).statusCode).toBe(403);

    const after = await counters.read(COURSE, QUIZ);
    expect(after).toEqual({
      downloads: { count: 1, lastAt: expect.any(String) },
      proofs: { count: 1, lastAt: expect.any(String) },
      releases: { count: 1, lastAt: expect.any(String) },
      exits: { count: 1, lastAt: expect.any(String) },
    });
    expect(Date.parse(after.releases.lastAt!)).toBeGreaterThanOrEqual(Date.parse(after.downloads.lastAt!));
    // Another assessment of the course is counted apart.
    expect((await counters.read(COURSE, NEW_QUIZ)).downloads.count).toBe(0);
  });

  it('a spent grant downloads nothing more and counts nothing more', async () => {
    const before = (await counters.read(COURSE, QUIZ)).downloads.count;
    const { exbLaunchUrl } = await h.start();
    const path = exbLaunchUrl.replace(/^sebs:\/\/[^/]+/, '');
    expect((await h.app.inject({ method: 'GET', url: path })).statusCode).toBe(403);
    expect((await counters.read(COURSE, QUIZ)).downloads.count).toBe(before + 1);
  });

  it('parallel downloads of one class are all counted', async () => {
    const before = (await counters.read(COURSE, QUIZ)).downloads.count;
    await Promise.all(Array.from({ length: 8 }, () => h.start()));
    expect((await counters.read(COURSE, QUIZ)).downloads.count).toBe(before + 8);
  });
});
