import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { computeConfigKey } from '../../src/exb/config-key.js';
import { createLogger } from '../../src/logger.js';
import type { OpenedConfiguration } from '../../../e2e/src/exb-simulator/index.js';
import {
  ACCESS_CODE,
  configKeyHashFor,
  COURSE,
  createStudentHarness,
  downloadPathOf,
  instructor,
  LMS,
  pageUrl,
  student,
  type StudentHarness,
} from './harness.js';

/** The quiz page every deterministic configuration starts at. */
const QUIZ_PAGE = (quiz: string) => `${LMS}/courses/${COURSE}/quizzes/${quiz}`;

/**
 * The Config Key of the deterministic configuration: a download's dictionary started at the plain quiz page. Every
 * download differs from it only in its start URL (`units.test.ts` checks that against the builder itself).
 */
function deterministicKeyOf(opened: OpenedConfiguration, quiz: string): string {
  return computeConfigKey(new Map([...opened.settings, ['startURL', QUIZ_PAGE(quiz)]]));
}

const storedKeys = async (h: StudentHarness, contentId: string): Promise<number> => {
  const { rows } = await h.t.db.pool.query<{ n: number }>(
    `select count(config_key_sealed)::int as n from exb_student_token where course_id = $1 and content_id = $2`,
    [COURSE, contentId],
  );
  return rows[0]!.n;
};

let h: StudentHarness;
// Last: the LMS double's interception is process-wide, so this harness is closed only after the other one is done.
afterAll(() => h.close());

describe('with session handoff', () => {
  let other: FastifyInstance;
  beforeAll(async () => {
    h = await createStudentHarness();
    await h.authorizeStudent(3);
    other = await buildApp({ config: h.t.config, logger: createLogger('silent'), db: h.t.db, clock: h.clock.read });
    await other.ready();
  });
  afterAll(async () => {
    await other.close();
  });

  const proveOn = (app: FastifyInstance, contentId: string, configKey: string) => {
    const url = pageUrl(contentId);
    return app.inject({
      method: 'POST',
      url: `/api/exb/access-proof/${COURSE}/${contentId}`,
      payload: { configKeyHash: configKeyHashFor(url, configKey), url },
    });
  };

  it('a configuration with the deterministic Config Key proves for nobody, on any instance', async () => {
    await h.enforce('classicquiz_901');
    const { opened } = await h.start(instructor(), 'classicquiz_901');
    const deterministic = deterministicKeyOf(opened, '901');
    for (const app of [h.app, other]) {
      const proof = await proveOn(app, 'classicquiz_901', deterministic);
      expect(proof.statusCode).toBe(403);
      expect(proof.json()).toMatchObject({ success: false, error_code: 'INVALID_EXB_CONFIG_PROOF' });
    }
    expect(deterministic).not.toBe(opened.configKey);
    // The downloads themselves still prove.
    expect((await proveOn(h.app, 'classicquiz_901', opened.configKey)).statusCode).toBe(200);
    const { opened: students } = await h.start(student(), 'classicquiz_901');
    expect((await proveOn(h.app, 'classicquiz_901', students.configKey)).statusCode).toBe(200);
  });

  it('each instructor download has a stored key of its own that proves until its 43200 seconds end', async () => {
    await h.enforce('classicquiz_902');
    const downloads = [
      await h.start(instructor(), 'classicquiz_902'),
      await h.start(instructor({ lmsUserId: '7', ltiSubject: 'sub-7' }), 'classicquiz_902'),
    ];
    for (const { opened } of downloads) {
      expect(opened.startUrl).toMatch(new RegExp(`^${QUIZ_PAGE('902')}\\?exb_download=[A-Za-z0-9_-]{43}$`));
    }
    expect(downloads[0]!.opened.configKey).not.toBe(downloads[1]!.opened.configKey);
    expect(await storedKeys(h, 'classicquiz_902')).toBe(2);
    const [teacher, colleague] = downloads.map(({ opened }) => opened.configKey) as [string, string];

    // Another instance has not opened it: it reads the stored key.
    const proof = await proveOn(other, 'classicquiz_902', teacher);
    expect(proof.statusCode).toBe(200);
    const redemption = await other.inject({
      method: 'POST',
      url: `/api/exb/access-code/${COURSE}/classicquiz_902`,
      headers: { 'x-exb-proof-token': (proof.json() as { proofToken: string }).proofToken },
    });
    expect(redemption.json()).toMatchObject({ success: true, accessCode: ACCESS_CODE });

    h.clock.advance(43_199);
    try {
      for (const key of [teacher, colleague]) expect((await proveOn(h.app, 'classicquiz_902', key)).statusCode).toBe(200);
      h.clock.advance(1);
      for (const app of [h.app, other]) {
        for (const key of [teacher, colleague]) expect((await proveOn(app, 'classicquiz_902', key)).statusCode).toBe(403);
      }
    } finally {
      h.clock.advance(-43_200);
    }
  });

  it('of parallel downloads of one instructor grant one gets the file, and one key is stored', async () => {
    await h.enforce('classicquiz_903');
    const grant = await h.grant(instructor(), 'classicquiz_903');
    const path = downloadPathOf((grant.json() as { exbLaunchUrl: string }).exbLaunchUrl);
    const responses = await Promise.all(Array.from({ length: 8 }, () => h.app.inject({ method: 'GET', url: path })));
    expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 403, 403, 403, 403, 403, 403, 403]);
    expect(await storedKeys(h, 'classicquiz_903')).toBe(1);
  });
});

// After the first harness's tests: the LMS double answering is the one created last.
describe('without session handoff', () => {
  let bare: StudentHarness;
  beforeAll(async () => {
    bare = await createStudentHarness({ withoutLmsApi: true });
    await bare.enforce('classicquiz_911');
  });
  afterAll(() => bare.close());

  it('everyone gets the deterministic configuration, whose key proves for anyone holding it; no key is stored', async () => {
    const downloads = [
      await bare.start(student(), 'classicquiz_911'),
      await bare.start(instructor(), 'classicquiz_911'),
    ];
    const [first] = downloads.map(({ opened }) => opened);
    expect(first!.startUrl).toBe(QUIZ_PAGE('911'));
    expect(deterministicKeyOf(first!, '911')).toBe(first!.configKey);
    for (const { opened } of downloads) expect(opened.configKey).toBe(first!.configKey);
    expect(await storedKeys(bare, 'classicquiz_911')).toBe(0);
    expect((await bare.prove('classicquiz_911', first!.configKey)).statusCode).toBe(200);
    expect((await bare.prove('classicquiz_911', first!.configKey, `${pageUrl('classicquiz_911')}?user_id=9`)).statusCode).toBe(200);
  });
});
