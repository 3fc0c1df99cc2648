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

const optionalNumber = z.number().nullish().transform((value) => value ?? null);
const optionalCount = z.number().int().nullish().transform((value) => value ?? null);
/** `true` only when the LMS says so. */
const flag = z.boolean().nullish().transform((value) => value === true);

/**
 * An LMS object read by a table of its fields, each written once: the name it leaves under, the LMS's name for it and
 * its schema. The object is checked under the LMS's names, and only the fields of the table travel further.
 */
function lmsObject<const Fields extends Record<string, readonly [lmsName: string, schema: z.ZodType]>>(fields: Fields) {
  const shape: Record<string, z.ZodType> = Object.fromEntries(Object.values(fields));
  return z.object(shape).transform((read) => {
    const mapped: Record<string, unknown> = {};
    for (const [name, [lmsName]] of Object.entries(fields)) mapped[name] = read[lmsName];
    return mapped as { -readonly [Name in keyof Fields]: z.output<Fields[Name][1]> };
  });
}

const termSchema = lmsObject({
  id: ['id', id],
  name: ['name', text],
  startAt: ['start_at', timestamp],
  endAt: ['end_at', timestamp],
  workflowState: ['workflow_state', optionalText],
  sisTermId: ['sis_term_id', optionalText],
});
export type LmsTerm = z.output<typeof termSchema>;

const enrollmentSchema = lmsObject({
  type: ['type', text],
  role: ['role', optionalText],
  userId: ['user_id', optionalId],
  enrollmentState: ['enrollment_state', optionalText],
});

const teacherSchema = lmsObject({ id: ['id', id], name: ['display_name', optionalText] });

export const courseSchema = lmsObject({
  id: ['id', id],
  name: ['name', text],
  courseCode: ['course_code', optionalText],
  accountId: ['account_id', optionalId],
  rootAccountId: ['root_account_id', optionalId],
  termId: ['enrollment_term_id', optionalId],
  workflowState: ['workflow_state', optionalText],
  startAt: ['start_at', timestamp],
  endAt: ['end_at', timestamp],
  sisCourseId: ['sis_course_id', optionalText],
  concluded: ['concluded', optionalBoolean],
  blueprint: ['blueprint', optionalBoolean],
  term: ['term', termSchema.nullish().transform((term) => term ?? null)],
  enrollments: ['enrollments', z.array(enrollmentSchema).max(1000).nullish().transform((list) => list ?? [])],
  totalStudents: ['total_students', optionalCount],
  teachers: ['teachers', z.array(teacherSchema).max(1000).nullish().transform((list) => list ?? [])],
});
export type LmsCourse = z.output<typeof courseSchema>;

/**
 * One entry of an assessment's `all_dates` (Canvas's `AssignmentDate`, `formatted_dates_hash`): the base dates
 * (`base: true`) or one override's, for a section, a group or some students. An override's time it leaves unset is
 * `null` here, as the LMS sends it.
 */
const assignmentDateSchema = lmsObject({
  dueAt: ['due_at', timestamp],
  unlockAt: ['unlock_at', timestamp],
  base: ['base', flag],
});
/** `null` when the LMS left `all_dates` out (not asked for, dropped, or too many overrides: `all_dates_count`). */
const allDates = z.array(assignmentDateSchema).max(10_000).nullish().transform((dates) => dates ?? null);
export type LmsAssignmentDate = z.output<typeof assignmentDateSchema>;

export const quizSchema = lmsObject({
  id: ['id', id],
  title: ['title', text],
  htmlUrl: ['html_url', optionalText],
  quizType: ['quiz_type', optionalText],
  published: ['published', optionalBoolean],
  // Absent when the caller may not grade the quiz, null or "" when there is no code (note §4.5); leaves as `undefined`
  // (not visible to this user) or `null` (no code).
  accessCode: ['access_code', z.string().max(1000).nullish().transform((code) => (code === undefined ? undefined : code || null))],
  assignmentId: ['assignment_id', optionalId],
  dueAt: ['due_at', timestamp],
  lockAt: ['lock_at', timestamp],
  unlockAt: ['unlock_at', timestamp],
  // Canvas sends a classic quiz's `all_dates` unasked to whoever sees every date of it (a teacher): the base and each
  // override that sets a due date (`quiz_serializer.rb#all_dates`, `#include_all_dates?`).
  allDates: ['all_dates', allDates],
  timeLimit: ['time_limit', optionalNumber],
  questionCount: ['question_count', optionalCount],
  pointsPossible: ['points_possible', optionalNumber],
});
export type LmsQuiz = z.output<typeof quizSchema>;

