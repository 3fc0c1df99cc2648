import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ADMIN_COURSES_ROUTE, ADMIN_EXAM_DAY_CSV_ROUTE, ADMIN_SUMMARY_ROUTE, AUDIT_EXPORT_ROUTE } from '@exb/shared/service-paths.js';
import type { AppContext } from '../../../context.js';
import { auditCsv, auditCsvFileName } from '../../../audit/audit-csv.js';
import type { AuditFilter } from '../../../domain/activity/audit-views.js';
import { adminRoute, fields, type AdminCaller } from '../../kit/admin-route.js';
import { procedureRoute } from '../../kit/procedure-route.js';
import { sendBoardCsv } from '../../kit/board-csv.js';

type Fields = Record<string, unknown>;

/** A query flag is on only when it says `true` (`includePast`, `includeUnpublished`). */
function flag(value: unknown): boolean | undefined {
  return value === undefined ? undefined : value === 'true';
}

/** A decimal query number as a number; anything else is passed on for the input check to refuse. */
function count(value: unknown): unknown {
  return typeof value === 'string' && /^\d{1,4}$/.test(value) ? Number(value) : value;
}

/** The list's filters from a query string; what is not a string is left out, malformed values are refused by the input. */
function auditFilterOf(q: Fields): AuditFilter {
  const filter: Record<string, string> = {};
  for (const key of ['courseId', 'userId', 'action', 'from', 'to'] as const) {
    if (typeof q[key] === 'string' && q[key] !== '') filter[key] = q[key];
  }
  return filter as AuditFilter;
}

/**
 * The administrator routes of Document 2 (`/api/admin/...`) as thin adapters over the administrator procedures, like
 * `quizzes-rest.ts` for the instructor's: path, query and body become the procedure's input and the caller runs every
 * guard (cross-site rule, principal, action token, administrator confirmation) exactly as for the typed client.
 * Mutations also pass the cross-site guard as an `onRequest` hook, before their body is read.
 */
export async function registerAdminRestRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { guard, handle } = adminRoute(ctx);
  const params = (request: FastifyRequest) => request.params as Record<string, string>;
  const query = (request: FastifyRequest) => fields(request.query);
  const course = (request: FastifyRequest) => ({ courseId: params(request).courseId! });
  const assessment = (request: FastifyRequest) => ({ courseId: params(request).courseId!, assessmentId: params(request).assessmentId! });

  app.get(ADMIN_SUMMARY_ROUTE.path, handle((api) => api.summary()));
  app.post('/api/admin/catch-up', guard, handle((api) => api.catchUp()));
  app.get(
    ADMIN_COURSES_ROUTE.path,
    handle((api, request) => {
      const q = query(request);
      return api.courses.list({ search: q.search, cursor: q.cursor, limit: count(q.limit), includePast: flag(q.includePast) } as Parameters<AdminCaller['courses']['list']>[0]);
    }),
  );
  app.get('/api/admin/courses/:courseId', handle((api, request) => api.courses.get(course(request))));
  app.get(
    '/api/admin/course-catalog',
    handle((api, request) => {
      const q = query(request);
      const withEnrollments = q.withEnrollments === undefined ? undefined : q.withEnrollments !== 'false';
      const input = { search: q.search, termId: q.termId, cursor: q.cursor, includeUnpublished: flag(q.includeUnpublished), withEnrollments };
      return api.catalog(input as Parameters<AdminCaller['catalog']>[0]);
    }),
  );
  app.get('/api/admin/terms', handle((api) => api.terms.list()));
  app.put('/api/admin/terms/operational', guard, handle((api, request) => api.terms.setOperational(fields(request.body) as Parameters<AdminCaller['terms']['setOperational']>[0])));

  app.post('/api/admin/courses/connect', guard, handle((api, request) => api.courses.connect(fields(request.body) as Parameters<AdminCaller['courses']['connect']>[0])));
  app.post('/api/admin/courses/:courseId/refresh', guard, handle((api, request) => api.courses.refresh(course(request))));
  app.post('/api/admin/courses/:courseId/passwords/reveal', guard, handle((api, request) => api.courses.revealPasswords(course(request))));
  app.post('/api/admin/courses/:courseId/quit-password/rotate', guard, handle((api, request) => api.courses.rotateExitPassword(course(request))));
  app.get('/api/admin/courses/:courseId/reset-preview', handle((api, request) => api.courses.resetPreview(course(request))));
  app.post(
    '/api/admin/courses/:courseId/reset',
    guard,
    handle((api, request) => api.courses.reset({ ...fields(request.body), ...course(request) } as Parameters<AdminCaller['courses']['reset']>[0])),
  );

  // The account's audit trail as a spreadsheet: the filters of the dashboard's list as query parameters.
  app.get(
    AUDIT_EXPORT_ROUTE.path,
    procedureRoute(
      ctx,
      'audit export failed',
      (api, request) => api.admin.audit.export(auditFilterOf(query(request))),
      (reply, entries) =>
        reply
          .code(200)
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${auditCsvFileName(new Date())}"`)
          .send(auditCsv(entries)),
    ),
  );

  const base = '/api/admin/courses/:courseId/assessments/:assessmentId';
  app.get(
    ADMIN_EXAM_DAY_CSV_ROUTE.path,
    procedureRoute(ctx, 'exam-day board export failed', (api, request) => api.admin.courses.examDayBoard(assessment(request)), sendBoardCsv),
  );
  app.post(`${base}/passwords/reveal`, guard, handle((api, request) => api.assessments.revealPasswords(assessment(request))));
  app.post(`${base}/quit-password/reset`, guard, handle((api, request) => api.assessments.resetExitPassword(assessment(request))));
  app.post(`${base}/reset-defaults`, guard, handle((api, request) => api.assessments.resetDefaults(assessment(request))));
  app.post(`${base}/protection/reapply`, guard, handle((api, request) => api.assessments.reapplyProtection(assessment(request))));
  app.post(`${base}/protection/accept-lms-code`, guard, handle((api, request) => api.assessments.acceptLmsCode(assessment(request))));
  app.post(`${base}/protection/clear-lms-code`, guard, handle((api, request) => api.assessments.clearLmsCode(assessment(request))));
  app.post(`${base}/regenerate-code`, guard, handle((api, request) => api.assessments.regenerateCode(assessment(request))));
  app.put(
    `${base}/exb`,
    guard,
    handle((api, request) =>
      api.assessments.setRequired({ ...fields(request.body), ...assessment(request) } as Parameters<AdminCaller['assessments']['setRequired']>[0]),
    ),
  );
}
