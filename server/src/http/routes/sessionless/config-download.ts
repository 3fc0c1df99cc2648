import { ErrorCodes, type ErrorCode } from '@exb/shared/error-codes.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { isBase64UrlToken } from '@exb/shared/base64url-token.js';
import type { AppContext } from '../../../context.js';
import type { DownloadFailure, HandoffPurpose, MintOutcome } from '../../../domain/exam-browser/config-grants.js';
import { parseConfigFileName } from '../../../exb/config-file-type.js';
import { type ActionTokenCheck } from '../../../security/action-token.js';
import { errorBody } from '../../kit/error-body.js';
import { assessmentParams, coursePrincipal, sendNoSetting, sendPrincipalRequired, sendCourseUnverified, sendRateLimited, sensitiveResponse, STUDENT_SESSION_AUTHORIZE_PATH } from '../../kit/student-access.js';
import { sameOriginMutation } from '../../kit/mutation-guard.js';
import { clientSignal } from '../../kit/client-signal.js';

export const CONFIG_GRANT_PATH = '/api/exb/config-grant/:courseId/:contentId';
export const CONFIG_DOWNLOAD_PATH = '/exb/config/:courseId/:fileName';

type AssessmentRoute = { Params: { courseId: string; contentId: string } };
type DownloadRoute = { Params: { courseId: string; fileName: string }; Querystring: { grant?: unknown } };

// Only the two fields; anything else in the body is ignored. The action token bounds its own length when verified.
const grantBodySchema = z.object({
  actionToken: z.unknown().optional(),
  handoffPurpose: z.unknown().optional(),
});

const DOWNLOAD_FAILURES: Record<DownloadFailure, { status: number; code: ErrorCode; message: string }> = {
  'grant-invalid': {
    status: 403,
    code: ErrorCodes.EXB_CONFIG_GRANT_INVALID,
    message:
      'This download link is missing, expired or already used, or the quiz settings changed since it was made. Download the configuration again from the quiz.',
  },
  'certificate-unavailable': {
    status: 400,
    code: ErrorCodes.EXB_CERTIFICATE_UNAVAILABLE,
    message: 'The exam browser configuration cannot be encrypted right now. Tell your instructor or LMS administrator.',
  },
  'policy-unwritable': {
    status: 400,
    code: ErrorCodes.EXB_CONFIG_UNAVAILABLE,
    message: 'The exam browser configuration for this quiz could not be built. Tell your instructor.',
  },
};

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
      return reply.code(403).send({
        ...errorBody(ErrorCodes.LMS_SESSION_AUTHORIZATION_REQUIRED, 'Connect your LMS account first, so the exam browser can sign you in to the quiz.'),
        authorizeUrl: STUDENT_SESSION_AUTHORIZE_PATH,
      });
  }
}

function sendActionTokenRefusal(reply: FastifyReply, reason: Exclude<ActionTokenCheck, { ok: true }>['reason']): FastifyReply {
  const message =
    reason === 'expired'
      ? 'This page has been open too long. Reload it, then download the configuration again.'
      : 'The request did not come from this session’s quiz page. Reload the page, then try again.';
  return reply.code(403).send(errorBody(ErrorCodes.INVALID_ACTION_TOKEN, message));
}

/** Document 3: `POST /api/exb/config-grant/...`, from the student's session. */
export async function registerConfigGrantRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { examBrowser, actionTokens } = ctx;
  const { grants, admission } = examBrowser;

  const guard = sameOriginMutation(ctx.config.baseUrl);
  app.post<AssessmentRoute>(CONFIG_GRANT_PATH, { onRequest: [sensitiveResponse, guard] }, async (request, reply) => {
    const access = coursePrincipal(request, request.params.courseId);
    if (access === null) return sendPrincipalRequired(reply);
    const body = grantBodySchema.safeParse(request.body ?? {});
    if (!body.success) return reply.code(400).send(errorBody(ErrorCodes.INVALID_REQUEST, 'Invalid request: expected a JSON object body'));
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

/**
 * Document 3: `GET`/`HEAD /exb/config/:courseId/:contentId.exb`. The exam browser fetches it without the user's cookies:
 * the grant in the query is all its authorization, so the route needs no session. The same download is also served as
 * `:contentId.seb`, named and typed as Safe Exam Browser's file (`exb/config-file-type.ts`), which is where launch URLs
 * lead; both names take the same grant, and it is spent once whichever is used.
 */
export async function registerConfigDownloadRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { grants, admission } = ctx.examBrowser;

  const download = (method: 'GET' | 'HEAD') => async (request: FastifyRequest<DownloadRoute>, reply: FastifyReply) => {
    reply.headers({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' });
    const file = parseConfigFileName(request.params.fileName);
    const params = file === null ? null : assessmentParams(request.params.courseId, file.stem);
    if (file === null || params === null) return reply.callNotFound();
    const grant = request.query.grant;
    if (!isBase64UrlToken(grant)) return sendDownloadFailure(reply, 'grant-invalid');
    if (!(await admission.configDownload(request.ip)).allowed) {
      return sendRateLimited(reply, 'Too many configuration downloads. Try again in a minute.');
    }

    const headers = {
      'content-type': file.type.contentType,
      'content-disposition': `attachment; filename=quiz_${params.courseId}_${params.contentId}${file.type.extension}`,
      'content-description': 'File Transfer',
    };
    if (method === 'HEAD') {
      if (!(await grants.check(params.courseId, params.contentId, grant))) return sendDownloadFailure(reply, 'grant-invalid');
      return reply.headers(headers).send();
    }
    const outcome = await grants.download(params.courseId, params.contentId, grant, clientSignal(reply));
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
