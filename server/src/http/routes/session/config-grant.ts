import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { CONFIG_GRANT_ROUTE } from '@exb/shared/service-paths.js';
import type { AppContext } from '../../../context.js';
import type { HandoffPurpose, MintOutcome } from '../../../domain/exam-browser/config-grants.js';
import { type ActionTokenCheck } from '../../../security/action-token.js';
import { sendError } from '../../kit/error-body.js';
import { sameOriginMutation } from '../../kit/mutation-guard.js';
import {
  assessmentParams,
  coursePrincipal,
  sendCourseUnverified,
  sendNoSetting,
  sendPrincipalRequired,
  sendRateLimited,
  sensitiveResponse,
  STUDENT_SESSION_AUTHORIZE_PATH,
} from '../../kit/student-access.js';

type AssessmentRoute = { Params: { courseId: string; contentId: string } };

// Only the two fields; anything else in the body is ignored. The action token bounds its own length when verified.
const grantBodySchema = z.object({
  actionToken: z.unknown().optional(),
  handoffPurpose: z.unknown().optional(),
});

type MintRefusal = Exclude<MintOutcome, { ok: true }>['reason'];

const NO_CONFIGURATION = 'No exam browser configuration is available for this quiz.';

/** The contract's answers to a grant that is not minted; the certificate's failure is the operator's, so it is logged. */
function sendMintRefusal(request: FastifyRequest, reply: FastifyReply, reason: MintRefusal): FastifyReply {
  switch (reason) {
    case 'unavailable':
      return sendNoSetting(reply, NO_CONFIGURATION);
    case 'course-unproven':
      return sendCourseUnverified(reply);
    case 'certificate-unavailable':
      // For the student this is the contract's "configuration unavailable" (404, no code); the cause is the operator's.
      request.log.warn('configuration grant refused: the encryption certificate is not usable');
      return sendNoSetting(reply, 'The exam browser configuration cannot be provided right now. Tell your LMS administrator.');
    case 'session-authorization-required':
      return sendError(reply, ErrorCodes.LMS_SESSION_AUTHORIZATION_REQUIRED, 'Connect your LMS account first, so the exam browser can sign you in to the quiz.', {
        fields: { authorizeUrl: STUDENT_SESSION_AUTHORIZE_PATH },
      });
  }
}

function sendActionTokenRefusal(reply: FastifyReply, reason: Exclude<ActionTokenCheck, { ok: true }>['reason']): FastifyReply {
  const message =
    reason === 'expired'
      ? 'This page has been open too long. Reload it, then download the configuration again.'
      : 'The request did not come from this session’s quiz page. Reload the page, then try again.';
  return sendError(reply, ErrorCodes.INVALID_ACTION_TOKEN, message);
}

/** Document 3: `POST /api/exb/config-grant/...`, from the student's session. */
export async function registerConfigGrantRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { examBrowser, actionTokens } = ctx;
  const { grants, admission } = examBrowser;

  const guard = sameOriginMutation(ctx.config.baseUrl);
  app.post<AssessmentRoute>(CONFIG_GRANT_ROUTE.path, { onRequest: [sensitiveResponse, guard] }, async (request, reply) => {
    const access = coursePrincipal(request, request.params.courseId);
    if (access === null) return sendPrincipalRequired(reply);
    const body = grantBodySchema.safeParse(request.body ?? {});
    if (!body.success) return sendError(reply, ErrorCodes.INVALID_REQUEST, 'Invalid request: expected a JSON object body');
    const token = actionTokens.verify(body.data.actionToken, access.session, 'config-grant');
    if (!token.ok) return sendActionTokenRefusal(reply, token.reason);
    const params = assessmentParams(request.params.courseId, request.params.contentId);
    if (params === null) return sendNoSetting(reply, NO_CONFIGURATION);
    if (!(await admission.configGrant(request.ip, access.principal)).allowed) return sendRateLimited(reply, 'Too many configuration requests. Try again in a minute.');

    const purpose: HandoffPurpose = body.data.handoffPurpose === 'student-list' ? 'student-list' : 'assessment';
    const outcome = await grants.mint(access.principal, params.contentId, purpose);
    if (!outcome.ok) return sendMintRefusal(request, reply, outcome.reason);
    const { exbLaunchUrl, handoffUrl, expiresInSeconds } = outcome;
    return reply.send({ success: true, exbLaunchUrl, handoffUrl, expiresInSeconds });
  });
}
