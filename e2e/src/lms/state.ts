import type { EnrollmentType, ParsedSeed, QuizType } from './seed.js';
import { opaqueId, stableUuid } from './ids.js';

export interface Account {
  id: number;
  name: string;
  parentAccountId: number | null;
  uuid: string;
  ltiGuid: string;
  defaultTimeZone: string;
  sisAccountId: string | null;
}

export interface Term {
  id: number;
  name: string;
  startAt: string | null;
  endAt: string | null;
  createdAt: string;
  workflowState: 'active' | 'deleted';
  sisTermId: string | null;
}

export interface User {
  id: number;
  name: string;
  sortableName: string;
  email: string | null;
  sisUserId: string | null;
  locale: string;
  persona: string | undefined;
  label: string | undefined;
  siteAdmin: boolean;
  /** The LTI `sub`. */
  ltiId: string;
}

export interface Course {
  id: number;
  name: string;
  courseCode: string;
  accountId: number;
  termId: number | null;
  published: boolean;
  concluded: boolean;
  deleted: boolean;
  sisCourseId: string | null;
  startAt: string | null;
  endAt: string | null;
  uuid: string;
  createdAt: string;
}

export type EnrollmentState = 'active' | 'invited' | 'completed' | 'inactive';

export interface Enrollment {
  id: number;
  userId: number;
  courseId: number;
  type: EnrollmentType;
  state: EnrollmentState;
}

export interface AccountAdmin {
  id: number;
  userId: number;
  accountId: number;
  role: string;
}

export interface Quiz {
  id: number;
  courseId: number;
  title: string;
  description: string;
  published: boolean;
  /** `null` and `""` both mean "no access code", exactly as the LMS stores what it was sent. */
  accessCode: string | null;
  quizType: QuizType;
  assignmentId: number | null;
  timeLimit: number | null;
  dueAt: string | null;
  questionCount: number;
  pointsPossible: number | null;
  deleted: boolean;
  updatedAt: string;
  /**
   * A markup fault, not an LMS setting: how many access-code fields the access-code prompt renders (one, as the LMS
   * does, when unset). Two make the prompt ambiguous, for tests of page scripts that must then leave it alone. Set it
   * on a loaded quiz; `reset()` drops it with the rest of the state.
   */
  accessCodePromptFields?: number;
}

export interface NewQuizSettings {
  calculator_type: string;
  filter_ip_address: boolean;
  filters: Record<string, unknown>;
  one_at_a_time_type: string;
  allow_backtracking: boolean;
  shuffle_answers: boolean;
  shuffle_questions: boolean;
  require_student_access_code: boolean;
  student_access_code: string | null;
  has_time_limit: boolean;
  session_time_limit_in_seconds: number | null;
  multiple_attempts: Record<string, unknown>;
  result_view_settings: Record<string, unknown>;
}

export interface NewQuiz {
  instructions: string;
  gradingType: string;
  quizSettings: NewQuizSettings;
}

export interface Assignment {
  id: number;
  courseId: number;
  name: string;
  description: string;
  published: boolean;
  submissionTypes: string[];
  pointsPossible: number | null;
  dueAt: string | null;
  /** Set for the assignment of a graded classic quiz. */
  quizId: number | null;
  /** Set for a new-quiz assignment. */
  newQuiz: NewQuiz | null;
  position: number;
  deleted: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface AccessTokenRecord {
  id: number;
  userId: number;
  clientId: string;
  scopes: string[];
  accessToken: string;
  refreshToken: string;
  createdAt: number;
  /** `null` for a token that never expires. */
  expiresAt: number | null;
  revokedAt: number | null;
}

export interface AuthorizationCode {
  code: string;
  userId: number;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  expiresAt: number;
}

export interface WebSession {
  id: string;
  userId: number;
  csrfToken: string;
  /** Quiz id → the access code this session entered (a changed code prompts again). */
  quizAccessCodes: Map<number, string>;
  createdAt: number;
}

export interface PendingApproval {
  id: string;
  userId: number;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state: string | undefined;
  expiresAt: number;
}

export interface QuizSubmission {
  id: number;
  quizId: number;
  userId: number;
  attempt: number;
  finishedAt: string;
}

export const DEFAULT_NEW_QUIZ_SETTINGS: NewQuizSettings = {
  calculator_type: 'none',
  filter_ip_address: false,
  filters: {},
  one_at_a_time_type: 'none',
  allow_backtracking: true,
  shuffle_answers: false,
  shuffle_questions: false,
  require_student_access_code: false,
  student_access_code: null,
  has_time_limit: false,
  session_time_limit_in_seconds: null,
  multiple_attempts: {
    multiple_attempts_enabled: false,
    attempt_limit: true,
    max_attempts: 1,
    score_to_keep: 'highest',
    cooling_period: false,
    cooling_period_seconds: null,
  },
  result_view_settings: { result_view_restricted: false },
};

const SEED_CREATED_AT = '2026-01-02T03:04:05Z';

/**
 * Everything the LMS knows. Plain maps keyed by id so tests can read and change anything directly
 * (`lms.state.quizzes.get(201)!.accessCode`).
 */
export class LmsState {
  readonly accounts = new Map<number, Account>();
  readonly terms = new Map<number, Term>();
  readonly users = new Map<number, User>();
  readonly courses = new Map<number, Course>();
  readonly enrollments = new Map<number, Enrollment>();
  readonly accountAdmins = new Map<number, AccountAdmin>();
  readonly quizzes = new Map<number, Quiz>();
  readonly assignments = new Map<number, Assignment>();
  readonly quizSubmissions = new Map<number, QuizSubmission>();

