import { ErrorCodes, type ErrorCode } from '@exb/shared/error-codes.js';
import { ADMIN_CONNECT_MAX_COURSES, parseCourseIdInput } from '@exb/shared/admin-courses.js';
import { isLmsId } from '@exb/shared/content-id.js';
import type { Logger } from 'pino';
import type { LmsApi } from '../../lms/api.js';
import { LmsAuthorizationRequiredError, LmsNotFoundError, LmsPermissionDeniedError } from '../../lms/errors.js';
import { domainErrorFrom } from '../known-errors.js';
import { mapLimited } from '../connected-courses/map-limited.js';
import type { CourseConnections } from '../connected-courses/course-connections.js';
import { courseFacts, inRootAccount } from '../connected-courses/course-facts.js';
import { invalidCourseIds } from '../connected-courses/errors.js';

export type ConnectResult =
  | { readonly courseId: string; readonly success: true; readonly course: { readonly id: string; readonly name: string } }
  | { readonly courseId: string; readonly success: false; readonly error: { readonly error_code: ErrorCode; readonly message: string } };

export interface ConnectOutcome {
  readonly success: true;
  readonly connectedCount: number;
  readonly results: ConnectResult[];
  /** Entries of `input` that named no course (at most a few). */
  readonly unrecognized: string[];
}

export interface ConnectRequest {
  readonly courseIds?: readonly (string | number)[] | undefined;
  readonly input?: string | undefined;
}

/** LMS reads at a time: a batch of 50 finishes well inside a request without loading the LMS's throttle. */
const CONCURRENCY = 4;

const NOT_IN_ACCOUNT = {
  error_code: ErrorCodes.ADMIN_COURSE_NOT_IN_ACCOUNT,
  message: 'The LMS does not show this course in your root account.',
} as const;

/** The courses a connect request names: ids (numbers or numeric strings) and the ids and course URLs of `input`. */
export function requestedCourseIds(request: ConnectRequest, lmsOrigin: string): { courseIds: string[]; unrecognized: string[] } {
  const ids: string[] = [];
  const unrecognized: string[] = [];
  for (const value of request.courseIds ?? []) {
    const id = typeof value === 'number' ? (Number.isSafeInteger(value) ? String(value) : '') : value.trim();
    if (isLmsId(id)) ids.push(id);
    else if (unrecognized.length < 10) unrecognized.push(String(value).slice(0, 80));
  }
  if (request.input !== undefined) {
    const parsed = parseCourseIdInput(request.input, lmsOrigin);
    ids.push(...parsed.courseIds);
    unrecognized.push(...parsed.unrecognized.slice(0, Math.max(0, 10 - unrecognized.length)));
  }
  const courseIds = [...new Set(ids)];
  if (courseIds.length === 0) throw invalidCourseIds('Name at least one course by its numeric id or its course URL.');
  if (courseIds.length > ADMIN_CONNECT_MAX_COURSES) {
    throw invalidCourseIds(`Connect at most ${ADMIN_CONNECT_MAX_COURSES} courses at a time; this request names ${courseIds.length}.`);
  }
  return { courseIds, unrecognized };
}

/**
 * `POST /api/admin/courses/connect`: each named course is read from the LMS with the administrator's grant and
 * connected when the LMS places it in the administrator's root account. Each course is answered on its own: one of
 * another school, one the LMS does not show, or an LMS hiccup fails that course only. An authorization the LMS no
 * longer accepts fails the whole request, since every course would fail alike.
 */
export class ConnectService {
  constructor(
    private readonly connections: CourseConnections,
    private readonly lmsOrigin: string,
    private readonly logger: Logger,
  ) {}

  async connect(principal: { accountId: string; lmsUserId: string }, lms: LmsApi, request: ConnectRequest): Promise<ConnectOutcome> {
    const { courseIds, unrecognized } = requestedCourseIds(request, this.lmsOrigin);
    const results = await mapLimited(courseIds, CONCURRENCY, (courseId) => this.connectOne(principal, lms, courseId));
    return { success: true, connectedCount: results.filter((result) => result.success).length, results, unrecognized };
  }

  private async connectOne(principal: { accountId: string; lmsUserId: string }, lms: LmsApi, courseId: string): Promise<ConnectResult> {
    try {
      const course = await lms.getCourse(courseId, { include: ['term'] });
      if (course.id !== courseId || !inRootAccount(course, principal.accountId)) return { courseId, success: false, error: NOT_IN_ACCOUNT };
      const connection = await this.connections.upsert(principal.accountId, courseFacts(course), 'admin', principal.lmsUserId);
      return { courseId, success: true, course: { id: connection.courseId, name: connection.name } };
    } catch (error) {
      if (error instanceof LmsAuthorizationRequiredError) throw error;
      // The LMS answers "not found" and "not authorized" alike for another school's course; so does this.
      if (error instanceof LmsNotFoundError || error instanceof LmsPermissionDeniedError) return { courseId, success: false, error: NOT_IN_ACCOUNT };
      const refusal = domainErrorFrom(error);
      if (refusal === null) throw error;
      this.logger.info({ courseId, code: refusal.errorCode }, 'course could not be connected');
      return { courseId, success: false, error: { error_code: refusal.errorCode, message: refusal.message } };
    }
  }
}
