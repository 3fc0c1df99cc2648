import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import {
  countStates,
  encodeStepTimes,
  EXAM_DAY_RUNNING_HOURS,
  STEP_TIME_KEYS,
  studentState,
  type Board,
  type BoardStudent,
  type LmsRead,
  type RunningAssessment,
  type StudentChange,
  type StudentSteps,
} from '@exb/shared/exam-day.js';
import type { LmsApi } from '../../lms/index.js';
import { COURSE_WIDE, ExamDayLmsStore } from './lms-read-store.js';
import { ExamDayLmsReader } from './lms-reader.js';
import { mergeRoster } from './roster.js';
import { SharedBoardReads } from './shared-reads.js';

/**
 * The exam-day board of one assessment: every student with a recorded step (`exb_exam_day_student`), their current
 * state and the counts per state. Reads only; the student flow writes the rows.
 */

type TimeKey = (typeof STEP_TIME_KEYS)[number];

/** The column of each step's time. */
const TIME_COLUMN = {
  launchedAt: 'launched_at',
  grantedAt: 'granted_at',
  lastDownloadAt: 'last_download_at',
  provenAt: 'proven_at',
  releasedAt: 'released_at',
  exitedAt: 'exited_at',
  attemptStartedAt: 'attempt_started_at',
  attemptSubmittedAt: 'attempt_submitted_at',
  readmittedAt: 'readmitted_at',
  exemptedAt: 'exempted_at',
} as const satisfies Record<TimeKey, string>;

type Row = {
  lms_user_id: string;
  display_name: string | null;
  downloads: number;
  /** A `bigint`, which the driver gives as text. */
  change_seq: string | number;
} & Record<(typeof TIME_COLUMN)[TimeKey], Date | string | null>;

const epoch = (value: Date | string | null): number | null => (value === null ? null : value instanceof Date ? value.getTime() : Date.parse(value));

export function boardStudent(row: Row): BoardStudent {
  const steps = { downloads: Number(row.downloads) } as StudentSteps;
  for (const key of STEP_TIME_KEYS) {
    const value = row[TIME_COLUMN[key]];
    steps[key] = value === null ? null : new Date(value).toISOString();
  }
  return { lmsUserId: row.lms_user_id, name: row.display_name, ...steps, state: studentState(steps), version: Number(row.change_seq) };
}

/** A row as a live board's stream sends it (`StudentChange`), straight from the driver's values. */
function studentChange(row: Row): StudentChange {
  const times = STEP_TIME_KEYS.map((key) => epoch(row[TIME_COLUMN[key]]));
  return [row.lms_user_id, row.display_name, Number(row.change_seq), Number(row.downloads), encodeStepTimes(times)];
}

export class ExamDayBoard {
  /** The store of the LMS reads behind the board (housekeeping purges it). */
  readonly lmsStore: ExamDayLmsStore;
  private readonly lmsReader: ExamDayLmsReader;
  private readonly shared: SharedBoardReads;

  constructor(
    private readonly orm: MikroORM,
    private readonly clock: () => number,
    logger?: Logger,
  ) {
    this.lmsStore = new ExamDayLmsStore(orm);
    this.lmsReader = new ExamDayLmsReader(this.lmsStore, clock, logger);
    this.shared = new SharedBoardReads((courseId, contentId) => this.readNow(courseId, contentId), clock);
  }

  /**
   * The board with what the LMS says: the quiz attempts merged into the students' steps and the roster's students who
   * have not started, read with `lms` (the grant of whoever reads the board) at most once a minute per assessment and
   * course. Where the LMS could not be read, the board says why and shows the rest.
   */
  async readWithLms(courseId: string, contentId: string, lms: LmsApi): Promise<Board> {
    // A read that asked the LMS may have stored news that a shared read started before it lacks.
    if (await this.lmsReader.refresh(courseId, contentId, lms)) this.shared.changed(courseId, contentId);
    return this.read(courseId, contentId);
  }

  /**
   * The board with what the LMS said at its last read, without asking it again (for pushes and exports, which carry
   * no one's grant), from a read shared with this instance's other viewers of it (`shared-reads.ts`).
   */
  read(courseId: string, contentId: string): Promise<Board> {
    return this.shared.get(courseId, contentId);
  }

  /** What the database's notifications say changed; a shared read of it is not handed out any more. */
  changed(courseId: string, contentId: string): void {
    this.shared.changed(courseId, contentId);
  }

  everythingChanged(): void {
    this.shared.clear();
  }

  /**
   * The board with what the LMS says, read for this caller alone, after any write a snapshot taken before the call
   * began saw (a live board's first answer, which the changes after that snapshot then extend).
   */
  async readFreshWithLms(courseId: string, contentId: string, lms: LmsApi): Promise<Board> {
    if (await this.lmsReader.refresh(courseId, contentId, lms)) this.shared.changed(courseId, contentId);
    return this.readNow(courseId, contentId);
  }

  /** Asks the LMS behind the board where its minute has passed; whether it was asked (`ExamDayLmsReader.refresh`). */
  refreshLms(courseId: string, contentId: string, lms: LmsApi): Promise<boolean> {
    return this.lmsReader.refresh(courseId, contentId, lms);
  }