  readonly tokens = new Map<number, AccessTokenRecord>();
  readonly authorizationCodes = new Map<string, AuthorizationCode>();
  readonly pendingApprovals = new Map<string, PendingApproval>();
  readonly webSessions = new Map<string, WebSession>();

  /** The URL of the theme JavaScript every LMS page includes; `null` for none. */
  themeJavaScriptUrl: string | null = null;

  private idCounter = 1000;

  nextId(): number {
    this.idCounter += 1;
    return this.idCounter;
  }

  load(seed: ParsedSeed): void {
    for (const map of [
      this.accounts,
      this.terms,
      this.users,
      this.courses,
      this.enrollments,
      this.accountAdmins,
      this.quizzes,
      this.assignments,
      this.quizSubmissions,
      this.tokens,
      this.authorizationCodes,
      this.pendingApprovals,
      this.webSessions,
    ]) {
      map.clear();
    }
    const seededIds = [
      ...seed.accounts.map((a) => a.id),
      ...seed.users.map((u) => u.id),
      ...seed.courses.map((c) => c.id),
      ...seed.quizzes.flatMap((q) => [q.id, q.assignmentId ?? 0]),
      ...seed.assignments.map((a) => a.id),
      ...seed.newQuizzes.map((q) => q.assignmentId),
      ...seed.terms.map((t) => t.id),
    ];
    this.idCounter = Math.max(1000, ...seededIds);

    for (const account of seed.accounts) {
      this.accounts.set(account.id, {
        ...account,
        uuid: stableUuid(`account:${account.id}`).replace(/-/g, ''),
        ltiGuid: `${opaqueId('account-guid', account.id)}:canvas-lms`,
      });
    }
    for (const account of this.accounts.values()) {
      if (account.parentAccountId !== null && !this.accounts.has(account.parentAccountId)) {
        throw new Error(`LMS seed: account ${account.id} has unknown parent ${account.parentAccountId}`);
      }
    }
    for (const term of seed.terms) this.terms.set(term.id, { ...term, createdAt: SEED_CREATED_AT });
    for (const user of seed.users) {
      const parts = user.name.split(' ');
      this.users.set(user.id, {
        ...user,
        persona: user.persona,
        label: user.label,
        sortableName: user.sortableName ?? (parts.length > 1 ? `${parts.slice(1).join(' ')}, ${parts[0]}` : user.name),
        ltiId: stableUuid(`user:${user.id}`),
      });
    }
    for (const course of seed.courses) {
      if (!this.accounts.has(course.accountId)) throw new Error(`LMS seed: course ${course.id} has unknown account`);
      this.courses.set(course.id, {
        ...course,
        deleted: false,
        uuid: stableUuid(`course:${course.id}`).replace(/-/g, ''),
        createdAt: SEED_CREATED_AT,
      });
    }
    for (const enrollment of seed.enrollments) {
      this.requireUserAndCourse(enrollment.userId, enrollment.courseId);
      const enrollmentId = this.nextId();
      this.enrollments.set(enrollmentId, { id: enrollmentId, ...enrollment });
    }
    for (const admin of seed.accountAdmins) {
      if (!this.users.has(admin.userId) || !this.accounts.has(admin.accountId)) {
        throw new Error(`LMS seed: account admin ${admin.userId}@${admin.accountId} refers to unknown data`);
      }
      const adminId = this.nextId();
      this.accountAdmins.set(adminId, { id: adminId, ...admin });
    }
    let position = 0;
    for (const quiz of seed.quizzes) {
      if (!this.courses.has(quiz.courseId)) throw new Error(`LMS seed: quiz ${quiz.id} has unknown course`);
      const graded = quiz.quizType === 'assignment' || quiz.quizType === 'graded_survey';
      const assignmentId = graded ? (quiz.assignmentId ?? this.nextId()) : null;
      this.quizzes.set(quiz.id, { ...quiz, assignmentId, deleted: false, updatedAt: SEED_CREATED_AT });
      if (assignmentId !== null) {
        this.assignments.set(assignmentId, {
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
          createdAt: SEED_CREATED_AT,
          updatedAt: SEED_CREATED_AT,
        });
      }
    }
    for (const assignment of seed.assignments) {
      if (!this.courses.has(assignment.courseId)) throw new Error(`LMS seed: assignment ${assignment.id} has unknown course`);
      this.assignments.set(assignment.id, {
        ...assignment,
        quizId: null,
        newQuiz: null,
        position: ++position,
        deleted: false,
        createdAt: SEED_CREATED_AT,
        updatedAt: SEED_CREATED_AT,
      });
    }
    for (const quiz of seed.newQuizzes) {
      if (!this.courses.has(quiz.courseId)) throw new Error(`LMS seed: new quiz ${quiz.assignmentId} has unknown course`);
      this.assignments.set(quiz.assignmentId, {
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
        createdAt: SEED_CREATED_AT,
        updatedAt: SEED_CREATED_AT,
      });
    }
  }

