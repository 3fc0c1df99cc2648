import { opaqueId, stableUuid } from './ids.js';
import { DEFAULT_NEW_QUIZ_SETTINGS, type Account, type AccountAdmin, type Assignment, type Course, type Enrollment, type Quiz, type Term, type User } from './records.js';
import type { ParsedSeed } from './seed.js';

/** The part of the LMS state (`state.ts`) a seed is loaded into; the state hands itself over. */
export interface SeedTarget {
  readonly accounts: Map<number, Account>;
  readonly terms: Map<number, Term>;
  readonly users: Map<number, User>;
  readonly courses: Map<number, Course>;
  readonly enrollments: Map<number, Enrollment>;
  readonly accountAdmins: Map<number, AccountAdmin>;
  readonly quizzes: Map<number, Quiz>;
  readonly assignments: Map<number, Assignment>;
  nextId(): number;
  restartIds(takenIds: readonly number[]): void;
  rootAccount(): Account;
  rootAccountOf(accountId: number): Account;
}

export const SEED_CREATED_AT = '2026-01-02T03:04:05Z';

/** The ids a course gets from its numeric id, stable across runs so tests and launches agree on them. */
export function courseIdentifiers(courseId: number): { uuid: string; ltiContextId: string } {
  return { uuid: stableUuid(`course:${courseId}`).replace(/-/g, ''), ltiContextId: opaqueId('course', courseId) };
}

function fail(message: string): never {
  throw new Error(`LMS seed: ${message}`);
}

/** Fills an emptied state from a parsed seed, checking every reference. */
export function loadSeed(state: SeedTarget, seed: ParsedSeed): void {
  state.restartIds([
    ...seed.accounts.map((a) => a.id),
    ...seed.users.map((u) => u.id),
    ...seed.courses.map((c) => c.id),
    ...seed.quizzes.flatMap((q) => [q.id, q.assignmentId ?? 0]),
    ...seed.assignments.map((a) => a.id),
    ...seed.newQuizzes.map((q) => q.assignmentId),
    ...seed.terms.map((t) => t.id),
  ]);

  for (const account of seed.accounts) {
    state.accounts.set(account.id, {
      ...account,
      uuid: stableUuid(`account:${account.id}`).replace(/-/g, ''),
      ltiContextId: opaqueId('account', account.id),
      ltiGuid: `${opaqueId('account-guid', account.id)}:canvas-lms`,
    });
  }
  for (const account of state.accounts.values()) {
    if (account.parentAccountId !== null && !state.accounts.has(account.parentAccountId)) {
      fail(`account ${account.id} has unknown parent ${account.parentAccountId}`);
    }
  }
  const domainRoot = state.rootAccount().id;
  for (const term of seed.terms) {
    const rootAccountId = term.rootAccountId ?? domainRoot;
    if (state.accounts.get(rootAccountId)?.parentAccountId !== null) fail(`term ${term.id} must belong to a root account`);
    state.terms.set(term.id, { ...term, rootAccountId, createdAt: SEED_CREATED_AT });
  }
  for (const user of seed.users) {
    const parts = user.name.split(' ');
    state.users.set(user.id, {
      ...user,
      persona: user.persona,
      label: user.label,
      sortableName: user.sortableName ?? (parts.length > 1 ? `${parts.slice(1).join(' ')}, ${parts[0]}` : user.name),
      ltiId: stableUuid(`user:${user.id}`),
    });
  }
  for (const course of seed.courses) {
    if (!state.accounts.has(course.accountId)) fail(`course ${course.id} has unknown account`);
    if (course.termId !== null) {
      const term = state.terms.get(course.termId);
      if (!term || term.rootAccountId !== state.rootAccountOf(course.accountId).id) {
        fail(`course ${course.id} has a term of another root account`);
      }
    }
    state.courses.set(course.id, { ...course, deleted: false, ...courseIdentifiers(course.id), createdAt: SEED_CREATED_AT });
  }
  for (const enrollment of seed.enrollments) {
    if (!state.users.has(enrollment.userId)) fail(`unknown user ${enrollment.userId}`);
    if (!state.courses.has(enrollment.courseId)) fail(`unknown course ${enrollment.courseId}`);
    const enrollmentId = state.nextId();
    state.enrollments.set(enrollmentId, { id: enrollmentId, ...enrollment });
  }
  for (const admin of seed.accountAdmins) {
    if (!state.users.has(admin.userId) || !state.accounts.has(admin.accountId)) {
      fail(`account admin ${admin.userId}@${admin.accountId} refers to unknown data`);
    }
    const adminId = state.nextId();
    state.accountAdmins.set(adminId, { id: adminId, ...admin });
  }
  loadContent(state, seed);
}

function loadContent(state: SeedTarget, seed: ParsedSeed): void {
  const timestamps = { createdAt: SEED_CREATED_AT, updatedAt: SEED_CREATED_AT };
  let position = 0;
  for (const quiz of seed.quizzes) {
    if (!state.courses.has(quiz.courseId)) fail(`quiz ${quiz.id} has unknown course`);
    const graded = quiz.quizType === 'assignment' || quiz.quizType === 'graded_survey';
    const assignmentId = graded ? (quiz.assignmentId ?? state.nextId()) : null;
    state.quizzes.set(quiz.id, { ...quiz, assignmentId, deleted: false, updatedAt: SEED_CREATED_AT });
    if (assignmentId !== null) {
      state.assignments.set(assignmentId, {
        id: assignmentId,
        courseId: quiz.courseId,
        name: quiz.title,
        description: quiz.description,
        published: quiz.published,
        submissionTypes: ['online_quiz'],
        pointsPossible: quiz.pointsPossible,
        dueAt: quiz.dueAt,
        quizId: quiz.id,
        newQuiz: null,
        position: ++position,
        deleted: false,
        ...timestamps,
      });
    }
  }
  for (const assignment of seed.assignments) {
    if (!state.courses.has(assignment.courseId)) fail(`assignment ${assignment.id} has unknown course`);
    state.assignments.set(assignment.id, {
      ...assignment,
      quizId: null,
      newQuiz: null,
      position: ++position,
      deleted: false,
      ...timestamps,
    });
  }
  for (const quiz of seed.newQuizzes) {
    if (!state.courses.has(quiz.courseId)) fail(`new quiz ${quiz.assignmentId} has unknown course`);
    state.assignments.set(quiz.assignmentId, {
      id: quiz.assignmentId,
      courseId: quiz.courseId,
      name: quiz.title,
      description: quiz.instructions,
      published: quiz.published,
      submissionTypes: ['external_tool'],
      pointsPossible: quiz.pointsPossible,
      dueAt: quiz.dueAt,
      quizId: null,
      newQuiz: {
        instructions: quiz.instructions,
        gradingType: 'points',
        quizSettings: {
          ...structuredClone(DEFAULT_NEW_QUIZ_SETTINGS),
          require_student_access_code: quiz.requireStudentAccessCode,
          student_access_code: quiz.studentAccessCode,
        },
      },
      position: ++position,
      deleted: false,
      ...timestamps,
    });
  }
}
