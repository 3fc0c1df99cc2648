import { randomUUID } from 'node:crypto';
import type {
  AccessTokenRecord,
  Account,
  AccountAdmin,
  Assignment,
  AssignmentSubmission,
  AuthorizationCode,
  Course,
  Enrollment,
  NewQuizSettings,
  PendingApproval,
  Quiz,
  QuizSubmission,
  ResourceLink,
  Term,
  User,
  WebSession,
} from './records.js';
import type { ParsedSeed } from './seed.js';
import { courseIdentifiers, loadSeed, SEED_CREATED_AT } from './seed-loader.js';

export type * from './records.js';
export { DEFAULT_NEW_QUIZ_SETTINGS } from './records.js';

/** What a test gives to add a course; ids and timestamps the LMS derives are filled in. */
export type CourseInput = Pick<Course, 'id' | 'name' | 'courseCode' | 'accountId'> &
  Partial<Omit<Course, 'id' | 'name' | 'courseCode' | 'accountId'>>;

/** What creates a resource link (the resource-link API's fields). */
export interface ResourceLinkInput {
  courseId: number;
  url: string;
  title?: string | null;
  custom?: Record<string, string> | null;
  /** The installed tool the link launches; default 1. */
  toolId?: number;
  /** Creation time; default the seed's. */
  at?: string;
}

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
  readonly assignmentSubmissions = new Map<number, AssignmentSubmission>();
  readonly resourceLinks = new Map<number, ResourceLink>();

  readonly tokens = new Map<number, AccessTokenRecord>();
  readonly authorizationCodes = new Map<string, AuthorizationCode>();
  readonly pendingApprovals = new Map<string, PendingApproval>();
  readonly webSessions = new Map<string, WebSession>();

  /**
   * Users who must accept the root account's terms of use before they can work in the LMS: Canvas answers
   * `requires_terms_acceptance: true` for them in a session token (`Account#require_acceptance_of_terms?`, asked by
   * `app/controllers/login_controller.rb#session_token`). Empty in the seed; tests add users.
   */
  readonly termsAcceptancePending = new Set<number>();

  /** The URL of the theme JavaScript every LMS page includes; `null` for none. */
  themeJavaScriptUrl: string | null = null;

  private idCounter = 1000;

  nextId(): number {
    this.idCounter += 1;
    return this.idCounter;
  }

  /** Generated ids continue above every given id (and above 1000). */
  restartIds(takenIds: readonly number[]): void {
    this.idCounter = Math.max(1000, ...takenIds);
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
      this.assignmentSubmissions,
      this.resourceLinks,
      this.tokens,
      this.authorizationCodes,
      this.pendingApprovals,
      this.webSessions,
    ]) {
      map.clear();
    }
    this.termsAcceptancePending.clear();
    loadSeed(this, seed);
  }

  /**
   * The LMS's own root account (the one its domain serves, `self` in the API): the first root account of the seed.
   * Other root accounts are other schools on the same installation.
   */
  rootAccount(): Account {
    for (const account of this.accounts.values()) if (account.parentAccountId === null) return account;
    throw new Error('The LMS has no root account');
  }

  /** The root account above an account (the account itself for a root account). */
  rootAccountOf(accountId: number): Account {
    const chain = this.accountChain(accountId);
    const root = chain.at(-1);
    if (!root || root.parentAccountId !== null) throw new Error(`Account ${accountId} has no root account`);
    return root;
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

  /**
   * The user's enrollments that still exist for the LMS: a deleted one stays stored but every scope the API, the
   * launch roles and the permissions read excludes it (`Enrollment.not_deleted` in `app/models/enrollment.rb`).
   */
  enrollmentsOf(userId: number, courseId?: number): Enrollment[] {
    return [...this.enrollments.values()].filter(
      (enrollment) =>
        enrollment.userId === userId && enrollment.state !== 'deleted' && (courseId === undefined || enrollment.courseId === courseId),
    );
  }

  /**
   * Removes a user from a course as an administrator or teacher does in the LMS (`DELETE
   * /api/v1/courses/:course_id/enrollments/:id`, `enrollments_api_controller.rb#destroy`): `delete` (the default) sets
   * every enrollment of the user in the course to `deleted`, `conclude` to `completed`. Returns how many changed.
   */
  removeFromCourse(userId: number, courseId: number, task: 'delete' | 'conclude' = 'delete'): number {
    const enrollments = this.enrollmentsOf(userId, courseId);
    for (const enrollment of enrollments) enrollment.state = task === 'delete' ? 'deleted' : 'completed';
    return enrollments.length;
  }

  adminMembershipsOf(userId: number): AccountAdmin[] {
    return [...this.accountAdmins.values()].filter((admin) => admin.userId === userId);
  }

  /** The student's latest attempt at a classic quiz, finished or not. */
  latestQuizAttempt(quizId: number, userId: number): QuizSubmission | undefined {
    let latest: QuizSubmission | undefined;
    for (const submission of this.quizSubmissions.values()) {
      if (submission.quizId === quizId && submission.userId === userId && (!latest || submission.attempt > latest.attempt)) latest = submission;
    }
    return latest;
  }

  /**
   * Starts an attempt as the take page does when it opens the quiz for a student, or returns the one in progress
   * (`Quizzes::QuizSubmissionService#create`, `quiz.generate_submission`: a new attempt only after the last one was
   * finished).
   */
  startQuizAttempt(quizId: number, userId: number, at: string): QuizSubmission {
    const latest = this.latestQuizAttempt(quizId, userId);
    if (latest && latest.finishedAt === null) return latest;
    const submission: QuizSubmission = { id: this.nextId(), quizId, userId, attempt: (latest?.attempt ?? 0) + 1, startedAt: at, finishedAt: null };
    this.quizSubmissions.set(submission.id, submission);
    return submission;
  }

  /** Finishes the attempt in progress (started now when there is none), as the quiz's final submission does. */
  finishQuizAttempt(quizId: number, userId: number, at: string): QuizSubmission {
    const submission = this.startQuizAttempt(quizId, userId, at);
    submission.finishedAt = at;
    return submission;
  }

  /** The student's submission of an assignment, `unsubmitted` when they have turned nothing in. */
  assignmentSubmission(assignmentId: number, userId: number): AssignmentSubmission {
    for (const submission of this.assignmentSubmissions.values()) {
      if (submission.assignmentId === assignmentId && submission.userId === userId) return submission;
    }
    const submission: AssignmentSubmission = { id: this.nextId(), assignmentId, userId, attempt: null, workflowState: 'unsubmitted', submittedAt: null };
    this.assignmentSubmissions.set(submission.id, submission);
    return submission;
  }

  /** Records a submission of the assignment (a new quiz's engine does when the student submits the quiz). */
  submitAssignment(assignmentId: number, userId: number, at: string): AssignmentSubmission {
    const submission = this.assignmentSubmission(assignmentId, userId);
    submission.attempt = (submission.attempt ?? 0) + 1;
    submission.workflowState = 'submitted';
    submission.submittedAt = at;
    return submission;
  }

  /**
   * The course's students as grade and roster listings see them: active and invited student enrollments
   * (`Course#student_enrollments`, which leaves out rejected, completed, deleted and inactive ones).
   */
  studentIdsOf(courseId: number): number[] {
    const ids = new Set<number>();
    for (const enrollment of this.enrollments.values()) {
      if (enrollment.courseId === courseId && enrollment.type === 'student' && (enrollment.state === 'active' || enrollment.state === 'invited')) {
        ids.add(enrollment.userId);
      }
    }
    return [...ids].sort((a, b) => a - b);
  }

  /** Convenience for tests: the new-quiz settings of a new-quiz assignment. */
  newQuizSettings(assignmentId: number): NewQuizSettings {
    const settings = this.assignments.get(assignmentId)?.newQuiz?.quizSettings;
    if (!settings) throw new Error(`Assignment ${assignmentId} is not a new quiz`);
    return settings;
  }

  /** Adds a course (for tests that need more than the seed), with the uuid and LTI context id the LMS derives. */
  addCourse(input: CourseInput): Course {
    if (!this.accounts.has(input.accountId)) throw new Error(`The LMS has no account ${input.accountId}`);
    const course: Course = {
      termId: null,
      published: true,
      concluded: false,
      deleted: false,
      sisCourseId: null,
      startAt: null,
      endAt: null,
      createdAt: SEED_CREATED_AT,
      ...courseIdentifiers(input.id),
      ...input,
    };
    this.courses.set(course.id, course);
    return course;
  }

  /** Creates a resource link with fresh platform-generated UUIDs (what the resource-link API's `POST` stores). */
  createResourceLink(input: ResourceLinkInput): ResourceLink {
    if (!this.courses.has(input.courseId)) throw new Error(`The LMS has no course ${input.courseId}`);
    const at = input.at ?? SEED_CREATED_AT;
    const link: ResourceLink = {
      id: this.nextId(),
      courseId: input.courseId,
      resourceLinkUuid: randomUUID(),
      lookupUuid: randomUUID(),
      url: input.url,
      title: input.title ?? null,
      custom: input.custom ?? null,
      toolId: input.toolId ?? 1,
      workflowState: 'active',
      createdAt: at,
      updatedAt: at,
    };
    this.resourceLinks.set(link.id, link);
    return link;
  }

  /** An active resource link of a course by its `resource_link_uuid` (what a launch carries). */
  findResourceLink(courseId: number, by: { resourceLinkUuid?: string; lookupUuid?: string }): ResourceLink | undefined {
    for (const link of this.resourceLinks.values()) {
      if (link.courseId !== courseId || link.workflowState !== 'active') continue;
      if (by.resourceLinkUuid !== undefined && link.resourceLinkUuid === by.resourceLinkUuid) return link;
      if (by.lookupUuid !== undefined && link.lookupUuid === by.lookupUuid) return link;
    }
    return undefined;
  }
}
