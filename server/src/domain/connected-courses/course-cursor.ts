/**
 * The opaque cursor of the connected-course list: the sort key of the last course of a page, `(lower(name), course id)`,
 * as base64url JSON. The next page starts strictly after that key (keyset paging), so courses connected or removed
 * between two pages never shift the pages: nothing already listed comes again and nothing that stayed is skipped.
 * A cursor only positions a list inside the caller's own account, so it needs no signature; it is validated like any
 * input.
 */
export interface CourseKey {
  /** The course name as the database lower-cases it for sorting. */
  readonly sortName: string;
  readonly courseId: string;
}

const VERSION = 'c1';
/** Far above any real cursor (a 500-character name), far below anything costly to decode. */
export const CURSOR_MAX_LENGTH = 4096;

export function encodeCourseCursor(key: CourseKey): string {
  return Buffer.from(JSON.stringify([VERSION, key.sortName, key.courseId]), 'utf8').toString('base64url');
}

/** The key a cursor names, or `null` for anything that is not a cursor this service issued. */
export function decodeCourseCursor(cursor: string): CourseKey | null {
  if (cursor.length === 0 || cursor.length > CURSOR_MAX_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) return null;
  const [version, sortName, courseId] = parsed as unknown[];
  if (version !== VERSION || typeof sortName !== 'string' || typeof courseId !== 'string') return null;
  if (sortName.length > 2000 || !/^[1-9][0-9]{0,18}$/.test(courseId)) return null;
  return { sortName, courseId };
}
