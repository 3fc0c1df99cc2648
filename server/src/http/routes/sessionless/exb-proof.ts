import type { FastifyInstance } from 'fastify';
import { ACCESS_CODE_ROUTE, ACCESS_PROOF_ROUTE, REQUIREMENT_ROUTE, TOOLS_ROUTE } from '@exb/shared/service-paths.js';
import { isBase64UrlToken } from '@exb/shared/base64url-token.js';
import { matchAssessmentPage } from '@exb/shared/lms-paths.js';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import type { AppContext } from '../../../context.js';
import { EXIT_GRANT_TTL_SECONDS, PROOF_TOKEN_TTL_SECONDS } from '../../../domain/exam-browser/proof-redemption.js';
import { sendError } from '../../kit/error-body.js';
import {
  assessmentParams,
  provenCoursePrincipal,
  sendCourseUnverified,
  NO_SETTING_MESSAGE,
  sendNoSetting,
  sendPrincipalRequired,
  sendRateLimited,
  sensitiveResponse,
  withoutFragment,
} from '../../kit/student-access.js';
import { allowLmsOrigin } from '../../kit/lms-cors.js';
import { clientSignal } from '../../kit/client-signal.js';

export const PROOF_TOKEN_HEADER = 'x-exb-proof-token';
export const CONFIG_KEY_HASH_HEADER = 'x-exb-configkeyhash';

/** The contract's exact header: LMS pages ask on every load and must never see a cached answer. */
export const REQUIREMENT_CACHE_CONTROL = 'private, no-store, max-age=0';

const INVALID_PROOF_MESSAGE =
  'The exam browser configuration does not match this quiz or is out of date. Download a fresh configuration from the quiz.';

// Lengths far above real values (a hash is 64 characters, a page URL well under a kilobyte) bound the work on input.
const MAX_URL_LENGTH = 4096;
const MAX_HASH_LENGTH = 256;
const CONFIG_KEY_HASH = /^[0-9a-fA-F]{64}$/;

type AssessmentRoute = { Params: { courseId: string; quizId: string } };

/**
 * The requirement check LMS quiz pages ask on every load (Document 3, "Requirement"): public, bodiless, and readable
 * by pages on the LMS origin.
 */
export async function registerRequirementRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { requirement, admission } = ctx.examBrowser;
  allowLmsOrigin(app, ctx, { paths: [REQUIREMENT_ROUTE.path], methods: ['GET'], headers: [] });

  // `/api/exb/requirement/:courseId/:quizId`, registered as a wildcard: the router refuses an over-long parameter
  // itself, and this route answers 200 to everything.
  app.get<{ Params: { '*': string } }>(REQUIREMENT_ROUTE.path, async (request, reply) => {
    const segments = request.params['*'].split('/');
    const exbRequired =
      segments.length === 2 &&
      (await requirement.isRequired(
        { courseId: segments[0] as string, contentId: segments[1] as string },
        async () => (await admission.requirementLookup(request.ip)).allowed,
      ));
    return reply.header('cache-control', REQUIREMENT_CACHE_CONTROL).send({ success: true, exbRequired });
  });
}

/**
 * The public routes the detector calls from LMS quiz pages to release the code (Document 3, "Proof, redemption"): the
 * proof is the authentication, and the proof token carries it to the redemption, so neither reads a session. Pages on
 * the LMS origin may call them from the browser.
 */
