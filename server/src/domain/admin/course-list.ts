import { ADMIN_PAGE_LIMIT, normalizeAdminSearch } from '@exb/shared/admin-courses.js';
import type { TermView } from './admin-accounts.js';
import { wasRead, type CourseConnection, type CourseConnections } from '../connected-courses/course-connections.js';
import { decodeCourseCursor, encodeCourseCursor } from '../connected-courses/course-cursor.js';
import { invalidAdminRequest } from '../connected-courses/errors.js';

/** Document 2 "Course row". */
export interface CourseRow {
  readonly id: string;
  readonly name: string;
  readonly courseCode: string;
  readonly assessmentCount: number;
  readonly enabledAssessmentCount: number;
  readonly issueCount: number;
  /** Concluded in the LMS, or ended before the operational term began. */
  readonly concluded: boolean;
  readonly lastRefreshedAt: string;
  /** Addition: whether the course's quizzes were read from the LMS yet ({@link wasRead}); before, its counts mean nothing. */
  readonly readFromLms: boolean;
}

export interface CourseListInput {
  readonly search?: string | undefined;
  readonly cursor?: string | undefined;
  readonly limit?: number | undefined;
  readonly includePast?: boolean | undefined;
}

export interface CourseList {
  readonly success: true;
  readonly operationalTerm: TermView | null;
  readonly includePast: boolean;
  readonly courses: CourseRow[];
  readonly nextCursor: string | null;
}

export function courseRow(connection: CourseConnection, past: boolean): CourseRow {
  return {
    id: connection.courseId,
    name: connection.name,
    courseCode: connection.courseCode,
    assessmentCount: connection.assessmentCount,
    enabledAssessmentCount: connection.enabledAssessmentCount,
    issueCount: connection.issueCount,
    concluded: past,
    lastRefreshedAt: connection.lastRefreshedAt.toISOString(),
    readFromLms: wasRead(connection),
  };
}

/**
 * `GET /api/admin/courses`: one page of the account's connected courses, by name. Courses that ended before the
 * operational term started (or before now, without one) are past and only listed with `includePast`.
 */
export class CourseListService {
  constructor(
    private readonly connections: CourseConnections,
    private readonly defaultPageSize: number,
    private readonly now: () => number = Date.now,
  ) {}

  async list(accountId: string, operationalTerm: TermView | null, input: CourseListInput): Promise<CourseList> {
    const after = input.cursor === undefined || input.cursor === '' ? null : decodeCourseCursor(input.cursor);
    if (after === null && input.cursor !== undefined && input.cursor !== '') {
      throw invalidAdminRequest('The page cursor is not valid. Start again from the first page.');
    }
    const includePast = input.includePast === true;
    const limit = Math.min(ADMIN_PAGE_LIMIT.max, Math.max(ADMIN_PAGE_LIMIT.min, input.limit ?? this.defaultPageSize));
    const start = operationalTerm?.startAt ? new Date(operationalTerm.startAt) : null;
    const page = await this.connections.page(accountId, {
      search: normalizeAdminSearch(input.search ?? ''),
      limit,
      includePast,
      pastBoundary: start ?? new Date(this.now()),
      after,
    });
    return {
      success: true,
      operationalTerm,
      includePast,
      courses: page.courses.map((course) => courseRow(course, course.past)),
      nextCursor: page.next === null ? null : encodeCourseCursor(page.next),
    };
  }
}
