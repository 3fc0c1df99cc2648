import { LMS_COURSE_SEARCH_MIN_LENGTH, normalizeAdminSearch } from '@exb/shared/admin-courses.js';
import { isLmsId } from '@exb/shared/content-id.js';
import { includesDropped, type CourseInclude, type LmsApi } from '../../lms/api.js';
import type { LmsCourse } from '../../lms/schemas.js';
import type { CourseConnections } from '../connected-courses/course-connections.js';
import { courseFacts } from '../connected-courses/course-facts.js';
import { invalidAdminRequest } from '../connected-courses/errors.js';


export interface CatalogInput {
  readonly search?: string | undefined;
  readonly termId?: string | undefined;
  readonly cursor?: string | undefined;
  readonly includeUnpublished?: boolean | undefined;
  readonly withEnrollments?: boolean | undefined;
}

export interface CatalogCourse {
  readonly id: string;
  readonly name: string;
  readonly courseCode: string;
  readonly termId: string | null;
  readonly termName: string | null;
  readonly published: boolean;
  readonly concluded: boolean;
  /** Connected to this account's exam browser administration. */
  readonly connected: boolean;
  /** Only with enrollment data (`withEnrollments`, the default). */
  readonly teachers?: string[];
  readonly totalStudents?: number | null;
}

export interface CatalogPage {
  readonly success: true;
  readonly courses: CatalogCourse[];
  readonly nextCursor: string | null;
  /**
   * Present when the LMS left out the includes the page asked for (terms, teachers, student counts): the API developer
   * key does not allow include parameters, which an administrator can fix.
   */
  readonly lmsIncludesDropped?: true;
}

const CURSOR_VERSION = 'p1';
// The LMS's page values are numbers or opaque bookmarks (note §4.1); anything else did not come from it.
const PAGE_VALUE = /^[A-Za-z0-9:_.=-]{1,512}$/;

export function encodeCatalogCursor(page: string): string {
  return Buffer.from(JSON.stringify([CURSOR_VERSION, page]), 'utf8').toString('base64url');
}

export function decodeCatalogCursor(cursor: string): string | null {
  if (cursor.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed) || parsed.length !== 2 || parsed[0] !== CURSOR_VERSION) return null;
    const page: unknown = parsed[1];
    return typeof page === 'string' && PAGE_VALUE.test(page) ? page : null;
  } catch {
    return null;
  }
}

function catalogCourse(course: LmsCourse, connected: boolean, withEnrollments: boolean): CatalogCourse {
  const facts = courseFacts(course);
  return {
    id: facts.courseId,
    name: facts.name,
    courseCode: facts.courseCode,
    termId: facts.termId,
    termName: facts.termName,
    published: course.workflowState === 'available' || course.workflowState === 'completed',
    concluded: facts.concluded,
    connected,
    ...(withEnrollments
      ? { teachers: course.teachers.map((teacher) => teacher.name ?? '').filter((name) => name !== ''), totalStudents: course.totalStudents }
      : {}),
  };
}

/**
 * `GET /api/admin/course-catalog`: the root account's courses as the LMS lists them now (never cached), one bounded
 * page per request, each marked with whether it is connected here.
 */
export class CatalogService {
  /** `pageSize`: courses per catalog page (`ADMIN_PAGE_SIZE`); one LMS page, so each request makes one listing call. */
  constructor(
    private readonly connections: CourseConnections,
    private readonly pageSize: number,
  ) {}

  async page(accountId: string, lms: LmsApi, input: CatalogInput): Promise<CatalogPage> {
    const search = normalizeAdminSearch(input.search ?? '');
    if (search !== '' && search.length < LMS_COURSE_SEARCH_MIN_LENGTH) {
      throw invalidAdminRequest(`Search with at least ${LMS_COURSE_SEARCH_MIN_LENGTH} characters.`);
    }
    if (input.termId !== undefined && input.termId !== '' && !isLmsId(input.termId)) throw invalidAdminRequest('The term id is not a valid LMS id.');
    const page = input.cursor === undefined || input.cursor === '' ? undefined : decodeCatalogCursor(input.cursor);
    if (page === null) throw invalidAdminRequest('The page cursor is not valid. Start again from the first page.');
    const withEnrollments = input.withEnrollments !== false;
    const include: CourseInclude[] = withEnrollments ? ['term', 'teachers', 'total_students'] : ['term'];
    const listed = await lms.listAccountCoursesPage(
      accountId,
      {
        ...(search !== '' ? { searchTerm: search } : {}),
        ...(input.termId ? { enrollmentTermId: input.termId } : {}),
        ...(input.includeUnpublished === true ? {} : { published: true }),
        include,
        sort: 'course_name',
        order: 'asc',
      },
      { ...(page !== undefined ? { page } : {}), perPage: this.pageSize },
    );
    const connected = await this.connections.connectedAmong(accountId, listed.items.map((course) => course.id));
    return {
      success: true,
      courses: listed.items.map((course) => catalogCourse(course, connected.has(course.id), withEnrollments)),
      nextCursor: listed.nextPage === null || !PAGE_VALUE.test(listed.nextPage) ? null : encodeCatalogCursor(listed.nextPage),
      ...(includesDropped(listed.items, include) ? { lmsIncludesDropped: true as const } : {}),
    };
  }
}
