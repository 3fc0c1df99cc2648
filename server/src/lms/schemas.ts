import { z } from 'zod';

/**
 * Response schemas of the LMS calls the service makes (note §4), mapped to camelCase domain objects. Ids arrive as
 * numbers (REST) or strings (new-quiz API, or the string-ids Accept header) and leave as canonical decimal strings.
 * Only the fields the service uses are kept; unknown fields are dropped so nothing unexpected travels further.
 */
const id = z.union([z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), z.string().regex(/^\d{1,20}$/)]).transform(String);
const optionalId = id.nullish().transform((value) => value ?? null);
const text = z.string().max(100_000);
const optionalText = text.nullish().transform((value) => value ?? null);
const optionalBoolean = z.boolean().nullish().transform((value) => value ?? null);
const timestamp = z.string().max(64).nullish().transform((value) => value ?? null);

const termSchema = z
  .object({ id, name: text, start_at: timestamp, end_at: timestamp, workflow_state: optionalText, sis_term_id: optionalText })
  .transform((term) => ({
    id: term.id,
    name: term.name,
    startAt: term.start_at,
    endAt: term.end_at,
    workflowState: term.workflow_state,
    sisTermId: term.sis_term_id,
  }));
export type LmsTerm = z.output<typeof termSchema>;

const enrollmentSchema = z
  .object({ type: text, role: optionalText, user_id: optionalId, enrollment_state: optionalText })
  .transform((enrollment) => ({
    type: enrollment.type,
    role: enrollment.role,
    userId: enrollment.user_id,
    enrollmentState: enrollment.enrollment_state,
  }));

export const courseSchema = z
  .object({
    id,
    name: text,
    course_code: optionalText,
    account_id: optionalId,
    root_account_id: optionalId,
    enrollment_term_id: optionalId,
    workflow_state: optionalText,
    start_at: timestamp,
    end_at: timestamp,
    sis_course_id: optionalText,
    concluded: optionalBoolean,
    blueprint: optionalBoolean,
    term: termSchema.nullish(),
    enrollments: z.array(enrollmentSchema).max(1000).nullish(),
    total_students: z.number().int().nullish(),
    teachers: z.array(z.object({ id, display_name: optionalText })).max(1000).nullish(),
  })
  .transform((course) => ({
    id: course.id,
    name: course.name,
    courseCode: course.course_code,
    accountId: course.account_id,
    rootAccountId: course.root_account_id,
    termId: course.enrollment_term_id,
    workflowState: course.workflow_state,
    startAt: course.start_at,
    endAt: course.end_at,
    sisCourseId: course.sis_course_id,
    concluded: course.concluded,
    blueprint: course.blueprint,
    term: course.term ?? null,
    enrollments: course.enrollments ?? [],
    totalStudents: course.total_students ?? null,
    teachers: (course.teachers ?? []).map((teacher) => ({ id: teacher.id, name: teacher.display_name })),
  }));
export type LmsCourse = z.output<typeof courseSchema>;

export const quizSchema = z
  .object({
    id,
    title: text,
    html_url: optionalText,
    quiz_type: optionalText,
    published: optionalBoolean,
    // Absent when the caller may not grade the quiz, null or "" when there is no code (note §4.5).
    access_code: z.string().max(1000).nullish(),
    assignment_id: optionalId,
    due_at: timestamp,
    lock_at: timestamp,
    unlock_at: timestamp,
    time_limit: z.number().nullish(),
    question_count: z.number().int().nullish(),
    points_possible: z.number().nullish(),
  })
  .transform((quiz) => ({
    id: quiz.id,
    title: quiz.title,
    htmlUrl: quiz.html_url,
    quizType: quiz.quiz_type,
    published: quiz.published,
    /** `undefined`: not visible to this user; `null`: no code. */
    accessCode: quiz.access_code === undefined ? undefined : quiz.access_code || null,
    assignmentId: quiz.assignment_id,
    dueAt: quiz.due_at,
    lockAt: quiz.lock_at,
    unlockAt: quiz.unlock_at,
    timeLimit: quiz.time_limit ?? null,
    questionCount: quiz.question_count ?? null,
    pointsPossible: quiz.points_possible ?? null,
  }));
export type LmsQuiz = z.output<typeof quizSchema>;

export const assignmentSchema = z
  .object({
    id,
    name: text,
    course_id: optionalId,
    submission_types: z.array(z.string().max(100)).max(50).nullish(),
    is_quiz_assignment: optionalBoolean,
    // Present (true) only on new quizzes; absent on every other assignment (note §4.6).
    is_quiz_lti_assignment: optionalBoolean,
    quiz_id: optionalId,
    published: optionalBoolean,
    workflow_state: optionalText,
    html_url: optionalText,
    due_at: timestamp,
    points_possible: z.number().nullish(),
  })
  .transform((assignment) => ({
    id: assignment.id,
    name: assignment.name,
    courseId: assignment.course_id,
    submissionTypes: assignment.submission_types ?? [],
    isClassicQuiz: assignment.is_quiz_assignment === true,
    isNewQuiz: assignment.is_quiz_lti_assignment === true,
    quizId: assignment.quiz_id,
    published: assignment.published,
    workflowState: assignment.workflow_state,
    htmlUrl: assignment.html_url,
    dueAt: assignment.due_at,
    pointsPossible: assignment.points_possible ?? null,
  }));
export type LmsAssignment = z.output<typeof assignmentSchema>;

export const newQuizSchema = z
  .object({
    id,
    title: text,
    published: optionalBoolean,
    due_at: timestamp,
    points_possible: z.number().nullish(),
    quiz_settings: z
      .object({
        require_student_access_code: optionalBoolean,
        student_access_code: z.string().max(1000).nullish(),
      })
      .nullish(),
  })
  .transform((quiz) => ({
    assignmentId: quiz.id,
    title: quiz.title,
    published: quiz.published,
    dueAt: quiz.due_at,
    pointsPossible: quiz.points_possible ?? null,
    requireStudentAccessCode: quiz.quiz_settings?.require_student_access_code === true,
    studentAccessCode: quiz.quiz_settings?.student_access_code || null,
  }));
export type LmsNewQuiz = z.output<typeof newQuizSchema>;

export const sessionTokenSchema = z
  .object({ session_url: z.string().max(8192), requires_terms_acceptance: optionalBoolean })
  .transform((session) => ({
    sessionUrl: session.session_url,
    requiresTermsAcceptance: session.requires_terms_acceptance === true,
  }));
export type LmsSessionToken = z.output<typeof sessionTokenSchema>;

export const accountSchema = z
  .object({
    id,
    name: text,
    parent_account_id: optionalId,
    root_account_id: optionalId,
    workflow_state: optionalText,
    default_time_zone: optionalText,
  })
  .transform((account) => ({
    id: account.id,
    name: account.name,
    parentAccountId: account.parent_account_id,
    rootAccountId: account.root_account_id,
    workflowState: account.workflow_state,
    defaultTimeZone: account.default_time_zone,
  }));
export type LmsAccount = z.output<typeof accountSchema>;

/** Booleans per the source; the docs show strings, so both are read (note §4.9). */
export const permissionsSchema = z.record(
  z.string().max(200),
  z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')]),
);
export type LmsPermissions = z.output<typeof permissionsSchema>;

export { termSchema };
