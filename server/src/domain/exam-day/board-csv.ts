import type { Board } from '@exb/shared/exam-day.js';
import { csvCell } from '../../audit/audit-csv.js';

/** The export's columns, in order; the header row names them. Times are ISO 8601 in UTC, empty for a step not taken. */
const COLUMNS = [
  ['lms_user_id', (s) => s.lmsUserId],
  ['name', (s) => s.name],
  ['state', (s) => s.state],
  ['launched_at', (s) => s.launchedAt],
  ['granted_at', (s) => s.grantedAt],
  ['downloads', (s) => s.downloads],
  ['last_download_at', (s) => s.lastDownloadAt],
  ['proven_at', (s) => s.provenAt],
  ['released_at', (s) => s.releasedAt],
  ['attempt_started_at', (s) => s.attemptStartedAt],
  ['attempt_submitted_at', (s) => s.attemptSubmittedAt],
  ['exited_at', (s) => s.exitedAt],
  ['readmitted_at', (s) => s.readmittedAt],
  ['exempted_at', (s) => s.exemptedAt],
] as const satisfies readonly (readonly [string, (student: Board['students'][number]) => string | number | null])[];

/** The board as CSV with a header row, lines ended with CRLF; cells quoted and defused as the audit export's. */
export function boardCsv(board: Board): string {
  const rows = board.students.map((student) => COLUMNS.map(([, value]) => csvCell(value(student))));
  return [COLUMNS.map(([name]) => name), ...rows].map((row) => row.join(',')).join('\r\n') + '\r\n';
}

/** `exam-day-101-quiz-7-2026-11-29.csv`: the course, the assessment (file-name safe) and the day of the export. */
export function boardCsvFileName(board: Board): string {
  const safe = (value: string) => value.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 64);
  return `exam-day-${safe(board.courseId)}-${safe(board.assessmentId)}-${board.generatedAt.slice(0, 10)}.csv`;
}
