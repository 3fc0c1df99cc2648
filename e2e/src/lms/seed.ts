import { z } from 'zod';
import { catalogSeed } from './seed-catalog.js';

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

/** Demo personas the launch page offers, in display order. */
export const DEMO_PERSONAS = ['instructor', 'student1', 'student2', 'administrator', 'designer', 'ta'] as const;

/**
 * The demo school: a root account with two faculties, an instructor with a current, a second and a concluded course,
 * two students, a designer and a TA, a root-account administrator, a sub-account administrator and a teacher of an
 * unrelated course (for "not your course" checks); then a catalog of 60 more courses to page through and another
 * school with its own administrator (`seed-catalog.ts`). Returns a fresh copy each call.
 */
export function demoSeed(): LmsSeed {
  const school = demoSchool();
  const catalog = catalogSeed();
  return {
    accounts: [...school.accounts, ...catalog.accounts],
    terms: [...(school.terms ?? []), ...catalog.terms],
    users: [...school.users, ...catalog.users],
    courses: [...school.courses, ...catalog.courses],
    enrollments: [...(school.enrollments ?? []), ...catalog.enrollments],
    accountAdmins: [...(school.accountAdmins ?? []), ...catalog.accountAdmins],
    quizzes: [...(school.quizzes ?? []), ...catalog.quizzes],
    assignments: school.assignments ?? [],
    newQuizzes: [...(school.newQuizzes ?? []), ...catalog.newQuizzes],
  };
}

/** The hand-written part of the demo seed, whose ids and personas the tests name. */
function demoSchool(): LmsSeed {
  return {
    accounts: [
      { id: 1, name: 'Example University', parentAccountId: null },
      { id: 2, name: 'Faculty of Science', parentAccountId: 1 },
      { id: 3, name: 'Faculty of Humanities', parentAccountId: 1 },
    ],
    terms: [
      { id: 1, name: 'Default Term' },
      { id: 2, name: 'Fall 2025', startAt: '2025-08-25T06:00:00Z', endAt: '2025-12-19T23:00:00Z' },
      { id: 3, name: 'Spring 2026', startAt: '2026-01-12T06:00:00Z', endAt: '2026-05-29T23:00:00Z' },
      { id: 4, name: 'Fall 2026', startAt: '2026-08-31T06:00:00Z', endAt: '2026-12-20T23:00:00Z' },
    ],
    users: [
      { id: 1, name: 'Ada Administrator', email: 'ada.admin@example.edu', persona: 'administrator', label: 'administrator' },
      { id: 2, name: 'Ian Instructor', email: 'ian.instructor@example.edu', persona: 'instructor', label: 'instructor', sisUserId: 'T-0002' },
      { id: 3, name: 'Sam Student', email: 'sam.student@example.edu', persona: 'student1', label: 'student 1', sisUserId: 'S-0003' },
      { id: 4, name: 'Sue Student', email: 'sue.student@example.edu', persona: 'student2', label: 'student 2', sisUserId: 'S-0004' },
      { id: 5, name: 'Dee Designer', email: 'dee.designer@example.edu', persona: 'designer', label: 'designer' },
      { id: 6, name: 'Tao Assistant', email: 'tao.assistant@example.edu', persona: 'ta', label: 'TA' },
      { id: 7, name: 'Olga Other', email: 'olga.other@example.edu', persona: 'other-teacher', label: 'teacher of another course' },
      { id: 8, name: 'Sid Subadmin', email: 'sid.subadmin@example.edu', persona: 'subaccount-admin', label: 'sub-account administrator' },
    ],
    courses: [
      { id: 101, name: 'Biology 101', courseCode: 'BIO101', accountId: 2, termId: 4, sisCourseId: 'BIO101-F26' },
      { id: 102, name: 'Chemistry 201', courseCode: 'CHEM201', accountId: 2, termId: 4 },
      { id: 103, name: 'Biology 100 (Fall 2025)', courseCode: 'BIO100-F25', accountId: 2, termId: 2, concluded: true },
      { id: 104, name: 'History 110', courseCode: 'HIST110', accountId: 3, termId: 4 },
      { id: 105, name: 'Physics 150 (draft)', courseCode: 'PHYS150', accountId: 2, termId: 4, published: false },
    ],
    enrollments: [
      { userId: 2, courseId: 101, type: 'teacher' },
      { userId: 2, courseId: 102, type: 'teacher' },
      { userId: 2, courseId: 103, type: 'teacher' },
      { userId: 2, courseId: 105, type: 'teacher' },
      { userId: 3, courseId: 101, type: 'student' },
      { userId: 3, courseId: 103, type: 'student' },
      { userId: 3, courseId: 105, type: 'student' },
      { userId: 4, courseId: 101, type: 'student' },
      { userId: 4, courseId: 102, type: 'student' },
      { userId: 5, courseId: 101, type: 'designer' },
      { userId: 6, courseId: 101, type: 'ta' },
      { userId: 7, courseId: 104, type: 'teacher' },
    ],
    accountAdmins: [
      { userId: 1, accountId: 1 },
      { userId: 8, accountId: 2 },
    ],
    quizzes: [
      { id: 201, courseId: 101, title: 'Midterm exam', quizType: 'assignment', assignmentId: 311, timeLimit: 60 },
      { id: 202, courseId: 101, title: 'Weekly practice quiz', quizType: 'practice_quiz' },
      { id: 203, courseId: 101, title: 'Final exam (draft)', quizType: 'assignment', assignmentId: 313, published: false },
      { id: 204, courseId: 101, title: 'Lab safety check', quizType: 'assignment', assignmentId: 314, accessCode: 'lab-2026' },
      { id: 205, courseId: 102, title: 'Stoichiometry quiz', quizType: 'assignment', assignmentId: 315 },
      { id: 206, courseId: 104, title: 'Primary sources quiz', quizType: 'assignment', assignmentId: 316 },
      { id: 207, courseId: 103, title: 'Biology 100 midterm', quizType: 'assignment', assignmentId: 317 },
    ],
    assignments: [{ id: 320, courseId: 101, name: 'Lab report', submissionTypes: ['online_upload'] }],
    newQuizzes: [
      { assignmentId: 301, courseId: 101, title: 'Final exam (New Quizzes)', instructions: '<p>Closed book.</p>', pointsPossible: 50 },
      { assignmentId: 302, courseId: 101, title: 'Unit 3 check (New Quizzes)', published: false },
      { assignmentId: 303, courseId: 102, title: 'Chemistry final (New Quizzes)' },
    ],
  };
}
