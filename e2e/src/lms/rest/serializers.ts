import type { LmsRuntime } from '../runtime.js';
import { ENROLLMENT_ROLE_IDS, ENROLLMENT_ROLE_NAMES, effectiveEnrollmentState } from '../permissions.js';
import type { Assignment, Course, DateOverride, Enrollment, Quiz, Term } from '../state.js';

/** The API's course state: unpublished, available, completed (concluded) or deleted. */
export function courseWorkflowState(course: Course): 'unpublished' | 'available' | 'completed' | 'deleted' {
  if (course.deleted) return 'deleted';
  if (course.concluded) return 'completed';
  return course.published ? 'available' : 'unpublished';
}

export function termJson(term: Term, options: { sis?: boolean } = {}) {
  return {
    id: term.id,
    name: term.name,
    start_at: term.startAt,
    end_at: term.endAt,
    created_at: term.createdAt,
    workflow_state: term.workflowState,
    grading_period_group_id: null,
    ...(options.sis ? { sis_term_id: term.sisTermId } : {}),
  };
}

export function enrollmentJson(enrollment: Enrollment, course: Course) {
  return {
    type: enrollment.type,
    role: ENROLLMENT_ROLE_NAMES[enrollment.type],
    role_id: ENROLLMENT_ROLE_IDS[enrollment.type],
    user_id: enrollment.userId,
    enrollment_state: effectiveEnrollmentState(enrollment, course),
    limit_privileges_to_course_section: false,
  };
}

export interface CourseJsonOptions {
  include: readonly string[];
  /** The caller's enrollments in the course (course list for the user). */
  enrollments?: Enrollment[];
  /** Administrators see SIS ids. */
  sis?: boolean;
}

export function courseJson(lms: LmsRuntime, course: Course, options: CourseJsonOptions) {
  const { state } = lms;
  const account = state.accounts.get(course.accountId);
  const json: Record<string, unknown> = {
    id: course.id,
    name: course.name,
    account_id: course.accountId,
    uuid: course.uuid,
    start_at: course.startAt,
    grading_standard_id: null,
    is_public: false,
    created_at: course.createdAt,
    course_code: course.courseCode,
    default_view: 'modules',
    root_account_id: state.rootAccountOf(course.accountId).id,
    enrollment_term_id: course.termId,
    license: 'private',
    grade_passback_setting: null,
    end_at: course.endAt,
    public_syllabus: false,
    public_syllabus_to_auth: false,
    storage_quota_mb: 500,
    is_public_to_auth_users: false,
    homeroom_course: false,
    course_color: null,
    friendly_name: null,
    apply_assignment_group_weights: false,
    calendar: { ics: `${lms.baseUrl}/feeds/calendars/course_${course.uuid}.ics` },
    time_zone: account?.defaultTimeZone ?? 'America/Denver',
    blueprint: false,
    template: false,
    hide_final_grades: false,
    workflow_state: courseWorkflowState(course),
    restrict_enrollments_to_course_dates: false,
  };
  if (options.sis) {
    json.sis_course_id = course.sisCourseId;
    json.integration_id = null;
    json.sis_import_id = null;
  }
  if (options.enrollments) json.enrollments = options.enrollments.map((enrollment) => enrollmentJson(enrollment, course));
  const include = new Set(options.include);
  if (include.has('term')) {
    const term = course.termId === null ? undefined : state.terms.get(course.termId);
    json.term = term ? termJson(term) : null;
  }
  if (include.has('concluded')) json.concluded = course.concluded;
  if (include.has('account_name')) json.account_name = account?.name ?? null;
  if (include.has('account')) json.account = account ? { id: account.id, name: account.name, parent_account_id: account.parentAccountId } : null;
  const students = () =>
    [...state.enrollments.values()].filter((e) => e.courseId === course.id && e.type === 'student' && e.state === 'active');
  if (include.has('total_students')) json.total_students = students().length;
  if (include.has('teachers')) {
    json.teachers = [...state.enrollments.values()]
      .filter((e) => e.courseId === course.id && e.type === 'teacher' && e.state !== 'inactive' && e.state !== 'deleted')
      .map((e) => state.users.get(e.userId))
      .filter((user) => user !== undefined)
      .map((user) => ({
        id: user.id,
        anonymous_id: user.id.toString(36),
        display_name: user.name,
        avatar_image_url: `${lms.baseUrl}/images/messages/avatar-50.png`,
        html_url: `${lms.baseUrl}/courses/${course.id}/users/${user.id}`,
        pronouns: null,
      }));
  }
  if (include.has('syllabus_body')) json.syllabus_body = null;
  return json;
}

