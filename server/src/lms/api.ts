import { z } from 'zod';
import type { CallOptions, LmsClient, Page } from './client.js';
import { LmsInvalidResponseError } from './errors.js';
import {
  accountSchema,
  assignmentSchema,
  courseEnrollmentSchema,
  courseSchema,
  newQuizSchema,
  permissionsSchema,
  quizSchema,
  quizSubmissionSchema,
  sessionTokenSchema,
  submissionSchema,
  termSchema,
  type LmsAccount,
  type LmsAssignment,
  type LmsCourse,
  type LmsCourseEnrollment,
  type LmsNewQuiz,
  type LmsPermissions,
  type LmsQuiz,
  type LmsQuizSubmission,
  type LmsSessionToken,
  type LmsSubmission,
  type LmsTerm,
} from './schemas.js';

/** Path segments are canonical numeric ids only, so no value can reshape the path the scopes were granted for. */
function lmsId(value: string, what: string): string {
  if (!/^\d{1,20}$/.test(value)) throw new RangeError(`${what} must be a numeric LMS id`);
  return value;
}

/**
 * The LMS resolves `lti_context_id:<id>` wherever a course or account id is expected, within the current root account
 * (note §1.8). The id is opaque, so it is percent-encoded into its one path segment.
 */
function contextSegment(ltiContextId: string): string {
  if (ltiContextId.length === 0 || ltiContextId.length > 255) throw new RangeError('ltiContextId must be 1 to 255 characters');
  return `lti_context_id:${encodeURIComponent(ltiContextId)}`;
}

export type EnrollmentType = 'teacher' | 'student' | 'ta' | 'observer' | 'designer';
export type CourseInclude = 'term' | 'teachers' | 'total_students' | 'account_name' | 'concluded';

/**
 * Whether the LMS dropped a course read's `include[]`: Canvas does so for every token of a scope-enforcing developer
 * key without "Allow Include Parameters" (`lib/authentication_methods.rb#validate_scopes`), silently. Every course has
 * a term, so a read that asked for `term` and got a term id without the term object met such a key.
 */
export function includesDropped(courses: readonly LmsCourse[], include: readonly CourseInclude[]): boolean {
  return include.includes('term') && courses.some((course) => course.termId !== null && course.term === null);
}

export interface ListCoursesParams {
  enrollmentType?: EnrollmentType;
  enrollmentState?: 'active' | 'invited_or_pending' | 'completed';
  state?: ('unpublished' | 'available' | 'completed' | 'deleted')[];
  include?: CourseInclude[];
}

export interface AccountCoursesParams {
  searchTerm?: string;
  enrollmentTermId?: string;
  published?: boolean;
  completed?: boolean;
  state?: ('created' | 'claimed' | 'available' | 'completed' | 'deleted' | 'all')[];
  include?: CourseInclude[];
  sort?: 'course_name' | 'sis_course_id' | 'teacher' | 'account_name';
  order?: 'asc' | 'desc';
}

export interface QuizUpdate {
  /** `null` removes the code (the LMS's documented way). */
  accessCode?: string | null;
  published?: boolean;
}

export interface NewQuizSettingsUpdate {
  requireStudentAccessCode: boolean;
  studentAccessCode: string | null;
}

/**
 * One typed function per LMS call the contract's scope sets allow (Document 1, "OAuth scope sets"). Each names its
 * operation after the scope it needs, so errors and call logs say which grant was exercised.
 */
export class LmsApi {
  /** `actingLmsUserId`: whose grant the calls carry (recorded as who last checked an access code with it). */
  constructor(
    private readonly client: LmsClient,
    readonly actingLmsUserId: string | null = null,
  ) {}

  /** `GET /api/v1/courses`: the courses the user is enrolled in (every page). */
  async listCourses(params: ListCoursesParams = {}, options?: CallOptions): Promise<LmsCourse[]> {
    return this.client.list(
      'listCourses',
      '/api/v1/courses',
      courseSchema,
      {
        enrollment_type: params.enrollmentType,
        enrollment_state: params.enrollmentState,
        state: params.state,
        include: params.include,
      },
      options,
    );
  }

  /** `GET /api/v1/courses/:id` (administrator scope set). */
  async getCourse(courseId: string, params: { include?: CourseInclude[] } = {}, options?: CallOptions): Promise<LmsCourse> {
    return this.client.get('getCourse', `/api/v1/courses/${lmsId(courseId, 'courseId')}`, courseSchema, { include: params.include }, options);
  }

  /**
   * The numeric course id the LMS resolves a signed `context.id` to, proven with the application scopes: the quiz
   * listing of `lti_context_id:<id>` answers only within that course, and the LMS writes the resolved numeric id into
   * its page links. `null` when the links name no single course.
   */
  async courseIdForContext(ltiContextId: string, options?: CallOptions): Promise<string | null> {
    const links = await this.client.pageLinks('courseIdForContext', `/api/v1/courses/${contextSegment(ltiContextId)}/quizzes`, undefined, options);
    const ids = new Set<string>();
    for (const link of links.values()) {
      let url: URL;
      try {
        url = new URL(link);
      } catch {
        return null;
      }
      const id = /^\/api\/v1\/courses\/(\d{1,20})\/quizzes$/.exec(url.pathname)?.[1];
      if (url.origin !== this.client.lmsOrigin || id === undefined) return null;
      ids.add(id);
    }
    return ids.size === 1 ? [...ids][0]! : null;
  }

