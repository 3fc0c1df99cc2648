import type { MikroORM } from '@mikro-orm/postgresql';
import { countStates, studentState, type Board, type BoardStudent, type StudentSteps } from '@exb/shared/exam-day.js';

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
  constructor(
    private readonly orm: MikroORM,
    private readonly clock: () => number,
  ) {}

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