export interface QuizViewer {
  canGrade: boolean;
  canManage: boolean;
  isStudent: boolean;
}

/**
 * The dates of an assessment as `all_dates` lists them (`formatted_dates_hash`): each override's and the base dates
 * (`base: true`), those with a due date first, by due date. Overrides carry the times they override and `null` for the
 * others.
 */
function datesJson(base: { dueAt: string | null; unlockAt?: string | null }, overrides: readonly DateOverride[]) {
  const dates: Record<string, unknown>[] = [
    ...overrides.map((override) => ({
      id: override.id,
      due_at: override.dueAt ?? null,
      unlock_at: override.unlockAt ?? null,
      lock_at: override.lockAt ?? null,
      title: override.title,
      set_type: override.setType,
      set_id: override.setId,
    })),
    { due_at: base.dueAt, unlock_at: base.unlockAt ?? null, lock_at: null, base: true },
  ];
  const dueKey = (date: Record<string, unknown>) => (typeof date.due_at === 'string' ? Date.parse(date.due_at) : Number.POSITIVE_INFINITY);
  return dates.sort((a, b) => dueKey(a) - dueKey(b));
}

/**
 * A classic quiz's `all_dates` (`quiz_serializer.rb`): the base and the overrides that set a due date
 * (`all_due_dates`), sent only when that equals the dates the caller sees (`include_all_dates?`). A teacher sees every
 * override, so an override without a due date hides the list from them; a student here sees the base alone (the
 * simulation has no sections to put them in), so any due-date override hides it from a student.
 */
function quizAllDates(quiz: Quiz, viewer: QuizViewer): Record<string, unknown>[] | undefined {
  const overrides = quiz.overrides ?? [];
  const withDueDates = overrides.filter((override) => override.dueAt !== undefined);
  const seen = viewer.canGrade || viewer.canManage ? overrides : [];
  if (seen.length !== withDueDates.length || seen.some((override) => !withDueDates.includes(override))) return undefined;
  return datesJson(quiz, withDueDates);
}

export function quizJson(lms: LmsRuntime, quiz: Quiz, viewer: QuizViewer) {
  const htmlUrl = `${lms.baseUrl}/courses/${quiz.courseId}/quizzes/${quiz.id}`;
  const apiUrl = `${lms.baseUrl}/api/v1/courses/${quiz.courseId}/quizzes/${quiz.id}`;
  const json: Record<string, unknown> = {
    id: quiz.id,
    title: quiz.title,
    html_url: htmlUrl,
    mobile_url: `${htmlUrl}?force_user=1&persist_headless=1`,
    description: quiz.description,
    quiz_type: quiz.quizType,
    time_limit: quiz.timeLimit,
    shuffle_answers: false,
    show_correct_answers: true,
    scoring_policy: 'keep_highest',
    allowed_attempts: 1,
    one_question_at_a_time: false,
    question_count: quiz.questionCount,
    points_possible: quiz.pointsPossible,
    cant_go_back: false,
    ip_filter: null,
    due_at: quiz.dueAt,
    lock_at: null,
    // Canvas: `app/serializers/quizzes/quiz_serializer.rb` lists `unlock_at` among the quiz's attributes.
    unlock_at: quiz.unlockAt ?? null,
    published: quiz.published,
    unpublishable: true,
    locked_for_user: false,
    hide_results: null,
    show_correct_answers_at: null,
    hide_correct_answers_at: null,
    can_update: viewer.canManage,
    require_lockdown_browser: false,
    permissions: {
      read: true,
      submit: viewer.isStudent,
      create: viewer.canManage,
      manage: viewer.canManage,
      read_statistics: viewer.canGrade,
      review_grades: viewer.canGrade,
      update: viewer.canManage,
    },
    quiz_reports_url: `${apiUrl}/reports`,
    quiz_statistics_url: `${apiUrl}/statistics`,
    assignment_id: quiz.assignmentId,
    one_time_results: false,
    assignment_group_id: quiz.assignmentId === null ? null : 1,
    show_correct_answers_last_attempt: false,
  };
  const allDates = quizAllDates(quiz, viewer);
  if (allDates !== undefined) json.all_dates = allDates;
  // Only graders see the access code (and a few grading fields).
  if (viewer.canGrade) {
    json.access_code = quiz.accessCode;
    json.section_count = 1;
    json.only_visible_to_overrides = false;
    if (quiz.assignmentId !== null) {
      json.speed_grader_url = `${lms.baseUrl}/courses/${quiz.courseId}/gradebook/speed_grader?assignment_id=${quiz.assignmentId}`;
    }
  }
  return json;
}