  /** `GET /api/v1/courses/:course_id/quizzes`: classic quizzes only (every page). */
  async listQuizzes(courseId: string, params: { searchTerm?: string } = {}, options?: CallOptions): Promise<LmsQuiz[]> {
    return this.client.list(
      'listQuizzes',
      `/api/v1/courses/${lmsId(courseId, 'courseId')}/quizzes`,
      quizSchema,
      { search_term: params.searchTerm },
      options,
    );
  }

  /** `GET /api/v1/courses/:course_id/quizzes/:id` (administrator scope set). */
  async getQuiz(courseId: string, quizId: string, options?: CallOptions): Promise<LmsQuiz> {
    return this.client.get(
      'getQuiz',
      `/api/v1/courses/${lmsId(courseId, 'courseId')}/quizzes/${lmsId(quizId, 'quizId')}`,
      quizSchema,
      undefined,
      options,
    );
  }

  /**
   * `PUT /api/v1/courses/:course_id/quizzes/:id`. Students are not notified: changing an access code is not news to
   * them, and the LMS would otherwise announce every enforcement change.
   */
  async updateQuiz(courseId: string, quizId: string, update: QuizUpdate, options?: CallOptions): Promise<LmsQuiz> {
    const quiz: Record<string, unknown> = { notify_of_update: false };
    if (update.accessCode !== undefined) quiz.access_code = update.accessCode;
    if (update.published !== undefined) quiz.published = update.published;
    return this.client.send(
      'updateQuiz',
      'PUT',
      `/api/v1/courses/${lmsId(courseId, 'courseId')}/quizzes/${lmsId(quizId, 'quizId')}`,
      { quiz },
      quizSchema,
      options,
    );
  }

  /**
   * `GET /api/v1/courses/:course_id/assignments` (every page); new quizzes carry `isNewQuiz`. Asks for `all_dates`, the
   * dates of every section's override, which a scope-enforcing key without "Allow Include Parameters" drops silently.
   */
  async listAssignments(courseId: string, params: { searchTerm?: string } = {}, options?: CallOptions): Promise<LmsAssignment[]> {
    return this.client.list(
      'listAssignments',
      `/api/v1/courses/${lmsId(courseId, 'courseId')}/assignments`,
      assignmentSchema,
      { search_term: params.searchTerm, include: ['all_dates'] },
      options,
    );
  }

  /** `GET /api/quiz/v1/courses/:course_id/quizzes/:assignment_id`. */
  async getNewQuiz(courseId: string, assignmentId: string, options?: CallOptions): Promise<LmsNewQuiz> {
    return this.client.get(
      'getNewQuiz',
      `/api/quiz/v1/courses/${lmsId(courseId, 'courseId')}/quizzes/${lmsId(assignmentId, 'assignmentId')}`,
      newQuizSchema,
      undefined,
      options,
    );
  }

  /** `PATCH /api/quiz/v1/courses/:course_id/quizzes/:assignment_id`: the access-code settings of a new quiz. */
  async patchNewQuiz(courseId: string, assignmentId: string, update: NewQuizSettingsUpdate, options?: CallOptions): Promise<LmsNewQuiz> {
    return this.client.send(
      'patchNewQuiz',
      'PATCH',
      `/api/quiz/v1/courses/${lmsId(courseId, 'courseId')}/quizzes/${lmsId(assignmentId, 'assignmentId')}`,
      {
        quiz: {
          quiz_settings: {
            require_student_access_code: update.requireStudentAccessCode,
            student_access_code: update.studentAccessCode,
          },
        },
      },
      newQuizSchema,
      options,
    );
  }

  /**
   * `GET /api/v1/courses/:course_id/quizzes/:quiz_id/submissions`: each student's current attempt at a classic quiz
   * (every page of the wrapped list; exam-day scope, note §4.10).
   */
  async listQuizSubmissions(courseId: string, quizId: string, options?: CallOptions): Promise<LmsQuizSubmission[]> {
    return this.client.list(
      'listQuizSubmissions',
      `/api/v1/courses/${lmsId(courseId, 'courseId')}/quizzes/${lmsId(quizId, 'quizId')}/submissions`,
      quizSubmissionSchema,
      undefined,
      { ...options, unwrap: (body) => quizSubmissionsWrapper.safeParse(body).data?.quiz_submissions ?? body },
    );
  }

  /** `GET /api/v1/courses/:course_id/assignments/:assignment_id/submissions`: each student's submission (every page). */
  async listAssignmentSubmissions(courseId: string, assignmentId: string, options?: CallOptions): Promise<LmsSubmission[]> {
    return this.client.list(
      'listAssignmentSubmissions',
      `/api/v1/courses/${lmsId(courseId, 'courseId')}/assignments/${lmsId(assignmentId, 'assignmentId')}/submissions`,
      submissionSchema,
      undefined,
      options,
    );
  }

