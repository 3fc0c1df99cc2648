import { describe, expect, it } from 'vitest';
import type { DateOverride } from '../../src/lms/state.js';
import { api, tokenFor, useInProcessLms } from './helpers.js';

/**
 * An assessment's dates per section, as Canvas sends them: `all_dates` on a classic quiz unasked, to whoever sees every
 * date (`quiz_serializer.rb`), and on an assignment only with `include[]=all_dates`, below 25 overrides
 * (`lib/api/v1/assignment.rb`).
 */
const { lms } = useInProcessLms();

const at = (hour: number) => new Date(Date.UTC(2026, 11, 1, hour)).toISOString();
const sectionA: DateOverride = { id: 901, title: 'Section A', setType: 'CourseSection', setId: 11, unlockAt: at(8), dueAt: at(9) };
type DateJson = Record<string, unknown>;

async function read<T>(person: string, path: string): Promise<T> {
  const response = await api(lms, tokenFor(lms, person), path);
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}
const quiz = (person: string) => read<{ all_dates?: DateJson[] }>(person, '/api/v1/courses/101/quizzes/201');
const assignment = async (person: string, query = '?include[]=all_dates') =>
  (await read<{ id: number; all_dates?: DateJson[]; all_dates_count?: number; has_overrides: boolean }[]>(person, `/api/v1/courses/101/assignments${query}`)).find(
    (item) => item.id === 301,
  )!;

describe('classic quiz all_dates', () => {
  it('lists the base alone without overrides, to a teacher and a student', async () => {
    lms.state.quizzes.get(201)!.dueAt = at(12);
    const base = { due_at: at(12), unlock_at: null, lock_at: null, base: true };
    expect((await quiz('instructor')).all_dates).toEqual([base]);
    expect((await quiz('student1')).all_dates).toEqual([base]);
  });

  it('gives a teacher each due-date override beside the base, by due date, and a student none', async () => {
    lms.state.quizzes.get(201)!.dueAt = at(12);
    lms.state.quizzes.get(201)!.overrides = [sectionA];
    expect((await quiz('instructor')).all_dates).toEqual([
      { id: 901, due_at: at(9), unlock_at: at(8), lock_at: null, title: 'Section A', set_type: 'CourseSection', set_id: 11 },
      { due_at: at(12), unlock_at: null, lock_at: null, base: true },
    ]);
    expect((await quiz('student1')).all_dates).toBeUndefined();
  });

  it('leaves the list out when an override sets no due date (the teacher’s dates then differ from all_due_dates)', async () => {
    lms.state.quizzes.get(201)!.overrides = [{ ...sectionA, dueAt: undefined }];
    expect((await quiz('instructor')).all_dates).toBeUndefined();
  });
});

describe('assignment all_dates', () => {
  it('are sent only when asked for', async () => {
    lms.state.assignments.get(301)!.overrides = [sectionA];
    const plain = await assignment('instructor', '');
    expect(plain.all_dates).toBeUndefined();
    expect(plain.has_overrides).toBe(true);
    expect((await assignment('instructor')).all_dates).toEqual([
      expect.objectContaining({ id: 901, unlock_at: at(8), due_at: at(9), set_type: 'CourseSection' }),
      expect.objectContaining({ base: true }),
    ]);
    expect((await assignment('student1')).all_dates).toEqual([expect.objectContaining({ base: true })]);
  });

  it('are counted instead of listed from 25 overrides on', async () => {
    lms.state.assignments.get(301)!.overrides = Array.from({ length: 25 }, (_, index) => ({ ...sectionA, id: 1000 + index }));
    const read = await assignment('instructor');
    expect(read.all_dates).toBeUndefined();
    expect(read.all_dates_count).toBe(25);
  });
});
