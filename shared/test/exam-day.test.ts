import { describe, expect, it } from 'vitest';
import { applyBoardChanges, decodeStudentChange, encodeStepTimes, countStates, studentState, STUDENT_STATES, type Board, type BoardStudent, type StudentSteps } from '../src/exam-day.js';

const none: StudentSteps = {
  launchedAt: null,
  grantedAt: null,
  downloads: 0,
  lastDownloadAt: null,
  provenAt: null,
  releasedAt: null,
  exitedAt: null,
  attemptStartedAt: null,
  attemptSubmittedAt: null,
  readmittedAt: null,
  exemptedAt: null,
};
const t = (minute: number) => new Date(Date.UTC(2026, 10, 27, 9, minute)).toISOString();

describe('studentState', () => {
  it('follows the way in step by step', () => {
    expect(studentState({ ...none, launchedAt: t(0) })).toBe('not-started');
    expect(studentState({ ...none, grantedAt: t(0) })).toBe('not-started');
    expect(studentState({ ...none, downloads: 1, lastDownloadAt: t(1) })).toBe('downloaded-not-proven');
    expect(studentState({ ...none, downloads: 1, lastDownloadAt: t(1), provenAt: t(2) })).toBe('proven-not-released');
    expect(studentState({ ...none, downloads: 1, lastDownloadAt: t(1), provenAt: t(2), releasedAt: t(2) })).toBe('released-no-attempt');
    expect(studentState({ ...none, downloads: 1, releasedAt: t(2), attemptStartedAt: t(3) })).toBe('in-progress');
    expect(studentState({ ...none, downloads: 1, releasedAt: t(2), attemptStartedAt: t(3), attemptSubmittedAt: t(40) })).toBe('submitted');
  });

  it('counts an exit only when nothing of the way in came after it', () => {
    const exited = { ...none, downloads: 1, lastDownloadAt: t(1), provenAt: t(2), releasedAt: t(2), attemptStartedAt: t(3), exitedAt: t(5) };
    expect(studentState(exited)).toBe('exited');
    expect(studentState({ ...exited, downloads: 2, lastDownloadAt: t(6) })).toBe('in-progress');
    expect(studentState({ ...exited, attemptSubmittedAt: t(4) })).toBe('submitted');
  });
});

describe('countStates', () => {
  it('has every state, counted', () => {
    const counts = countStates([{ state: 'submitted' }, { state: 'submitted' }, { state: 'exited' }]);
    expect(Object.keys(counts)).toEqual([...STUDENT_STATES]);
    expect(counts.submitted).toBe(2);
    expect(counts.exited).toBe(1);
    expect(counts['not-started']).toBe(0);
  });
});

describe('applyBoardChanges', () => {
  const student = (lmsUserId: string, name: string | null, version: number, steps: Partial<StudentSteps> = {}): BoardStudent => {
    const all = { ...none, ...steps };
    return { lmsUserId, name, ...all, state: studentState(all), version };
  };
  const boardOf = (...students: BoardStudent[]): Board => ({
    courseId: '101',
    assessmentId: 'classicquiz_1',
    generatedAt: '2026-11-28T09:00:00.000Z',
    counts: countStates(students),
    students,
  });
  const at = '2026-11-28T09:00:05.000Z';

  it('replaces a student with a newer version, adds a new one in name order and counts again', () => {
    const board = boardOf(student('1', 'Ada', 3), student('3', 'Cy', 0));
    const next = applyBoardChanges(board, {
      generatedAt: at,
      students: [student('1', 'Ada', 7, { downloads: 1, lastDownloadAt: at }), student('2', 'Bo', 5, { provenAt: at })],
    });
    expect(next.students.map((s) => [s.lmsUserId, s.version, s.state])).toEqual([
      ['1', 7, 'downloaded-not-proven'],
      ['2', 5, 'proven-not-released'],
      ['3', 0, 'not-started'],
    ]);
    expect(next.counts).toMatchObject({ 'not-started': 1, 'downloaded-not-proven': 1, 'proven-not-released': 1 });
    expect(next.generatedAt).toBe(at);
  });

  it('keeps a newer version against an older one from an overlapping read, and the name it knew', () => {
    const board = boardOf(student('1', 'Ada', 9, { releasedAt: at }));
    expect(applyBoardChanges(board, { generatedAt: at, students: [student('1', 'Ada', 8, { provenAt: at })] })).toBe(board);
    const renamed = applyBoardChanges(board, { generatedAt: at, students: [student('1', null, 10, { releasedAt: at, attemptStartedAt: at })] });
    expect(renamed.students[0]).toMatchObject({ name: 'Ada', state: 'in-progress', version: 10 });
  });
});

describe('changed students on the wire', () => {
  const at = Date.UTC(2026, 10, 28, 9, 0, 5);

  it('carries the first time whole, the others after it, and leaves the nulls at the end out', () => {
    expect(encodeStepTimes([null, at, at + 1_000, at + 2_000, null, null, null, null, null, null])).toEqual([null, at, 1_000, 2_000]);
    expect(encodeStepTimes([null, null, null, null, null, null, null, null, null, null])).toEqual([]);
    expect(encodeStepTimes([at, null, null, null, null, null, null, null, null, at - 5])).toEqual([at, null, null, null, null, null, null, null, null, -5]);
  });

  it('gives the board row of a changed student, its state derived', () => {
    const times = [at, at, at + 1_000, at + 2_000, null, null, null, null, null, null];
    expect(decodeStudentChange(['42', 'Ada', 17, 2, encodeStepTimes(times)])).toEqual({
      lmsUserId: '42',
      name: 'Ada',
      version: 17,
      ...none,
      downloads: 2,
      launchedAt: new Date(at).toISOString(),
      grantedAt: new Date(at).toISOString(),
      lastDownloadAt: new Date(at + 1_000).toISOString(),
      provenAt: new Date(at + 2_000).toISOString(),
      state: 'proven-not-released',
    });
    const exited = [null, null, null, null, null, at + 9_000, null, null, at, null];
    expect(decodeStudentChange(['43', null, 3, 0, encodeStepTimes(exited)])).toMatchObject({
      readmittedAt: new Date(at).toISOString(),
      exitedAt: new Date(at + 9_000).toISOString(),
      state: 'exited',
    });
  });
});
