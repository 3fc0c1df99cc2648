import type { FastifyInstance } from 'fastify';
import { TOOLS_ROUTE } from '@exb/shared/service-paths.js';
import type { AppContext } from '../../../context.js';
import { allowLmsOrigin } from '../../kit/lms-cors.js';
import {
  assessmentParams,
  NO_SETTING_MESSAGE,
  provenCoursePrincipal,
  sendCourseUnverified,
  sendNoSetting,
  sendPrincipalRequired,
  sensitiveResponse,
} from '../../kit/student-access.js';

type AssessmentRoute = { Params: { courseId: string; quizId: string } };

/** Document 3, "tools": the approved tools of an assessment, for the student's session only; called with the service's cookies. */
export async function registerExbToolsRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { proofs } = ctx.examBrowser;
  allowLmsOrigin(app, ctx, { paths: [TOOLS_ROUTE.path], methods: ['GET'], credentials: true, headers: [] });

  app.get<AssessmentRoute>(TOOLS_ROUTE.path, { onRequest: sensitiveResponse }, async (request, reply) => {
    const access = await provenCoursePrincipal(request, request.params.courseId, ctx.identity);
    if (access === null) return sendPrincipalRequired(reply);
    // Tool URLs may carry keys (`?k=…`): only a course the LMS proved for this launch's context lists them.
    if (access === 'unproven') return sendCourseUnverified(reply);
    const params = assessmentParams(request.params.courseId, request.params.quizId);
    if (params === null) return sendNoSetting(reply, NO_SETTING_MESSAGE);
    return reply.send({ success: true, tools: await proofs.tools(params.courseId, params.contentId) });
  });
}
