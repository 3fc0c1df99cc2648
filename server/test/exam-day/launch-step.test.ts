import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSettingsRepository } from '../../src/domain/settings/settings-repository.js';
import { defaultAssessmentSettings } from '../../src/domain/settings/model.js';
import { bootstrapOf, Browser, createHarness, launchAs, type Harness } from '../lti/launch-harness.js';

/**
 * The first step of a student's way in: the LTI launch of an enforced assessment, recorded by the launch's own
 * session-generation read with the name the launch gave. A launch of a quiz nobody enforces, and a teacher's launch,
 * record nothing.
 */

const QUIZ = { person: 'student1', placement: 'assessment', contentId: 'classicquiz_201' } as const;

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ complete: true });
  const settings = createSettingsRepository(h.t.db, h.t.config.secrets.appSecret);
  await settings.saveAssessmentSettings('101', {
    ...defaultAssessmentSettings('101', QUIZ.contentId),
    exbRequired: true,
    enabled: true,
    accessCode: 'exam-code-7431',
    exitPasswordOverride: 'leave-now',
  });
});
afterAll(() => h.close());
beforeEach(async () => {
  await h.t.db.pool.query('delete from exb_exam_day_student');
});

const records = async () =>
  (
    await h.t.db.pool.query<{ course_id: string; content_id: string; lms_user_id: string; display_name: string | null; launched_at: string | Date | null }>(
      'select course_id, content_id, lms_user_id, display_name, launched_at from exb_exam_day_student order by lms_user_id',
    )
  ).rows;

const time = (value: string | Date | null): number => new Date(value ?? Number.NaN).getTime();

describe('the launch step', () => {
  it('records a student’s launch of an enforced assessment, with the name the launch gave', async () => {
    const before = Date.now();
    const { response } = await launchAs(h, new Browser(), QUIZ);
    expect(response.statusCode).toBe(200);
    expect(bootstrapOf(response.body).view).toBe('exb-required');
    const [record, ...others] = await records();
    expect(others).toEqual([]);
    expect(record).toMatchObject({ course_id: '101', content_id: 'classicquiz_201', lms_user_id: '3', display_name: 'Sam Student' });
    expect(time(record!.launched_at)).toBeGreaterThanOrEqual(before - 1000);

    // A second launch moves the time on and keeps one record.
    await launchAs(h, new Browser(), QUIZ);
    const [again] = await records();
    expect(time(again!.launched_at)).toBeGreaterThanOrEqual(time(record!.launched_at));
    expect(await records()).toHaveLength(1);
  });

  it('records nothing for the launch of a quiz nobody enforces', async () => {
    const { response } = await launchAs(h, new Browser(), { ...QUIZ, contentId: 'classicquiz_202' });
    expect(response.statusCode).toBe(302);
    expect(await records()).toEqual([]);
  });

  it('records nothing for a teacher’s launch of the enforced assessment', async () => {
    await launchAs(h, new Browser(), { ...QUIZ, person: 'instructor' });
    expect(await records()).toEqual([]);
  });
});
