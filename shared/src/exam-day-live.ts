/**
 * Where a page reaches the exam-day board without a header: the live signal's server-sent events (an `EventSource`
 * sends no headers) and the board's CSV download (a link). The session token may ride in the query of these alone
 * (`server/src/security/session-token.ts`).
 */
import { ADMIN_EXAM_DAY_CSV_ROUTE, EXAM_DAY_CSV_ROUTE, servicePath, TRPC_PREFIX } from './service-paths.js';

export const EXAM_DAY_STREAM_PROCEDURES = ['instructor.enforcement.examDayChanges', 'admin.courses.examDayChanges'] as const;

/** The board as CSV, for the instructor (`/api/quizzes/...`) and the administrator (`/api/admin/...`). */
export const EXAM_DAY_CSV_ROUTES = { instructor: EXAM_DAY_CSV_ROUTE, admin: ADMIN_EXAM_DAY_CSV_ROUTE } as const;

/** Whether `path` (without its query) is one of the board's header-less addresses. */
export function isExamDayTokenPath(path: string): boolean {
  if (EXAM_DAY_STREAM_PROCEDURES.some((procedure) => path === `${TRPC_PREFIX}/${procedure}`)) return true;
  return Object.values(EXAM_DAY_CSV_ROUTES).some((route) => routePattern(route.path).test(path));
}

const patterns = new Map<string, RegExp>();

function routePattern(route: string): RegExp {
  let pattern = patterns.get(route);
  if (pattern === undefined) {
    pattern = new RegExp(`^${route.replace(/\./g, '\\.').replace(/:[A-Za-z]+/g, '[^/]+')}$`);
    patterns.set(route, pattern);
  }
  return pattern;
}

/** The CSV's address of one board, filled in for the page's link. */
export function examDayCsvPath(kind: keyof typeof EXAM_DAY_CSV_ROUTES, courseId: string, assessmentId: string): string {
  return servicePath(EXAM_DAY_CSV_ROUTES[kind], [encodeURIComponent(courseId), encodeURIComponent(assessmentId)]);
}
