import type { MikroORM } from '@mikro-orm/postgresql';
import { SharedBoardReads } from './shared-reads.js';
import {
  countStates,
  EXAM_DAY_RUNNING_HOURS,
  studentState,
  type Board,
  type BoardStudent,
  type RunningAssessment,
  type StudentSteps,
} from '@exb/shared/exam-day.js';

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
  private readonly shared: SharedBoardReads;

  constructor(
    private readonly orm: MikroORM,
    private readonly clock: () => number,
  ) {
    this.shared = new SharedBoardReads((courseId, contentId) => this.readNow(courseId, contentId), clock);
  }

  /** The board, from a read shared with this instance's other viewers of it (`shared-reads.ts`). */
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

  private async readNow(courseId: string, contentId: string): Promise<Board> {
    const rows = await this.orm.em
      .getConnection()
      .execute<Row[]>('select * from exb_exam_day_student where course_id = ? and content_id = ? order by display_name nulls last, lms_user_id', [
        courseId,
        contentId,
      ]);
    const students = rows.map(boardStudent);
    return { courseId, assessmentId: contentId, generatedAt: new Date(this.clock()).toISOString(), counts: countStates(students), students };
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
