import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { countStates, studentState, type Board, type BoardStudent, type StudentSteps } from '@exb/shared/exam-day.js';
import type { LmsApi } from '../../lms/index.js';
import { COURSE_WIDE, ExamDayLmsStore } from './lms-read-store.js';
import { ExamDayLmsReader } from './lms-reader.js';
import { mergeRoster } from './roster.js';

/**
 * The exam-day board of one assessment: every student with a recorded step (`exb_exam_day_student`), their current
 * state and the counts per state. Reads only; the student flow writes the rows.
 */

type Row = {
  lms_user_id: string;
  display_name: string | null;
  downloads: number;
} & Record<(typeof TIME_COLUMNS)[number][1], Date | string | null>;

const TIME_COLUMNS = [
  ['launchedAt', 'launched_at'],
  ['grantedAt', 'granted_at'],
  ['lastDownloadAt', 'last_download_at'],
  ['provenAt', 'proven_at'],
  ['releasedAt', 'released_at'],
  ['exitedAt', 'exited_at'],
  ['attemptStartedAt', 'attempt_started_at'],
  ['attemptSubmittedAt', 'attempt_submitted_at'],
  ['readmittedAt', 'readmitted_at'],
  ['exemptedAt', 'exempted_at'],
] as const;

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

export function boardStudent(row: Row): BoardStudent {
  const times = Object.fromEntries(TIME_COLUMNS.map(([key, column]) => [key, iso(row[column])])) as Omit<StudentSteps, 'downloads'>;
  const steps: StudentSteps = { ...times, downloads: Number(row.downloads) };
  return { lmsUserId: row.lms_user_id, name: row.display_name, ...steps, state: studentState(steps) };
}

export class ExamDayBoard {
  /** The store of the LMS reads behind the board (housekeeping purges it). */
  readonly lmsStore: ExamDayLmsStore;
  private readonly lmsReader: ExamDayLmsReader;

  constructor(
    private readonly orm: MikroORM,
    private readonly clock: () => number,
    logger?: Logger,
  ) {
    this.lmsStore = new ExamDayLmsStore(orm);
    this.lmsReader = new ExamDayLmsReader(this.lmsStore, clock, logger);
  }

  /**
   * The board with what the LMS says: the quiz attempts merged into the students' steps and the roster's students who
   * have not started, read with `lms` (the grant of whoever reads the board) at most once a minute per assessment and
   * course. Where the LMS could not be read, the board says why and shows the rest.
   */
  async readWithLms(courseId: string, contentId: string, lms: LmsApi): Promise<Board> {
    await this.lmsReader.refresh(courseId, contentId, lms);
    return this.readWithStoredLms(courseId, contentId);
  }

  /**
   * The board with what the LMS said at its last read (attempts, roster and how the reads went), without asking it
   * again: for updates pushed to open boards, which carry no one's grant.
   */
  async readWithStoredLms(courseId: string, contentId: string): Promise<Board> {
    const [board, roster, attempts, rosterRead] = await Promise.all([
      this.read(courseId, contentId),
      this.lmsStore.roster(courseId),
      this.lmsStore.lastRead(courseId, contentId, 'attempts'),
      this.lmsStore.lastRead(courseId, COURSE_WIDE, 'roster'),
    ]);
    // The roster is the enrollments API's or none: the registration asks for no LTI service scopes, so launches carry
    // no Names and Role Provisioning Service claim.
    const source = rosterRead.readAt === null ? 'unavailable' : 'enrollments';
    return { ...mergeRoster(board, roster), attempts, roster: { ...rosterRead, source } };
  }

  async read(courseId: string, contentId: string): Promise<Board> {
    const rows = await this.orm.em
      .getConnection()
      .execute<Row[]>('select * from exb_exam_day_student where course_id = ? and content_id = ? order by display_name nulls last, lms_user_id', [
        courseId,
        contentId,
      ]);
    const students = rows.map(boardStudent);
    return { courseId, assessmentId: contentId, generatedAt: new Date(this.clock()).toISOString(), counts: countStates(students), students };
  }
}