export async function registerExbProofRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { config, examBrowser } = ctx;
  const { proofs, admission } = examBrowser;
  const allowHttpLoopback = !config.production;

  allowLmsOrigin(app, ctx, { paths: [ACCESS_PROOF_ROUTE.path], methods: ['POST'], headers: ['content-type', CONFIG_KEY_HASH_HEADER] });
  allowLmsOrigin(app, ctx, { paths: [ACCESS_CODE_ROUTE.path], methods: ['POST'], headers: ['content-type', PROOF_TOKEN_HEADER] });

  app.post<AssessmentRoute>(ACCESS_PROOF_ROUTE.path, { onRequest: sensitiveResponse }, async (request, reply) => {
    const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<string, unknown>;
    const headerHash = request.headers[CONFIG_KEY_HASH_HEADER];
    const configKeyHash = body.configKeyHash ?? (typeof headerHash === 'string' ? headerHash : undefined);
    const { url } = body;
    if (typeof configKeyHash !== 'string' || configKeyHash.length === 0 || configKeyHash.length > MAX_HASH_LENGTH) {
      return sendError(reply, ErrorCodes.INVALID_REQUEST, 'Invalid request: configKeyHash (body or x-exb-configkeyhash) is required');
    }
    if (typeof url !== 'string' || url.length === 0 || url.length > MAX_URL_LENGTH) {
      return sendError(reply, ErrorCodes.INVALID_REQUEST, 'Invalid request: url is required');
    }
    const params = assessmentParams(request.params.courseId, request.params.quizId);
    if (params === null) return sendNoSetting(reply, NO_SETTING_MESSAGE);
    if (!(await admission.proof(request.ip)).allowed) {
      return sendRateLimited(reply, 'Too many access proofs from this network. Try again in a minute.');
    }
    // Pure checks before any lookup: a hash that cannot be one, or a page that is not this quiz's, proves nothing.
    const page = withoutFragment(url);
    if (
      !CONFIG_KEY_HASH.test(configKeyHash) ||
      !matchAssessmentPage(page, { lmsOrigin: config.lmsUrl, courseId: params.courseId, contentId: params.contentId, allowHttpLoopback })
    ) {
      return sendError(reply, ErrorCodes.INVALID_EXB_CONFIG_PROOF, INVALID_PROOF_MESSAGE);
    }
    const outcome = await proofs.prove(params.courseId, params.contentId, configKeyHash, page);
    if (outcome.ok) return reply.send({ success: true, proofToken: outcome.proofToken, expiresInSeconds: PROOF_TOKEN_TTL_SECONDS });
    if (outcome.reason === 'not-found') return sendNoSetting(reply, NO_SETTING_MESSAGE);
    return sendError(reply, ErrorCodes.INVALID_EXB_CONFIG_PROOF, INVALID_PROOF_MESSAGE);
  });

  app.post<AssessmentRoute>(ACCESS_CODE_ROUTE.path, { onRequest: sensitiveResponse }, async (request, reply) => {
    const params = assessmentParams(request.params.courseId, request.params.quizId);
    if (params === null) return sendNoSetting(reply, NO_SETTING_MESSAGE);
    const proofToken = request.headers[PROOF_TOKEN_HEADER];
    if (!isBase64UrlToken(proofToken)) {
      return sendError(reply, ErrorCodes.INVALID_EXB_PROOF_TOKEN, 'A valid x-exb-proof-token header is required.');
    }
    if (!(await admission.redemption(request.ip)).allowed) {
      return sendRateLimited(reply, 'Too many access-code requests from this network. Try again in a minute.');
    }
    const outcome = await proofs.redeem(params.courseId, params.contentId, proofToken, clientSignal(reply));
    if (outcome.ok) {
      return reply.send({
        success: true,
        accessCode: outcome.accessCode,
        exitGrant: outcome.exitGrant,
        exitGrantExpiresInSeconds: EXIT_GRANT_TTL_SECONDS,
        tools: outcome.tools,
      });
    }
    if (outcome.reason === 'not-found') return sendNoSetting(reply, NO_SETTING_MESSAGE);
    return sendError(reply, ErrorCodes.INVALID_EXB_PROOF_TOKEN, 'The proof is unknown, expired or already used, or the quiz settings changed. Prove again.');
  });

  app.get<AssessmentRoute>(ACCESS_CODE_ROUTE.path, { onRequest: sensitiveResponse }, async (_request, reply) =>
    sendError(reply.header('allow', 'POST'), ErrorCodes.METHOD_NOT_ALLOWED, 'Use POST with the x-exb-proof-token header.'),
  );

}