  /** How the board's last LMS reads went (attempts, roster), to tell whether another instance's read brought news. */
  async lmsReads(courseId: string, contentId: string): Promise<[LmsRead, LmsRead]> {
    return Promise.all([this.lmsStore.lastRead(courseId, contentId, 'attempts'), this.lmsStore.lastRead(courseId, COURSE_WIDE, 'roster')]);
  }

  /** The database's snapshot now, as text: where a live board's changes start (`changesSince`). */
  async snapshot(): Promise<string> {
    const rows = await this.orm.em.getConnection().execute<{ snapshot: string }[]>('select pg_current_snapshot()::text as snapshot');
    return rows[0]!.snapshot;
  }

  /**
   * The students whose record a transaction wrote that `since` (a snapshot's text) did not see, and the snapshot of
   * this read, where the next one starts: every change reaches exactly the read after it became visible, however
   * late its transaction committed. A row can come twice (written again); `version` orders its versions.
   */
  async changesSince(courseId: string, contentId: string, since: string): Promise<{ snapshot: string; students: StudentChange[] }> {
    const rows = await this.orm.em.getConnection().execute<(Row & { snapshot: string })[]>(
      `select s.snapshot, d.* from (select pg_current_snapshot()::text as snapshot) s
         left join exb_exam_day_student d on d.course_id = ? and d.content_id = ?
           and d.change_xid >= pg_snapshot_xmin(?::pg_snapshot) and not pg_visible_in_snapshot(d.change_xid, ?::pg_snapshot)`,
      [courseId, contentId, since, since],
    );
    const students = rows.filter((row) => row.lms_user_id !== null).map(studentChange);
    return { snapshot: rows[0]!.snapshot, students };
  }

  /** The board as stored this instant, read for this caller alone (no shared read). */
  async readNow(courseId: string, contentId: string): Promise<Board> {
    const [rows, roster, attempts, rosterRead] = await Promise.all([
      this.orm.em
        .getConnection()
        .execute<Row[]>('select * from exb_exam_day_student where course_id = ? and content_id = ? order by display_name nulls last, lms_user_id', [
          courseId,
          contentId,
        ]),
      this.lmsStore.roster(courseId),
      this.lmsStore.lastRead(courseId, contentId, 'attempts'),
      this.lmsStore.lastRead(courseId, COURSE_WIDE, 'roster'),
    ]);
    const students = rows.map(boardStudent);
    const board: Board = { courseId, assessmentId: contentId, generatedAt: new Date(this.clock()).toISOString(), counts: countStates(students), students };
    // The roster is the enrollments API's or none: the registration asks for no LTI service scopes, so launches carry
    // no Names and Role Provisioning Service claim.
    const source = rosterRead.readAt === null ? 'unavailable' : 'enrollments';
    return { ...mergeRoster(board, roster), attempts, roster: { ...rosterRead, source } };
  }

  /**
   * The account's assessments running now: those of its connected courses with a step recorded in the last
   * {@link EXAM_DAY_RUNNING_HOURS} hours, each with the counts of all its students, the latest activity first.
   */
  async running(accountId: string): Promise<RunningAssessment[]> {
    const since = new Date(this.clock() - EXAM_DAY_RUNNING_HOURS * 3_600_000);
    const rows = await this.orm.em.getConnection().execute<(Row & RunningRow)[]>(
      // The recent rows first (the index on `updated_at`), then every row of the assessments they belong to.
      `with running as (
         select s.course_id, s.content_id, max(s.updated_at) as last_activity_at
           from exb_exam_day_student s
           join admin_course c on c.course_id = s.course_id and c.account_id = ?
          where s.updated_at >= ?
          group by s.course_id, s.content_id
       )
       select s.*, r.last_activity_at, c.name as course_name, a.title
         from running r
         join exb_exam_day_student s on s.course_id = r.course_id and s.content_id = r.content_id
         join admin_course c on c.course_id = r.course_id
         left join assessment a on a.course_id = r.course_id and a.content_id = r.content_id
        order by r.last_activity_at desc, r.course_id, r.content_id`,
      [accountId, since],
    );
    const byAssessment = new Map<string, { head: Row & RunningRow; students: BoardStudent[] }>();
    for (const row of rows) {
      const key = JSON.stringify([row.course_id, row.content_id]);
      let entry = byAssessment.get(key);
      if (entry === undefined) {
        entry = { head: row, students: [] };
        byAssessment.set(key, entry);
      }
      entry.students.push(boardStudent(row));
    }
    return [...byAssessment.values()].map(({ head, students }) => ({
      courseId: head.course_id,
      courseName: head.course_name,
      assessmentId: head.content_id,
      title: head.title,
      lastActivityAt: new Date(head.last_activity_at).toISOString(),
      students: students.length,
      counts: countStates(students),
    }));
  }
}

type RunningRow = { course_id: string; content_id: string; course_name: string; title: string | null; last_activity_at: Date | string };