/** Below this many active overrides `include[]=all_dates` lists the dates, above it only counts them (`ALL_DATES_LIMIT`). */
const ALL_DATES_LIMIT = 25;

export interface AssignmentJsonOptions {
  /** The request's `include[]` (after a scoped key's filtering). */
  include: readonly string[];
  /** A teacher sees every override's dates; a student here the base dates alone (the simulation has no sections). */
  seesAllDates: boolean;
}

export function assignmentJson(lms: LmsRuntime, assignment: Assignment, options: AssignmentJsonOptions) {
  const overrides = assignment.overrides ?? [];
  const htmlUrl = `${lms.baseUrl}/courses/${assignment.courseId}/assignments/${assignment.id}`;
  const json: Record<string, unknown> = {
    id: assignment.id,
    name: assignment.name,
    description: assignment.description,
    created_at: assignment.createdAt,
    updated_at: assignment.updatedAt,
    due_at: assignment.dueAt,
    lock_at: null,
    // Canvas: `lib/api/v1/assignment.rb` (`API_ALLOWED_ASSIGNMENT_OUTPUT_FIELDS` holds `unlock_at`); a new quiz's dates
    // are its assignment's.
    unlock_at: assignment.unlockAt ?? null,
    has_overrides: overrides.length > 0,
    course_id: assignment.courseId,
    html_url: htmlUrl,
    submissions_download_url: `${htmlUrl}/submissions?zip=1`,
    assignment_group_id: 1,
    due_date_required: false,
    grade_group_students_individually: false,
    peer_reviews: false,
    automatic_peer_reviews: false,
    position: assignment.position,
    grading_type: 'points',
    points_possible: assignment.pointsPossible,
    submission_types: assignment.submissionTypes,
    has_submitted_submissions: false,
    published: assignment.published,
    unpublishable: true,
    only_visible_to_overrides: false,
    locked_for_user: false,
    workflow_state: assignment.published ? 'published' : 'unpublished',
    moderated_grading: false,
    anonymous_submissions: false,
    omit_from_final_grade: false,
    is_quiz_assignment: assignment.quizId !== null,
    frozen_attributes: [] as string[],
  };
  // `lib/api/v1/assignment.rb`: the dates the caller sees (`dates_hash_visible_to`), or their count past the limit.
  if (options.include.includes('all_dates')) {
    if (overrides.length >= ALL_DATES_LIMIT) json.all_dates_count = overrides.length;
    else json.all_dates = datesJson(assignment, options.seesAllDates ? overrides : []);
  }
  if (assignment.quizId !== null) json.quiz_id = assignment.quizId;
  if (assignment.newQuiz) {
    // The flag exists only on new-quiz assignments; elsewhere the key is absent, not false.
    json.is_quiz_lti_assignment = true;
    json.frozen_attributes = ['submission_types'];
    json.external_tool_tag_attributes = {
      url: 'https://example.quiz-lti-iad-prod.instructure.com/lti/launch',
      new_tab: false,
      resource_link_id: `${assignment.courseId}a${assignment.id}`.padEnd(40, '0'),
      external_data: null,
      content_type: 'ContextExternalTool',
      content_id: 55,
      custom_params: null,
    };
    json.url = `${lms.baseUrl}/api/v1/courses/${assignment.courseId}/external_tools/sessionless_launch?assignment_id=${assignment.id}&launch_type=assessment`;
  }
  return json;
}

export function newQuizJson(assignment: Assignment, options: { showAccessCode: boolean }) {
  const quiz = assignment.newQuiz!;
  return {
    id: String(assignment.id),
    title: assignment.name,
    instructions: quiz.instructions,
    assignment_group_id: '1',
    points_possible: assignment.pointsPossible,
    due_at: assignment.dueAt,
    lock_at: null,
    // Canvas: `lib/api/v1/assignment.rb` (`API_ALLOWED_ASSIGNMENT_OUTPUT_FIELDS` holds `unlock_at`); a new quiz's dates
    // are its assignment's.
    unlock_at: assignment.unlockAt ?? null,
    published: assignment.published,
    grading_type: quiz.gradingType,
    quiz_settings: {
      ...structuredClone(quiz.quizSettings),
      ...(options.showAccessCode ? {} : { student_access_code: null }),
    },
  };
}
