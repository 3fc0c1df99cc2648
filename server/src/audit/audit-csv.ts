import type { AuditEntry } from './audit-log.js';

/** The export's columns, in order; the header row names them. */
const HEADER = ['occurred_at', 'action', 'outcome', 'actor_lms_user_id', 'actor_name', 'actor_role', 'course_id', 'content_id', 'request_id', 'details'];

/**
 * One CSV cell (RFC 4180 quoting). A value a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, and the tab and
 * carriage return it also honours) is prefixed with `'`, so an actor name or a detail cannot run in the reader's sheet.
 */
export function csvCell(value: string | number | boolean | null): string {
  let text = value === null ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Entries as CSV with a header row, lines ended with CRLF; details as compact JSON. */
export function auditCsv(entries: readonly AuditEntry[]): string {
  const rows = entries.map((entry) =>
    [
      entry.occurredAt.toISOString(),
      entry.action,
      entry.outcome,
      entry.actor.lmsUserId,
      entry.actor.name,
      entry.actor.role,
      entry.courseId,
      entry.contentId,
      entry.requestId,
      Object.keys(entry.details).length === 0 ? null : JSON.stringify(entry.details),
    ].map(csvCell),
  );
  return [HEADER, ...rows].map((row) => row.join(',')).join('\r\n') + '\r\n';
}

/** `exam-audit-2026-11-25.csv`: named by the day of the export, so saved exports sort by date. */
export function auditCsvFileName(now: Date): string {
  return `exam-audit-${now.toISOString().slice(0, 10)}.csv`;
}
