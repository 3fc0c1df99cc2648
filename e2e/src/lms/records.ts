import type { EnrollmentType, QuizType } from './seed.js';

/* The records the LMS keeps: plain data, as the maps of `LmsState` hold them. */

export interface Account {
  id: number;
  name: string;
  parentAccountId: number | null;
  uuid: string;
  /** The opaque 40-hex id LTI messages carry as `context.id`; `lti_context_id:<id>` addresses the account in the API. */
  ltiContextId: string;
  ltiGuid: string;
  defaultTimeZone: string;
  sisAccountId: string | null;
}

export interface Term {
  id: number;
  /** Terms belong to a root account. */
  rootAccountId: number;
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
  /** The opaque 40-hex id LTI messages carry as `context.id`; `lti_context_id:<id>` addresses the course in the API. */
  ltiContextId: string;
  createdAt: string;
}

/**
 * An enrollment's `workflow_state`. Removing someone from a course does not erase the row: the LMS's enrollment
 * `destroy` only sets `deleted` (`app/models/enrollment.rb#destroy`), and concluding sets `completed`
 * (`enrollments_api_controller.rb#destroy`, `task=delete|conclude`).
 */
export type EnrollmentState = 'active' | 'invited' | 'completed' | 'inactive' | 'deleted';

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

/**
 * An assignment override (`AssignmentOverride`): other dates for a section, a group or some students (`ADHOC`). A time
 * left absent is not overridden (`due_at_overridden` and its siblings are false); the LMS then sends it as `null`.
 */
export interface DateOverride {
  id: number;
  title: string;
  setType: 'CourseSection' | 'Group' | 'ADHOC';
  setId: number | null;
  dueAt?: string | null;
  unlockAt?: string | null;
  lockAt?: string | null;
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
  /** When students can start (`unlock_at`); absent or `null`: at once. */
  unlockAt?: string | null;
  /** Other dates for some sections, groups or students; a classic quiz's are its assignment's in the LMS. */
  overrides?: DateOverride[];
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
  /** When students can start (`unlock_at`); absent or `null`: at once. A new quiz's dates are its assignment's. */
  unlockAt?: string | null;
  /** Other dates for some sections, groups or students (a new quiz's overrides are its assignment's). */
  overrides?: DateOverride[];
  /** Set for the assignment of a graded classic quiz. */
  quizId: number | null;
  /** Set for a new-quiz assignment. */
  newQuiz: NewQuiz | null;
  position: number;
  deleted: boolean;
  createdAt: string;
  updatedAt: string;
}

/**
 * A resource link: a launchable link to the tool inside a course, authored by course staff (deep linking, or the
 * resource-link API). Its `custom` parameters override the tool's custom fields on launch.
 */
export interface ResourceLink {
  /** The API id. */
  id: number;
  courseId: number;
  /** The platform-generated UUID a launch carries as `resource_link.id` (`resource_link_uuid` in the API). */
  resourceLinkUuid: string;
  /** A second UUID that addresses the link from rich content (`resource_link_lookup_uuid` in launch URLs). */
  lookupUuid: string;
  url: string;
  title: string | null;
  /** Keys as the author gave them; values are expanded at launch like the tool's. */
  custom: Record<string, string> | null;
  toolId: number;
  workflowState: 'active' | 'deleted';
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

/**
 * One attempt at a classic quiz. The LMS keeps a student's current attempt as their quiz submission (earlier attempts
 * are its versions); here each attempt is a record, and the API shows each student's latest. An attempt starts when
 * the take page opens the quiz and is `untaken` until the student submits it (`app/models/quizzes/quiz_submission.rb`).
 */
export interface QuizSubmission {
  id: number;
  quizId: number;
  userId: number;
  attempt: number;
  startedAt: string;
  /** `null` while the attempt is in progress. */
  finishedAt: string | null;
}

/**
 * A student's submission of an assignment (a new quiz's included). The LMS holds one for every student of a published
 * assignment, `unsubmitted` until they turn something in (`app/models/submission.rb`); here it is created when first
 * asked for.
 */
export interface AssignmentSubmission {
  id: number;
  assignmentId: number;
  userId: number;
  /** `null` until the first submission. */
  attempt: number | null;
  workflowState: 'unsubmitted' | 'submitted' | 'graded' | 'pending_review';
  submittedAt: string | null;
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
