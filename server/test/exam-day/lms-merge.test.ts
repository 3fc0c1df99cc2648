import { describe, expect, it } from 'vitest';
import type { Board } from '@exb/shared/exam-day.js';
import { classicQuizAttempts, newQuizAttempts } from '../../src/domain/exam-day/attempts.js';
import { boardStudent } from '../../src/domain/exam-day/board.js';
import { mergeRoster, rosterOf } from '../../src/domain/exam-day/roster.js';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 27, 9, minute)).toISOString();

describe('attempts from the LMS', () => {
  it('reads a classic quiz: untaken is in progress, complete and pending review are submitted, the rest is no attempt', () => {
    const submission = (userId: string, workflowState: string, startedAt: string | null, finishedAt: string | null) => ({
      userId,
      attempt: 1,
      workflowState,
      startedAt,
      finishedAt,
    });
    expect(
      classicQuizAttempts([
        submission('1', 'untaken', '2026-11-27T09:01:00Z', null),
        submission('2', 'complete', at(2), at(30)),
        submission('3', 'pending_review', at(3), at(31)),
        submission('4', 'settings_only', null, null),
        submission('5', 'preview', at(5), at(6)),
        submission('6', 'untaken', 'not a time', null),
      ]),
    ).toEqual([
      { lmsUserId: '1', startedAt: at(1), submittedAt: null },
      { lmsUserId: '2', startedAt: at(2), submittedAt: at(30) },
      { lmsUserId: '3', startedAt: at(3), submittedAt: at(31) },
    ]);
  });

  it('reads a new quiz: a submission with its time is a submitted attempt, whose start the LMS does not tell', () => {
    const submission = (userId: string, workflowState: string, submittedAt: string | null) => ({ userId, attempt: null, workflowState, submittedAt });
    expect(
      newQuizAttempts([submission('1', 'unsubmitted', null), submission('2', 'submitted', at(20)), submission('3', 'graded', at(21)), submission('4', 'graded', null)]),
    ).toEqual([
      { lmsUserId: '2', startedAt: null, submittedAt: at(20) },
      { lmsUserId: '3', startedAt: null, submittedAt: at(21) },
    ]);
  });
});

describe('the roster', () => {
  it('takes each active student once, with their name', () => {
    const enrollment = (userId: string, type: string, enrollmentState: string | null, name: string | null) => ({
      userId,
      type,
      enrollmentState,
      user: { id: userId, name, sortableName: name },
    });
    expect(
      rosterOf([
        enrollment('3', 'StudentEnrollment', 'active', 'Sam'),
        enrollment('3', 'StudentEnrollment', 'active', 'Sam'),
        enrollment('2', 'TeacherEnrollment', 'active', 'Ian'),
        enrollment('4', 'StudentEnrollment', 'invited', 'Sue'),
        enrollment('5', 'StudentEnrollment', null, null),
      ]),
    ).toEqual([
      { lmsUserId: '3', name: 'Sam' },
      { lmsUserId: '5', name: null },
    ]);
  });

  it('adds students without a step as not started, names the nameless and counts again', () => {
    const row = (id: string, name: string | null, releasedAt: Date | null) => ({
      lms_user_id: id,
      display_name: name,
      downloads: 1,
      launched_at: null,
      granted_at: null,
      last_download_at: null,
      proven_at: null,
      released_at: releasedAt,
      exited_at: null,
      attempt_started_at: null,
      attempt_submitted_at: null,
      readmitted_at: null,
      exempted_at: null,
    });
    const students = [boardStudent(row('4', null, new Date(at(3)))), boardStudent(row('3', 'Sam', null))];
    const board: Board = { courseId: '101', assessmentId: 'classicquiz_201', generatedAt: at(0), counts: {} as Board['counts'], students };
    const merged = mergeRoster(board, [
      { lmsUserId: '4', name: 'Sue' },
      { lmsUserId: '7', name: 'Olga' },
      { lmsUserId: '8', name: null },
    ]);
    expect(merged.students.map(({ lmsUserId, name, state }) => [lmsUserId, name, state])).toEqual([
      ['7', 'Olga', 'not-started'],
      ['3', 'Sam', 'downloaded-not-proven'],
      ['4', 'Sue', 'released-no-attempt'],
      ['8', null, 'not-started'],
    ]);
    expect(merged.counts).toMatchObject({ 'not-started': 2, 'downloaded-not-proven': 1, 'released-no-attempt': 1 });
  });
});
