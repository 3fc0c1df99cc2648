import { z } from 'zod';

/**
 * Exam day: where each student stands on the way into one enforced assessment. The server derives a student's state
 * from the recorded steps with {@link studentState}; the board, its counts, its filters and its CSV all take the states
 * from here, in this order (the way in, then the way out).
 */
export const STUDENT_STATES = [
  /** On the roster or launched the tool, but no configuration downloaded yet. */
  'not-started',
  /** A configuration was downloaded but no exam browser proved it: stuck at the start, or the wrong browser. */
  'downloaded-not-proven',
  /** The exam browser proved its Config Key but the access code was not released. */
  'proven-not-released',
  /** The code was released but the LMS shows no attempt: stuck at the access-code prompt. */
  'released-no-attempt',
  'in-progress',
  'submitted',
  /** Quit the exam browser through the service's exit without a submitted attempt. */
  'exited',
] as const;
export const studentStateSchema = z.enum(STUDENT_STATES);
export type StudentState = z.infer<typeof studentStateSchema>;

/** The states a teacher filters for first: a student who needs help. */
export const STUCK_STATES: readonly StudentState[] = ['downloaded-not-proven', 'proven-not-released', 'released-no-attempt'];

const at = z.iso.datetime().nullable();

/** The recorded steps of one student; times are ISO strings, `null` for a step not taken (or voided by a re-admit). */
export const studentStepsSchema = z.object({
  launchedAt: at,
  grantedAt: at,
  downloads: z.number().int().nonnegative(),
  lastDownloadAt: at,
  provenAt: at,
  releasedAt: at,
  exitedAt: at,
  attemptStartedAt: at,
  attemptSubmittedAt: at,
  readmittedAt: at,
  exemptedAt: at,
});
export type StudentSteps = z.infer<typeof studentStepsSchema>;

const time = (value: string | null): number => (value === null ? Number.NEGATIVE_INFINITY : Date.parse(value));

/**
 * A student's current state. A submitted attempt ends the way; an exit counts when no step of the way in came after
 * it (a student who quit and started again is back on the way in); otherwise the furthest step reached decides.
 */
export function studentState(steps: StudentSteps): StudentState {
  if (steps.attemptSubmittedAt !== null) return 'submitted';
  const lastWayIn = Math.max(time(steps.lastDownloadAt), time(steps.provenAt), time(steps.releasedAt), time(steps.attemptStartedAt));
  if (steps.exitedAt !== null && time(steps.exitedAt) >= lastWayIn) return 'exited';
  if (steps.attemptStartedAt !== null) return 'in-progress';
  if (steps.releasedAt !== null) return 'released-no-attempt';
  if (steps.provenAt !== null) return 'proven-not-released';
  if (steps.downloads > 0) return 'downloaded-not-proven';
  return 'not-started';
}

export const boardStudentSchema = studentStepsSchema.extend({
  lmsUserId: z.string(),
  /** The name the LMS gave (launch or roster); `null` when the LMS gave none. */
  name: z.string().nullable(),
  state: studentStateSchema,
  /**
   * The order of this student's recorded versions: a higher one is newer (`0`: nothing recorded, a roster student).
   * A live board that got a version from one read keeps it against an older one from another.
   */
  version: z.number().int().nonnegative(),
});
export type BoardStudent = z.infer<typeof boardStudentSchema>;

/** The board's order: by name, nameless students last, then by LMS user id. */
export function byName(a: Pick<BoardStudent, 'name' | 'lmsUserId'>, b: Pick<BoardStudent, 'name' | 'lmsUserId'>): number {
  if (a.name !== b.name) {
    if (a.name === null) return 1;
    if (b.name === null) return -1;
    return a.name < b.name ? -1 : 1;
  }
  return a.lmsUserId < b.lmsUserId ? -1 : a.lmsUserId > b.lmsUserId ? 1 : 0;
}

export type StateCounts = Record<StudentState, number>;

/** How many students are in each state; every state is present. */
export function countStates(students: readonly Pick<BoardStudent, 'state'>[]): StateCounts {
  const counts = Object.fromEntries(STUDENT_STATES.map((state) => [state, 0])) as StateCounts;
  for (const student of students) counts[student.state] += 1;
  return counts;
}

/**
 * How one read of the LMS behind the board went. `readAt` is the last read that succeeded (`null`: none yet);
 * `missingScope` names the developer-key scope the reading grant lacked, `failure` the error code of any other failed
 * read; both are `null` when the last read succeeded. The LMS is read at most once a minute per assessment, so these
 * may describe a read another board made.
 */
export const lmsReadSchema = z.object({
  readAt: at,
  missingScope: z.string().nullable(),
  failure: z.string().nullable(),
});
export type LmsRead = z.infer<typeof lmsReadSchema>;

/** Where the course's students who have not started come from: the LMS's enrollments, or nowhere (see `roster`). */
export const ROSTER_SOURCES = ['enrollments', 'unavailable'] as const;
export const rosterSourceSchema = z.enum(ROSTER_SOURCES);

export const boardSchema = z.object({
  courseId: z.string(),
  assessmentId: z.string(),
  generatedAt: z.iso.datetime(),
  counts: z.record(studentStateSchema, z.number().int().nonnegative()),
  students: z.array(boardStudentSchema),
  /** The LMS's quiz attempts (started, submitted) merged into the students' steps. Absent on a board read without the LMS. */
  attempts: lmsReadSchema.optional(),
  /** The course roster, which adds the students who have not started. Absent on a board read without the LMS. */
  roster: lmsReadSchema.extend({ source: rosterSourceSchema }).optional(),
});
export type Board = z.infer<typeof boardSchema>;