export const assignmentSchema = lmsObject({
  id: ['id', id],
  name: ['name', text],
  courseId: ['course_id', optionalId],
  submissionTypes: ['submission_types', z.array(z.string().max(100)).max(50).nullish().transform((types) => types ?? [])],
  isClassicQuiz: ['is_quiz_assignment', flag],
  // Present (true) only on new quizzes; absent on every other assignment (note §4.6).
  isNewQuiz: ['is_quiz_lti_assignment', flag],
  quizId: ['quiz_id', optionalId],
  published: ['published', optionalBoolean],
  workflowState: ['workflow_state', optionalText],
  htmlUrl: ['html_url', optionalText],
  dueAt: ['due_at', timestamp],
  unlockAt: ['unlock_at', timestamp],
  // Only with `include[]=all_dates`, and only below 25 active overrides (`lib/api/v1/assignment.rb`, `ALL_DATES_LIMIT`).
  allDates: ['all_dates', allDates],
  pointsPossible: ['points_possible', optionalNumber],
});
export type LmsAssignment = z.output<typeof assignmentSchema>;

const newQuizSettingsSchema = z
  .object({ require_student_access_code: optionalBoolean, student_access_code: z.string().max(1000).nullish() })
  .nullish();

export const newQuizSchema = lmsObject({
  assignmentId: ['id', id],
  title: ['title', text],
  published: ['published', optionalBoolean],
  dueAt: ['due_at', timestamp],
  pointsPossible: ['points_possible', optionalNumber],
  settings: ['quiz_settings', newQuizSettingsSchema],
}).transform(({ settings, ...quiz }) => ({
  ...quiz,
  requireStudentAccessCode: settings?.require_student_access_code === true,
  studentAccessCode: settings?.student_access_code || null,
}));
export type LmsNewQuiz = z.output<typeof newQuizSchema>;

export const sessionTokenSchema = lmsObject({
  sessionUrl: ['session_url', z.string().max(8192)],
  requiresTermsAcceptance: ['requires_terms_acceptance', flag],
});
export type LmsSessionToken = z.output<typeof sessionTokenSchema>;

export const accountSchema = lmsObject({
  id: ['id', id],
  name: ['name', text],
  parentAccountId: ['parent_account_id', optionalId],
  rootAccountId: ['root_account_id', optionalId],
  workflowState: ['workflow_state', optionalText],
  defaultTimeZone: ['default_time_zone', optionalText],
});
export type LmsAccount = z.output<typeof accountSchema>;

/** Booleans per the source; the docs show strings, so both are read (note §4.9). */
export const permissionsSchema = z.record(
  z.string().max(200),
  z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')]),
);
export type LmsPermissions = z.output<typeof permissionsSchema>;

/**
 * A student's current attempt at a classic quiz (`quiz_submissions_api_controller.rb#index`, note §4.10). `untaken` is
 * an attempt in progress (`started_at` set, `finished_at` null); `settings_only` holds an extension for a student who
 * has not started.
 */
export const quizSubmissionSchema = lmsObject({
  userId: ['user_id', id],
  attempt: ['attempt', optionalCount],
  workflowState: ['workflow_state', z.string().max(64)],
  startedAt: ['started_at', timestamp],
  finishedAt: ['finished_at', timestamp],
});
export type LmsQuizSubmission = z.output<typeof quizSubmissionSchema>;

/** A student's submission of an assignment (`submissions_api_controller.rb#index`): one per student, unsubmitted too. */
export const submissionSchema = lmsObject({
  userId: ['user_id', id],
  attempt: ['attempt', optionalCount],
  workflowState: ['workflow_state', z.string().max(64)],
  submittedAt: ['submitted_at', timestamp],
});
export type LmsSubmission = z.output<typeof submissionSchema>;

const enrolledUserSchema = lmsObject({
  id: ['id', id],
  name: ['name', optionalText],
  sortableName: ['sortable_name', optionalText],
});

/** An enrollment of the course's roster (`enrollments_api_controller.rb#index`), with the user it names. */
export const courseEnrollmentSchema = lmsObject({
  userId: ['user_id', id],
  type: ['type', text],
  enrollmentState: ['enrollment_state', optionalText],
  user: ['user', enrolledUserSchema.nullish().transform((user) => user ?? null)],
});
export type LmsCourseEnrollment = z.output<typeof courseEnrollmentSchema>;

export { termSchema };
