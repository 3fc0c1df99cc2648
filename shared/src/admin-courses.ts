import { isLmsId } from './content-id.js';

/**
 * Rules of the administrator's course lists that the dashboard and the service both apply (Document 2, Limits): the
 * search text and the ids an administrator pastes to connect courses. No dependencies, so browser bundles import it.
 */

/** Longest search text; longer text is cut, not refused. */
export const ADMIN_SEARCH_MAX_LENGTH = 120;
/** Courses one connect request may name. */
export const ADMIN_CONNECT_MAX_COURSES = 50;
/** The page size range of the connected-course list. */
export const ADMIN_PAGE_LIMIT = { min: 1, max: 50 } as const;
/** The LMS searches account courses only from this many characters on (note §4.9). */
export const LMS_COURSE_SEARCH_MIN_LENGTH = 3;

/** Search text as the lists use it: whitespace runs collapsed to one space, trimmed, at most 120 characters. */
export function normalizeAdminSearch(value: string): string {
  return value.replace(/\s+/g, ' ').trim().slice(0, ADMIN_SEARCH_MAX_LENGTH).trim();
}

export interface ParsedCourseIds {
  /** Distinct canonical course ids, in the order first named. */
  readonly courseIds: string[];
  /** Entries that name no course (at most a few, for the message). */
  readonly unrecognized: string[];
}

const MAX_UNRECOGNIZED_REPORTED = 10;
const MAX_ENTRY_LENGTH = 2048;

/**
 * The course id an entry names: a numeric id, or a course URL (`…/courses/123`, `…/courses/123/quizzes/4`). A URL on
 * another origin than the LMS's names no course of this LMS. Leading zeros are not canonical and name nothing.
 */
export function courseIdOfEntry(entry: string, lmsOrigin?: string): string | null {
  // Checked on a copy: the guard would otherwise narrow `entry` to `never` below.
  if (isLmsId(`${entry}`)) return entry;
  if (entry.length > MAX_ENTRY_LENGTH || !/^https?:\/\//i.test(entry)) return null;
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return null;
  }
  if (lmsOrigin !== undefined && url.origin !== new URL(lmsOrigin).origin) return null;
  const id = /^\/courses\/([^/]+)(?:\/|$)/.exec(url.pathname)?.[1];
  return id !== undefined && isLmsId(id) ? id : null;
}

/**
 * The courses a pasted text names: ids and course URLs separated by whitespace, commas or semicolons, in any mix.
 * Duplicates count once. The caller decides what too many means.
 */
export function parseCourseIdInput(input: string, lmsOrigin?: string): ParsedCourseIds {
  const courseIds: string[] = [];
  const seen = new Set<string>();
  const unrecognized: string[] = [];
  for (const entry of input.split(/[\s,;]+/)) {
    if (entry === '') continue;
    const id = courseIdOfEntry(entry, lmsOrigin);
    if (id === null) {
      if (unrecognized.length < MAX_UNRECOGNIZED_REPORTED) unrecognized.push(entry.slice(0, 80));
      continue;
    }
    if (!seen.has(id)) {
      seen.add(id);
      courseIds.push(id);
    }
  }
  return { courseIds, unrecognized };
}