/** The times of a student's steps, in the order a changed student carries them on the wire. */
export const STEP_TIME_KEYS = [
  'launchedAt',
  'grantedAt',
  'lastDownloadAt',
  'provenAt',
  'releasedAt',
  'exitedAt',
  'attemptStartedAt',
  'attemptSubmittedAt',
  'readmittedAt',
  'exemptedAt',
] as const satisfies readonly (keyof StudentSteps)[];

/**
 * A changed student as a live board's stream sends it: `[lmsUserId, name, version, downloads, times]`. The times are
 * in {@link STEP_TIME_KEYS} order, the first one taken in epoch milliseconds and the others as milliseconds after it,
 * `null` for a step not taken, and the nulls at the end left out; the state is left to {@link studentState}; the name
 * is `null` where the stream sent it before. A class starting sends every board each student several times over, and
 * the bytes sent are what the boards cost the start (`docs/performance.md`).
 */
export const studentChangeSchema = z.tuple([
  z.string(),
  z.string().nullable(),
  z.number().int().nonnegative(),
  z.number().int().nonnegative(),
  z.array(z.number().int().nullable()).max(STEP_TIME_KEYS.length),
]);
export type StudentChange = z.infer<typeof studentChangeSchema>;

/** A student's step times (epoch milliseconds, {@link STEP_TIME_KEYS} order) as a changed student carries them. */
export function encodeStepTimes(times: readonly (number | null)[]): (number | null)[] {
  let last = times.length - 1;
  while (last >= 0 && times[last] === null) last -= 1;
  const first = times.findIndex((time) => time !== null);
  return times.slice(0, last + 1).map((time, index) => (time === null || index === first ? time : time - times[first]!));
}

/**
 * Two batches of changed students as one, each student's newest version kept with the name an older one carried (a
 * stream sends each name once), for a board that takes the changes slower than they come.
 */
export function mergeStudentChanges(older: readonly StudentChange[], newer: readonly StudentChange[]): StudentChange[] {
  const students = new Map<string, StudentChange>(older.map((student) => [student[0], student]));
  for (const student of newer) {
    const known = students.get(student[0]);
    const [kept, other] = known === undefined || known[2] < student[2] ? [student, known] : [known, student];
    students.set(student[0], kept[1] === null && other !== undefined && other[1] !== null ? [kept[0], other[1], kept[2], kept[3], kept[4]] : kept);
  }
  return [...students.values()];
}

/** The board's row of a changed student; the board knows the name where the change carries none. */
export function decodeStudentChange([lmsUserId, name, version, downloads, times]: StudentChange): BoardStudent {
  const first = times.findIndex((time) => time !== null);
  const steps = { downloads } as StudentSteps;
  STEP_TIME_KEYS.forEach((key, index) => {
    const time = times[index];
    steps[key] = time == null ? null : new Date(index === first ? time : times[first]! + time).toISOString();
  });
  return { lmsUserId, name, ...steps, state: studentState(steps), version };
}

/**
 * What an open board's live stream sends: first the whole board, then the students whose record changed since, as
 * they change (coalesced per assessment); the whole board again when the LMS's reads brought news (roster, attempts).
 */
export const boardChangesSchema = z.object({
  generatedAt: z.iso.datetime(),
  students: z.array(boardStudentSchema),
});
export type BoardChanges = z.infer<typeof boardChangesSchema>;

export const boardEventSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('board'), board: boardSchema }),
  z.object({ kind: z.literal('changes'), generatedAt: z.iso.datetime(), students: z.array(studentChangeSchema) }),
]);
export type BoardEvent = z.infer<typeof boardEventSchema>;

/**
 * The board with changed students applied: each replaces the student's row unless the board holds a newer version
 * already (reads overlap), keeps the name the board knew when it brings none (a roster's), and a student new to the
 * board joins it; order and counts follow. Pure.
 */
export function applyBoardChanges(board: Board, changes: BoardChanges): Board {
  const students = new Map(board.students.map((student) => [student.lmsUserId, student]));
  let applied = false;
  for (const student of changes.students) {
    const known = students.get(student.lmsUserId);
    if (known !== undefined && known.version >= student.version) continue;
    students.set(student.lmsUserId, student.name === null && known?.name != null ? { ...student, name: known.name } : student);
    applied = true;
  }
  if (!applied) return board;
  const ordered = [...students.values()].sort(byName);
  return { ...board, generatedAt: changes.generatedAt, students: ordered, counts: countStates(ordered) };
}

/** One assessment with exam-day activity lately, for the administrator's school-wide summary. */
export const runningAssessmentSchema = z.object({
  courseId: z.string(),
  courseName: z.string(),
  assessmentId: z.string(),
  /** The cached assessment's title; `null` when it was not discovered yet. */
  title: z.string().nullable(),
  lastActivityAt: z.iso.datetime(),
  students: z.number().int().nonnegative(),
  counts: z.record(studentStateSchema, z.number().int().nonnegative()),
});
export type RunningAssessment = z.infer<typeof runningAssessmentSchema>;

/** An assessment counts as running while a step of one of its students was recorded within this many hours. */
export const EXAM_DAY_RUNNING_HOURS = 6;
