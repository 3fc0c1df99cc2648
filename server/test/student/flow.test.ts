import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configKeyHashFor, SimulatedExamBrowser } from '../../../e2e/src/exb-simulator/index.js';
import {
  ACCESS_CODE,
  COURSE,
  createStudentHarness,
  EXIT_PASSWORD,
  instructor,
  LMS,
  NEW_QUIZ,
  NEW_QUIZ_URL,
  QUIZ,
  SERVICE,
  student,
  TAKE_URL,
  type StudentHarness,
} from './harness.js';
import { hashExamBrowserPassword } from '../../src/exb/hash.js';

let h: StudentHarness;
beforeAll(async () => {
  h = await createStudentHarness();
  await h.enforce(QUIZ);
  await h.enforce(NEW_QUIZ);
  await h.authorizeStudent(3);
});
afterAll(() => h.close());

describe('a whole student start', () => {
  it('grant → download → proof → redemption releases the code once, with the exit grant and tools', async () => {
    const { opened, exbLaunchUrl } = await h.start();
    expect(exbLaunchUrl).toMatch(new RegExp(`^sebs://tool\\.example\\.test/exb/config/101/classicquiz_201\\.seb\\?grant=[A-Za-z0-9_-]{43}$`));
    expect(opened.layers).toEqual(['gzip', 'pkhs', 'plnd', 'gzip']);
    // The download's one-time session start, which signs the exam browser in to the LMS and returns to the quiz.
    expect(opened.startUrl).toMatch(new RegExp(`^${SERVICE}/exb/session-start/101/classicquiz_201\\?key=[A-Za-z0-9_-]{43}$`));
    const first = await h.openStart(opened.startUrl);
    expect(first.statusCode).toBe(302);
    expect(first.headers.location).toMatch(new RegExp(`^${LMS}/courses/101/quizzes/201\\?session_token=`));
    expect(opened.settings.get('hashedQuitPassword')).toBe(hashExamBrowserPassword(EXIT_PASSWORD));
    expect(opened.quitUrl).toMatch(new RegExp(`^${SERVICE}/exb/exit/complete/101/classicquiz_201/[A-Za-z0-9_-]{43}$`));

    const browser = SimulatedExamBrowser.fromConfiguration(opened);
    const proof = await h.app.inject({
      method: 'POST',
      url: `/api/exb/access-proof/${COURSE}/${QUIZ}`,
      payload: { configKeyHash: browser.pageApi(TAKE_URL).security.configKey, url: `${TAKE_URL}#question_1` },
    });
    expect(proof.statusCode).toBe(200);
    const { proofToken } = proof.json() as { proofToken: string };
    expect(proof.json()).toEqual({ success: true, proofToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expiresInSeconds: 120 });

    const redemption = await h.redeem(QUIZ, proofToken);
    expect(redemption.statusCode).toBe(200);
    expect(redemption.json()).toEqual({
      success: true,
      accessCode: ACCESS_CODE,
      exitGrant: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      exitGrantExpiresInSeconds: 43200,
      tools: [],
    });
    expect((await h.redeem(QUIZ, proofToken)).statusCode).toBe(403);
  });

  it('works for a new quiz on its assignment page', async () => {
    const { opened } = await h.start(student(), NEW_QUIZ);
    expect(opened.startUrl).toMatch(new RegExp(`^${SERVICE}/exb/session-start/101/newquiz:101:301\\?key=`));
    expect((await h.openStart(opened.startUrl)).headers.location).toMatch(new RegExp(`^${LMS}/courses/101/assignments/301\\?session_token=`));
    const proof = await h.prove(NEW_QUIZ, opened.configKey, NEW_QUIZ_URL);
    expect(proof.statusCode).toBe(200);
    const redemption = await h.redeem(NEW_QUIZ, (proof.json() as { proofToken: string }).proofToken);
    expect(redemption.json()).toMatchObject({ success: true, accessCode: ACCESS_CODE });
  });

  it('gives an instructor a configuration of its own that starts at the quiz page, and whose key proves', async () => {
    const first = await h.start(instructor());
    const second = await h.start(instructor());
    expect(first.opened.startUrl).toMatch(new RegExp(`^${LMS}/courses/101/quizzes/201\\?exb_download=[A-Za-z0-9_-]{43}$`));
    expect(first.opened.configKey).not.toBe(second.opened.configKey);
    for (const { opened } of [first, second]) {
      expect((await h.prove(QUIZ, opened.configKey, `${TAKE_URL}?user_id=2`)).statusCode).toBe(200);
    }
  });

  it('accepts the hash in the x-exb-configkeyhash header', async () => {
    const { opened } = await h.start();
    const response = await h.app.inject({
      method: 'POST',
      url: `/api/exb/access-proof/${COURSE}/${QUIZ}`,
      headers: { 'x-exb-configkeyhash': configKeyHashFor(TAKE_URL, opened.configKey) },
      payload: { url: TAKE_URL },
    });
    expect(response.statusCode).toBe(200);
  });
});
