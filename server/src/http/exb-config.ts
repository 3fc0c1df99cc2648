import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { isBase64UrlToken } from '@exb/shared/base64url-token.js';
import type { AppContext } from '../context.js';
import type { DownloadFailure, HandoffPurpose } from '../domain/student/config-grants.js';
import { ACTION_TOKEN_ERROR_CODE } from '../security/action-token.js';
import { isSameOriginOrUnmarked } from '../security/fetch-metadata.js';
import { errorBody } from './errors.js';
import {
  CROSS_SITE_CODE,
  CROSS_SITE_MESSAGE,
  assessmentParams,
  coursePrincipal,
  sendNoSetting,
  sendPrincipalRequired,
  sendRateLimited,
  sensitiveResponse,
} from './exb-student-http.js';

export const CONFIG_GRANT_PATH = '/api/exb/config-grant/:courseId/:contentId';
export const CONFIG_DOWNLOAD_PATH = '/exb/config/:courseId/:fileName';

const CONFIG_FILE_EXTENSION = '.exb';

type AssessmentRoute = { Params: { courseId: string; contentId: string } };
type DownloadRoute = { Params: { courseId: string; fileName: string }; Querystring: { grant?: unknown } };

// Only the two fields; anything else in the body is ignored. The action token bounds its own length when verified.
const grantBodySchema = z.object({
  actionToken: z.unknown().optional(),
  handoffPurpose: z.unknown().optional(),
});

const DOWNLOAD_FAILURES: Record<DownloadFailure, { status: number; code: string; message: string }> = {
  'grant-invalid': {
    status: 403,
    code: 'EXB_CONFIG_GRANT_INVALID',
    message:
      'This download link is missing, expired or already used, or the quiz settings changed since it was made. Download the configuration again from the quiz.',
  },
  'certificate-unavailable': {
    status: 400,
    code: 'EXB_CERTIFICATE_UNAVAILABLE',
    message: 'The exam browser configuration cannot be encrypted right now. Tell your instructor or LMS administrator.',
  },
  'policy-unwritable': {
    status: 400,
    code: 'EXB_CONFIG_UNAVAILABLE',
    message: 'The exam browser configuration for this quiz could not be built. Tell your instructor.',
  },
  'lms-session-authorization-required': {
    status: 400,
    code: 'LMS_SESSION_AUTHORIZATION_REQUIRED',
    message: 'The tool may no longer sign you into the LMS. Open the quiz from the LMS again and connect your LMS account.',
  },
  'lms-session-unavailable': {
    status: 400,
    code: 'LMS_SESSION_UNAVAILABLE',
    message: 'The LMS did not provide a sign-in for the exam browser. Try again in a moment.',
  },
};

/** Document 3: `POST /api/exb/config-grant/...` and `GET`/`HEAD /exb/config/:courseId/:contentId.exb`. */
export async function registerExbConfigRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { exbStudent, actionTokens } = ctx;
  const { grants, budgets } = exbStudent;

  app.post<AssessmentRoute>(CONFIG_GRANT_PATH, { onRequest: sensitiveResponse }, async (request, reply) => {
    // First, so a page of another site learns nothing about the session.
    if (!isSameOriginOrUnmarked(request)) return reply.code(403).send(errorBody(CROSS_SITE_CODE, CROSS_SITE_MESSAGE));
    const access = coursePrincipal(request, request.params.courseId);
    if (access === null) return sendPrincipalRequired(reply);
    const body = grantBodySchema.safeParse(request.body ?? {});
    if (!body.success) return reply.code(400).send(errorBody('INVALID_REQUEST', 'Invalid request: expected a JSON object body'));
    const token = actionTokens.verify(body.data.actionToken, access.session, 'config-grant');
    if (!token.ok) {
      return reply
        .code(403)
        .send(
          errorBody(
            ACTION_TOKEN_ERROR_CODE,
            token.reason === 'expired'
              ? 'This page has been open too long. Reload it, then download the configuration again.'
              : 'The request did not come from this session’s quiz page. Reload the page, then try again.',
          ),
        );
    }
    const params = assessmentParams(request.params.courseId, request.params.contentId);
    if (params === null) return sendNoSetting(reply, 'No exam browser configuration is available for this quiz.');
    const admission = await budgets.configGrant(request.ip, access.principal);
    if (!admission.allowed) return sendRateLimited(reply, 'Too many configuration requests. Try again in a minute.');

    const purpose: HandoffPurpose = body.data.handoffPurpose === 'student-list' ? 'student-list' : 'assessment';
    const outcome = await grants.mint(access.principal, params.contentId, purpose);
    if (outcome.ok) {
      return reply.send({
        success: true,
        exbLaunchUrl: outcome.exbLaunchUrl,
        handoffUrl: outcome.handoffUrl,
        expiresInSeconds: outcome.expiresInSeconds,
      });
    }
    switch (outcome.reason) {
      case 'unavailable':
        return sendNoSetting(reply, 'No exam browser configuration is available for this quiz.');
      case 'certificate-unavailable':
        return reply
          .code(503)
          .send(
            errorBody(
              'EXB_CERTIFICATE_UNAVAILABLE',
              'The exam browser configuration cannot be provided right now. Tell your LMS administrator.',
            ),
          );
      case 'session-authorization-required':
        return reply.code(403).send({
          ...errorBody(
            'LMS_SESSION_AUTHORIZATION_REQUIRED',
            'Connect your LMS account first, so the exam browser can sign you in to the quiz.',
          ),
          authorizeUrl: '/api/student-session-authorize',
        });
    }
  });

  const download = (method: 'GET' | 'HEAD') => async (request: FastifyRequest<DownloadRoute>, reply: FastifyReply) => {
    reply.headers({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' });
    const { fileName } = request.params;
    const params = fileName.endsWith(CONFIG_FILE_EXTENSION)
      ? assessmentParams(request.params.courseId, fileName.slice(0, -CONFIG_FILE_EXTENSION.length))
      : null;
    if (params === null) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    const grant = request.query.grant;
    if (!isBase64UrlToken(grant)) return sendDownloadFailure(reply, 'grant-invalid');
    if (!(await budgets.configDownload(request.ip)).allowed) {
      return sendRateLimited(reply, 'Too many configuration downloads. Try again in a minute.');
    }

    const headers = {
      'content-type': 'application/octet-stream',
      'content-disposition': `attachment; filename=quiz_${params.courseId}_${params.contentId}${CONFIG_FILE_EXTENSION}`,
      'content-description': 'File Transfer',
    };
    if (method === 'HEAD') {
      if (!(await grants.check(params.courseId, params.contentId, grant))) return sendDownloadFailure(reply, 'grant-invalid');
      return reply.headers(headers).send();
    }
    const outcome = await grants.download(params.courseId, params.contentId, grant);
    if (!outcome.ok) {
      request.log.info({ reason: outcome.reason }, 'configuration download refused');
      return sendDownloadFailure(reply, outcome.reason);
    }
    return reply.headers(headers).send(outcome.bytes);
  };
  app.head<DownloadRoute>(CONFIG_DOWNLOAD_PATH, download('HEAD'));
  app.get<DownloadRoute>(CONFIG_DOWNLOAD_PATH, { exposeHeadRoute: false }, download('GET'));
}

function sendDownloadFailure(reply: FastifyReply, reason: DownloadFailure): FastifyReply {
  const failure = DOWNLOAD_FAILURES[reason];
  return reply.code(failure.status).send(errorBody(failure.code, failure.message));
}
