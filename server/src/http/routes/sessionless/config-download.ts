import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isBase64UrlToken } from '@exb/shared/base64url-token.js';
import { ErrorCodes, type AnswerErrorCode } from '@exb/shared/error-codes.js';
import { CONFIG_DOWNLOAD_ROUTE } from '@exb/shared/service-paths.js';
import type { AppContext } from '../../../context.js';
import type { DownloadFailure } from '../../../domain/exam-browser/config-grants.js';
import { parseConfigFileName } from '../../../exb/config-file-type.js';
import { clientSignal } from '../../kit/client-signal.js';
import { sendError } from '../../kit/error-body.js';
import { assessmentParams, sendRateLimited } from '../../kit/student-access.js';

type DownloadRoute = { Params: { courseId: string; fileName: string }; Querystring: { grant?: unknown } };

const DOWNLOAD_FAILURES: Record<DownloadFailure, { code: AnswerErrorCode; message: string }> = {
  'grant-invalid': {
    code: ErrorCodes.EXB_CONFIG_GRANT_INVALID,
    message:
      'This download link is missing, expired or already used, or the quiz settings changed since it was made. Download the configuration again from the quiz.',
  },
  'certificate-unavailable': {
    code: ErrorCodes.EXB_CERTIFICATE_UNAVAILABLE,
    message: 'The exam browser configuration cannot be encrypted right now. Tell your instructor or LMS administrator.',
  },
  'policy-unwritable': {
    code: ErrorCodes.EXB_CONFIG_UNAVAILABLE,
    message: 'The exam browser configuration for this quiz could not be built. Tell your instructor.',
  },
};

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
  app.head<DownloadRoute>(CONFIG_DOWNLOAD_ROUTE.path, download('HEAD'));
  app.get<DownloadRoute>(CONFIG_DOWNLOAD_ROUTE.path, { exposeHeadRoute: false }, download('GET'));
}

function sendDownloadFailure(reply: FastifyReply, reason: DownloadFailure): FastifyReply {
  const failure = DOWNLOAD_FAILURES[reason];
  return sendError(reply, failure.code, failure.message, { at: 'configDownload' });
}
