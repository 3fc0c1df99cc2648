import { byName, countStates, type Board, type BoardStudent } from '@exb/shared/exam-day.js';
import type { LmsCourseEnrollment } from '../../lms/index.js';

/** A student the course's roster names. */
export interface RosterStudent {
  readonly lmsUserId: string;
  readonly name: string | null;
}

/** The students of active student enrollments, once each (a student in two sections has two enrollments). */
export function rosterOf(enrollments: readonly LmsCourseEnrollment[]): RosterStudent[] {
  const students = new Map<string, RosterStudent>();
  for (const enrollment of enrollments) {
    if (enrollment.type !== 'StudentEnrollment' || students.has(enrollment.userId)) continue;
    if (enrollment.enrollmentState !== null && enrollment.enrollmentState !== 'active') continue;
    students.set(enrollment.userId, { lmsUserId: enrollment.userId, name: enrollment.user?.name ?? null });
  }
  return [...students.values()];
}

const NO_STEPS = {
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
} as const;

/**
 * The board with the roster merged in: a roster student without a recorded step appears as `not-started` under the
 * roster's name, and a recorded student without a name takes the roster's. Students are ordered by name, nameless
 * last, and the counts follow. Pure.
 */
export function mergeRoster(board: Board, roster: readonly RosterStudent[]): Board {
  const names = new Map(roster.map((student) => [student.lmsUserId, student.name]));
  const recorded = new Set(board.students.map((student) => student.lmsUserId));
  const students: BoardStudent[] = board.students.map((student) =>
    student.name === null && names.get(student.lmsUserId) ? { ...student, name: names.get(student.lmsUserId)! } : student,
  );
  for (const member of roster) {
    if (!recorded.has(member.lmsUserId)) students.push({ lmsUserId: member.lmsUserId, name: member.name, ...NO_STEPS, state: 'not-started', version: 0 });
  }
  students.sort(byName);
  return { ...board, students, counts: countStates(students) };
}
