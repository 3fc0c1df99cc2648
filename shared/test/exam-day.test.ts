import { describe, expect, it } from 'vitest';
import { countStates, studentState, STUDENT_STATES, type StudentSteps } from '../src/exam-day.js';

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