  private requireUserAndCourse(userId: number, courseId: number): void {
    if (!this.users.has(userId)) throw new Error(`LMS seed: unknown user ${userId}`);
    if (!this.courses.has(courseId)) throw new Error(`LMS seed: unknown course ${courseId}`);
  }

  rootAccount(): Account {
    for (const account of this.accounts.values()) if (account.parentAccountId === null) return account;
    throw new Error('The LMS has no root account');
  }

  /** The account and its ancestors, nearest first. */
  accountChain(accountId: number): Account[] {
    const chain: Account[] = [];
    let current = this.accounts.get(accountId);
    while (current && !chain.includes(current)) {
      chain.push(current);
      current = current.parentAccountId === null ? undefined : this.accounts.get(current.parentAccountId);
    }
    return chain;
  }

  /** The account and all its descendants. */
  accountSubtree(accountId: number): Set<number> {
    const ids = new Set<number>([accountId]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const account of this.accounts.values()) {
        if (account.parentAccountId !== null && ids.has(account.parentAccountId) && !ids.has(account.id)) {
          ids.add(account.id);
          grew = true;
        }
      }
    }
    return ids;
  }

  /** A user by numeric id or persona handle. */
  findUser(person: number | string): User | undefined {
    if (typeof person === 'number') return this.users.get(person);
    if (/^\d+$/.test(person)) return this.users.get(Number(person));
    for (const user of this.users.values()) if (user.persona === person) return user;
    return undefined;
  }

  requireUser(person: number | string): User {
    const user = this.findUser(person);
    if (!user) throw new Error(`The LMS has no user "${person}"`);
    return user;
  }

  enrollmentsOf(userId: number, courseId?: number): Enrollment[] {
    return [...this.enrollments.values()].filter(
      (enrollment) => enrollment.userId === userId && (courseId === undefined || enrollment.courseId === courseId),
    );
  }

  adminMembershipsOf(userId: number): AccountAdmin[] {
    return [...this.accountAdmins.values()].filter((admin) => admin.userId === userId);
  }

  /** Convenience for tests: the new-quiz settings of a new-quiz assignment. */
  newQuizSettings(assignmentId: number): NewQuizSettings {
    const settings = this.assignments.get(assignmentId)?.newQuiz?.quizSettings;
    if (!settings) throw new Error(`Assignment ${assignmentId} is not a new quiz`);
    return settings;
  }
}
