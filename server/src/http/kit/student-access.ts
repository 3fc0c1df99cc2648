import type { FastifyReply, FastifyRequest } from 'fastify';
import { authorizationStartPath } from '@exb/shared/oauth-popup-ticket.js';
import { contentIdMatchesCourse, isLmsId, parseContentId, type ParsedContentId } from '@exb/shared/content-id.js';
import { ErrorCodes, errorStatus } from '@exb/shared/error-codes.js';
import type { IdentityService } from '../../identity/identity-service.js';
import type { CoursePrincipal } from '../../identity/principal.js';
import { RATE_LIMIT_RETRY_AFTER_SECONDS } from '../../security/admission-budget.js';
import { SENSITIVE_RESPONSE_HEADERS } from '../../security/sensitive-headers.js';
import { readSession, type SessionData } from '../../security/session.js';
import { sendError } from './error-body.js';

/** The guards and refusals the student exam-browser routes share (configuration grant and download, proof, tools, exit, student). */

/** Where a student's page starts the LMS authorization that lets configurations sign the exam browser in. */
export const STUDENT_SESSION_AUTHORIZE_PATH = authorizationStartPath('student-session-authorize');

/**
 * A route hook giving a route's every response the sensitive-response headers, so responses the handler never writes
 * (body-parser errors, 404s of the router) carry them too.
 */
export function sensitiveResponse(_request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  reply.headers(SENSITIVE_RESPONSE_HEADERS);
  done();
}

export interface AssessmentParams {
  readonly courseId: string;
  readonly contentId: string;
  readonly content: ParsedContentId;
}

/** Canonical course and content ids of this course; `null` for anything else, answered without a lookup. */
export function assessmentParams(courseId: unknown, contentId: unknown): AssessmentParams | null {
  if (!isLmsId(courseId)) return null;
  const content = parseContentId(contentId);
  if (content === null || !contentIdMatchesCourse(content, courseId)) return null;
  return { courseId, contentId: contentId as string, content };
}

/** The session's instructor or student principal when it belongs to `courseId`. */
export function coursePrincipal(request: FastifyRequest, courseId: unknown): { session: SessionData; principal: CoursePrincipal } | null {
  const session = readSession(request);
  if (session === null) return null;
  const { principal } = session;
  if (principal.kind === 'admin' || principal.courseId !== courseId) return null;
  return { session, principal };
}

/**
 * The session's principal when it belongs to `courseId` and the LMS proved that course id for the session's signed
 * context (docs/architecture.md, trust model): `'unproven'` while it is not, `null` without a principal of the course. Every
 * course-scoped student route reads through this, as the configuration grant does, so a launch from another context
 * that claims a course nobody proved (a link's custom course id) reads nothing of it.
 */
export async function provenCoursePrincipal(
  request: FastifyRequest,
  courseId: unknown,
  identity: Pick<IdentityService, 'courseProvenForReading'>,
): Promise<{ session: SessionData; principal: CoursePrincipal } | 'unproven' | null> {
  const access = coursePrincipal(request, courseId);
  if (access === null) return null;
  return (await identity.courseProvenForReading(access.principal)) ? access : 'unproven';
}

/** Words of the refusal for a course not proven yet; also the configuration grant's. */
export const COURSE_UNVERIFIED_MESSAGE =
  'This course is not connected to the exam tool yet. Your teacher connects it by opening the tool in the course and connecting their LMS account; you can also connect yours.';

/** The contract's `403 LMS_COURSE_UNVERIFIED`, naming where the student connects their LMS account. */
export function sendCourseUnverified(reply: FastifyReply): FastifyReply {
  return sendError(reply.header('cache-control', reply.getHeader('cache-control') ?? 'no-store'), ErrorCodes.LMS_COURSE_UNVERIFIED, COURSE_UNVERIFIED_MESSAGE, {
    fields: { authorizeUrl: STUDENT_SESSION_AUTHORIZE_PATH },
  });
}

export function sendRateLimited(reply: FastifyReply, message: string): FastifyReply {
  reply.header('retry-after', String(RATE_LIMIT_RETRY_AFTER_SECONDS)).header('cache-control', reply.getHeader('cache-control') ?? 'no-store');
  return sendError(reply, ErrorCodes.RATE_LIMITED, message);
}

export function sendPrincipalRequired(reply: FastifyReply): FastifyReply {
  return sendError(
    reply.header('cache-control', 'no-store'),
    ErrorCodes.LTI_PRINCIPAL_REQUIRED,
    'Open this quiz from your course in the LMS; this session does not belong to it.',
  );
}

/** Words of the 404 for an assessment without a setting. */
export const NO_SETTING_MESSAGE = 'This quiz has no exam browser setting.';

/** The contract's 404 without an error code: no configuration or setting for the assessment. */
export function sendNoSetting(reply: FastifyReply, message: string): FastifyReply {
  return reply.code(errorStatus(ErrorCodes.NOT_FOUND)).send({ success: false, message });
}

/** The URL as the exam browser hashes it: everything before the first `#`. */
export function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}

