import { z } from 'zod';

const id = z.number().int().positive();
const timestamp = z.iso.datetime({ offset: true }).nullable().default(null);

export const ENROLLMENT_TYPES = ['teacher', 'student', 'ta', 'designer', 'observer'] as const;
export type EnrollmentType = (typeof ENROLLMENT_TYPES)[number];

export const QUIZ_TYPES = ['practice_quiz', 'assignment', 'graded_survey', 'survey'] as const;
export type QuizType = (typeof QUIZ_TYPES)[number];

/**
 * A fixture the mocked LMS loads at creation and on every `reset()`. Ids are given explicitly so tests can refer to
 * them; the demo seed keeps course, quiz and assignment ids in different ranges so a mixed-up id fails loudly.
 */
export const lmsSeedSchema = z.object({
  accounts: z
    .array(
      z.object({
        id,
        name: z.string().min(1),
        parentAccountId: id.nullable().default(null),
        defaultTimeZone: z.string().default('America/Denver'),
        sisAccountId: z.string().nullable().default(null),
      }),
    )
    .min(1),
  terms: z
    .array(
      z.object({
        id,
        /** The root account the term belongs to; default the LMS's own root account (the first in `accounts`). */
        rootAccountId: id.optional(),
        name: z.string().min(1),
        startAt: timestamp,
        endAt: timestamp,
        workflowState: z.enum(['active', 'deleted']).default('active'),
        sisTermId: z.string().nullable().default(null),
      }),
    )
    .default([]),
  users: z.array(
    z.object({
      id,
      name: z.string().min(1),
      sortableName: z.string().optional(),
      email: z.string().nullable().default(null),
      sisUserId: z.string().nullable().default(null),
      locale: z.string().default('en'),
      /** A short handle tests and the launch page use instead of the numeric id ("instructor", "student1", ...). */
      persona: z.string().regex(/^[a-z0-9-]+$/).optional(),
      /** How the launch page names this person ("launch as <label>"). */
      label: z.string().optional(),
      siteAdmin: z.boolean().default(false),
    }),
  ),
  courses: z.array(
    z.object({
      id,
      name: z.string().min(1),
      courseCode: z.string().min(1),
      accountId: id,
      termId: id.nullable().default(null),
      published: z.boolean().default(true),
      concluded: z.boolean().default(false),
      sisCourseId: z.string().nullable().default(null),
      startAt: timestamp,
      endAt: timestamp,
    }),
  ),
  enrollments: z
    .array(
      z.object({
        userId: id,
        courseId: id,
        type: z.enum(ENROLLMENT_TYPES),
        state: z.enum(['active', 'invited', 'completed', 'inactive']).default('active'),
      }),
    )
    .default([]),
  accountAdmins: z
    .array(z.object({ userId: id, accountId: id, role: z.string().default('AccountAdmin') }))
    .default([]),
  quizzes: z
    .array(
      z.object({
        id,
        courseId: id,
        title: z.string().min(1),
        description: z.string().default(''),
        published: z.boolean().default(true),
        accessCode: z.string().nullable().default(null),
        quizType: z.enum(QUIZ_TYPES).default('assignment'),
        /** Graded quiz types get an assignment; its id is generated when not given. */
        assignmentId: id.nullable().default(null),
        timeLimit: z.number().int().positive().nullable().default(null),
        dueAt: timestamp,
        questionCount: z.number().int().min(0).default(3),
        pointsPossible: z.number().nullable().default(10),
      }),
    )
    .default([]),
  assignments: z
    .array(
      z.object({
        id,
        courseId: id,
        name: z.string().min(1),
        description: z.string().default(''),
        published: z.boolean().default(true),
        submissionTypes: z.array(z.string()).default(['online_upload']),
        pointsPossible: z.number().nullable().default(10),
        dueAt: timestamp,
      }),
    )
    .default([]),
  /** New quizzes are assignments launched into the new-quiz engine; each entry creates both. */
  newQuizzes: z
    .array(
      z.object({
        assignmentId: id,
        courseId: id,
        title: z.string().min(1),
        instructions: z.string().default(''),
        published: z.boolean().default(true),
        pointsPossible: z.number().nullable().default(10),
        dueAt: timestamp,
        requireStudentAccessCode: z.boolean().default(false),
        studentAccessCode: z.string().nullable().default(null),
      }),
    )
    .default([]),
});

/** What a fixture may omit (defaults fill it in). */
export type LmsSeed = z.input<typeof lmsSeedSchema>;
export type ParsedSeed = z.output<typeof lmsSeedSchema>;

export function parseSeed(seed: LmsSeed): ParsedSeed {
  const parsed = lmsSeedSchema.safeParse(seed);
  if (!parsed.success) {
    throw new Error(`Invalid LMS seed:\n${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}
