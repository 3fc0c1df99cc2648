import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { EXAM_DAY_CSV_ROUTE } from '@exb/shared/service-paths.js';
import type { AppContext } from '../../../context.js';
import { procedureRoute, type ProcedureCaller } from '../../kit/procedure-route.js';
import { sendBoardCsv } from '../../kit/board-csv.js';

type InstructorCaller = ProcedureCaller['instructor'];
type Params = Record<string, string>;

/**
 * Body fields plus path (or query) fields, the latter winning. A body that is not an object is passed on as it is, so
 * the procedure's input check refuses it.
 */
function withPath(body: unknown, path: Record<string, unknown>): unknown {
  const fields = body ?? {};
  return typeof fields === 'object' && fields !== null && !Array.isArray(fields) ? { ...fields, ...path } : fields;
}

/**
 * The instructor routes of Document 2 (`/api/quizzes/...`) as thin adapters over the instructor procedures: each
 * route turns path, query and body into the procedure's input, calls it through a server-side caller built on the
 * request (so the session, the Fetch Metadata check and every rule run exactly as for the typed client), and sends
 * the result or the mapped refusal. Static segments (`exb-settings`, `exb-config-structured`, `course`) take
 * precedence over the parametric ones in the router, so they are never read as a quiz id.
 */
export async function registerQuizzesRestRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const handle = <T>(call: (api: InstructorCaller, request: FastifyRequest) => Promise<T>, respond?: (reply: FastifyReply, result: T) => FastifyReply) =>
    procedureRoute(ctx, 'instructor route failed', (api, request) => call(api.instructor, request), respond);

  const params = (request: FastifyRequest) => request.params as Params;

  app.get('/api/quizzes', handle((api) => api.assessments.list()));
  app.get('/api/quizzes/exb-settings', handle((api) => api.assessments.settings()));
  app.get('/api/quizzes/exb-verification', handle((api) => api.assessments.verification()));
  app.post(
    '/api/quizzes/exb-config-structured',
    handle((api, request) =>
      api.policy.saveStructured(
        withPath(request.body, { userId: (request.query as Record<string, unknown>).userId }) as Parameters<InstructorCaller['policy']['saveStructured']>[0],
      ),
    ),
  );
  app.get('/api/quizzes/:quizId', handle((api, request) => api.assessments.get({ quizId: params(request).quizId! })));
  app.put(
    '/api/quizzes/:quizId/exb',
    handle((api, request) =>
      api.enforcement.setRequired(
        withPath(request.body, { quizId: params(request).quizId }) as Parameters<InstructorCaller['enforcement']['setRequired']>[0],
      ),
    ),
  );

  app.post('/api/quizzes/course/:courseId/refresh', handle((api, request) => api.assessments.refresh({ courseId: params(request).courseId! })));
  app.get('/api/quizzes/course/:courseId/defaults', handle((api, request) => api.courseDefaults.get({ courseId: params(request).courseId! })));
  app.put(
    '/api/quizzes/course/:courseId/defaults',
    handle((api, request) =>
      api.courseDefaults.save(
        withPath(request.body, { courseId: params(request).courseId }) as Parameters<InstructorCaller['courseDefaults']['save']>[0],
      ),
    ),
  );
  app.get(
    '/api/quizzes/course/:courseId/exam-tools/:toolId/copy-targets',
    handle((api, request) => api.examTools.copyTargets({ courseId: params(request).courseId!, toolId: params(request).toolId! })),
  );
  app.post(
    '/api/quizzes/course/:courseId/exam-tools/:toolId/copy',
    handle((api, request) =>
      api.examTools.copy(
        withPath(request.body, { courseId: params(request).courseId, toolId: params(request).toolId }) as Parameters<
          InstructorCaller['examTools']['copy']
        >[0],
      ),
    ),
  );
  app.post('/api/quizzes/course/:courseId/passwords/reveal', handle((api, request) => api.passwords.revealCourse({ courseId: params(request).courseId! })));

  const assessment = (request: FastifyRequest) => ({ courseId: params(request).courseId!, quizId: params(request).quizId! });
  app.post('/api/quizzes/:courseId/:quizId/exb/enable', handle((api, request) => api.enforcement.enable(assessment(request))));
  app.post('/api/quizzes/:courseId/:quizId/exb/disable', handle((api, request) => api.enforcement.disable(assessment(request))));
  app.post('/api/quizzes/:courseId/:quizId/exb/reset-defaults', handle((api, request) => api.enforcement.resetDefaults(assessment(request))));
  app.post('/api/quizzes/:courseId/:quizId/exb/regenerate-code', handle((api, request) => api.enforcement.regenerateCode(assessment(request))));
  app.post('/api/quizzes/:courseId/:quizId/exb/protection/reapply', handle((api, request) => api.enforcement.reapplyProtection(assessment(request))));
  app.post('/api/quizzes/:courseId/:quizId/exb/protection/accept-lms-code', handle((api, request) => api.enforcement.acceptLmsCode(assessment(request))));
  app.post('/api/quizzes/:courseId/:quizId/exb/protection/clear-lms-code', handle((api, request) => api.enforcement.clearLmsCode(assessment(request))));
  // Addition (exam day): the body names the student (`lmsUserId`) and the reason.
  app.post(
    '/api/quizzes/:courseId/:quizId/exb/exempt-student',
    handle((api, request) =>
      api.assessments.exemptStudent(withPath(request.body, assessment(request)) as Parameters<InstructorCaller['assessments']['exemptStudent']>[0]),
    ),
  );
  app.get(
    '/api/quizzes/:courseId/:quizId/exb/config',
    handle(
      (api, request) => api.enforcement.configLocation(assessment(request)),
      (reply, result) => reply.redirect(result.location, 302),
    ),
  );
  // The contract's status view; the rules as matched (`websiteRules`) are for the teacher's own view only.
  app.get(
    '/api/quizzes/:courseId/:quizId/exb/status',
    handle(async (api, request) => {
      const { websiteRules: _rules, ...view } = await api.enforcement.status(assessment(request));
      return view;
    }),
  );
  // The exam-day board as a spreadsheet: a download link, so the session token may ride in its query.
  app.get(EXAM_DAY_CSV_ROUTE.path, handle((api, request) => api.enforcement.examDayBoard(assessment(request)), sendBoardCsv));
  app.post('/api/quizzes/:courseId/:quizId/passwords/reveal', handle((api, request) => api.passwords.revealAssessment(assessment(request))));
}