  /** `GET /api/v1/courses/:course_id/enrollments`: the course's active student enrollments, each with its user (every page). */
  async listStudentEnrollments(courseId: string, options?: CallOptions): Promise<LmsCourseEnrollment[]> {
    return this.client.list(
      'listStudentEnrollments',
      `/api/v1/courses/${lmsId(courseId, 'courseId')}/enrollments`,
      courseEnrollmentSchema,
      { type: ['StudentEnrollment'], state: ['active'] },
      options,
    );
  }

  /**
   * `GET /api/v1/login/session_token`: a one-time URL that signs the user into the LMS web session. The answer must
   * stay on the LMS origin, because it ends up in configurations the exam browser opens.
   */
  async createSessionToken(returnTo?: string, options?: CallOptions): Promise<LmsSessionToken> {
    if (returnTo !== undefined && new URL(returnTo).origin !== this.client.lmsOrigin) {
      throw new RangeError('returnTo must be on the LMS origin');
    }
    const session = await this.client.get('createSessionToken', '/api/v1/login/session_token', sessionTokenSchema, { return_to: returnTo }, options);
    let url: URL;
    try {
      url = new URL(session.sessionUrl);
    } catch {
      throw new LmsInvalidResponseError('createSessionToken', 'session URL is not absolute');
    }
    if (url.origin !== this.client.lmsOrigin) throw new LmsInvalidResponseError('createSessionToken', 'session URL leaves the LMS origin');
    return session;
  }

  /** `GET /api/v1/accounts/:id` (`self` is the domain's root account). */
  async getAccount(accountId: string | 'self', options?: CallOptions): Promise<LmsAccount> {
    const segment = accountId === 'self' ? 'self' : lmsId(accountId, 'accountId');
    return this.client.get('getAccount', `/api/v1/accounts/${segment}`, accountSchema, undefined, options);
  }

  /** `GET /api/v1/accounts/lti_context_id:<id>`: the account of a signed account context (administrator scope set). */
  async getAccountForContext(ltiContextId: string, options?: CallOptions): Promise<LmsAccount> {
    return this.client.get('getAccountForContext', `/api/v1/accounts/${contextSegment(ltiContextId)}`, accountSchema, undefined, options);
  }

  /** `GET /api/v1/accounts/:account_id/permissions`: the named rights of the user on the account. */
  async getAccountPermissions(accountId: string, permissions: readonly string[], options?: CallOptions): Promise<LmsPermissions> {
    if (permissions.length === 0) throw new RangeError('name the permissions to check; the LMS would return every right');
    return this.client.get(
      'getAccountPermissions',
      `/api/v1/accounts/${lmsId(accountId, 'accountId')}/permissions`,
      permissionsSchema,
      { permissions: [...permissions] },
      options,
    );
  }

  /** `GET /api/v1/accounts/:account_id/courses` (every page; sub-account courses included). */
  async listAccountCourses(accountId: string, params: AccountCoursesParams = {}, options?: CallOptions): Promise<LmsCourse[]> {
    return this.client.list(
      'listAccountCourses',
      `/api/v1/accounts/${lmsId(accountId, 'accountId')}/courses`,
      courseSchema,
      accountCoursesQuery(params),
      options,
    );
  }

  /** One page of `GET /api/v1/accounts/:account_id/courses`, for paged catalogs. */
  async listAccountCoursesPage(
    accountId: string,
    params: AccountCoursesParams,
    page: { page?: string; perPage: number },
    options?: CallOptions,
  ): Promise<Page<LmsCourse>> {
    return this.client.listPage(
      'listAccountCourses',
      `/api/v1/accounts/${lmsId(accountId, 'accountId')}/courses`,
      courseSchema,
      accountCoursesQuery(params),
      page,
      options,
    );
  }

  /** `GET /api/v1/accounts/:account_id/terms` (root accounts only; every page of the wrapped list). */
  async listTerms(accountId: string, params: { workflowState?: ('active' | 'deleted' | 'all')[] } = {}, options?: CallOptions): Promise<LmsTerm[]> {
    return this.client.list(
      'listTerms',
      `/api/v1/accounts/${lmsId(accountId, 'accountId')}/terms`,
      termSchema,
      { workflow_state: params.workflowState },
      // The terms list is wrapped in an object (note §4.9); anything else fails the page's array check.
      { ...options, unwrap: (body) => termsWrapper.safeParse(body).data?.enrollment_terms ?? body },
    );
  }
}

const termsWrapper = z.object({ enrollment_terms: z.array(z.unknown()) });
const quizSubmissionsWrapper = z.object({ quiz_submissions: z.array(z.unknown()) });

function accountCoursesQuery(params: AccountCoursesParams) {
  return {
    search_term: params.searchTerm,
    enrollment_term_id: params.enrollmentTermId === undefined ? undefined : lmsId(params.enrollmentTermId, 'enrollmentTermId'),
    published: params.published,
    completed: params.completed,
    state: params.state,
    include: params.include,
    sort: params.sort,
    order: params.order,
  };
}
