import type { FastifyInstance, FastifyReply } from 'fastify';
import { isBase64UrlToken } from '@exb/shared/base64url-token.js';
import { classicQuizPath } from '@exb/shared/lms-paths.js';
import type { AppContext } from '../context.js';
import type { HandoffPayload } from '../domain/student/config-grants.js';
import { isSameOriginOrUnmarked } from '../security/fetch-metadata.js';
import { readSession } from '../security/session.js';
import { errorBody } from './errors.js';
import {
  CROSS_SITE_CODE,
  CROSS_SITE_MESSAGE,
  assessmentParams,
  coursePrincipal,
  exbPage,
  sendRateLimited,
  sensitiveResponse,
} from './exb-student-http.js';
import { escapeHtml, htmlSecurityHeaders } from './shell.js';

export const SESSION_READINESS_PATH = '/api/exb/session-readiness';
export const SESSION_READINESS_DISMISS_PATH = '/api/exb/session-readiness/dismiss';
export const REQUIRED_BROWSER_VIEW_PATH = '/exb/quiz/:courseId/:quizId';
export const LAUNCH_HANDOFF_PATH = '/exb/launch-handoff';

const MAX_LMS_URL_LENGTH = 2048;

type QuizViewRoute = { Params: { courseId: string; quizId: string }; Querystring: { lms_url?: unknown; user_id?: unknown } };
type HandoffRoute = { Querystring: { key?: unknown } };

/**
 * Student pages and checks around the download (Document 3): the session-readiness check and its dismissal, the
 * required-browser view for classic quizzes, and the launch handoff page that opens the exam browser once.
 */
export async function registerExbStudentRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { config, shell, exbStudent, actionTokens } = ctx;
  const { readiness, requirement, store, budgets } = exbStudent;
  const htmlHeaders = htmlSecurityHeaders(config.lmsUrl);
  const lmsHome = (courseId: string) => new URL(`/courses/${courseId}`, config.lmsUrl).href;
  const lmsOrigin = new URL(config.lmsUrl).origin;

  /** A student of a course, from a request the tool's own pages made; otherwise the refusal is already sent. */
  const student = (request: Parameters<typeof readSession>[0], reply: FastifyReply) => {
    if (!isSameOriginOrUnmarked(request)) {
      reply.code(403).send(errorBody(CROSS_SITE_CODE, CROSS_SITE_MESSAGE));
      return null;
    }
    const session = readSession(request);
    if (session === null || session.principal.kind !== 'student') {
      reply.code(403).send(errorBody('LTI_STUDENT_REQUIRED', 'Open the tool from your course in the LMS as a student.'));
      return null;
    }
    return { session, principal: session.principal };
  };

  app.post(SESSION_READINESS_PATH, { onRequest: sensitiveResponse }, async (request, reply) => {
    const access = student(request, reply);
    if (access === null) return reply;
    if (!(await budgets.readiness(access.principal)).allowed) {
      return sendRateLimited(reply, 'Too many readiness checks. Try again in a minute.');
    }
    const outcome = await readiness.check(access.principal.lmsUserId, access.principal.courseId);
    if (outcome.ok) {
      // Where the student continues: the launch this session came from (the quiz's required-browser view or the
      // course listing), a local path built from the signed launch.
      return reply.send({ success: true, checks: { lmsSessionAuthorization: true }, handoffUrl: access.session.launchTarget });
    }
    switch (outcome.reason) {
      case 'authorization-required':
        return reply.code(403).send({
          ...errorBody('LMS_SESSION_AUTHORIZATION_REQUIRED', 'Connect your LMS account so the exam browser can sign you in.'),
          authorizeUrl: '/api/student-session-authorize',
        });
      case 'lms-failed':
        return reply
          .code(502)
          .send(errorBody('LMS_SESSION_READINESS_FAILED', 'The LMS could not confirm the sign-in for the exam browser. Try again later.'));
      case 'unavailable':
        return reply
          .code(503)
          .send(errorBody('LMS_SESSION_UNAVAILABLE', 'Signing the exam browser into the LMS is not set up for this tool.'));
    }
  });

  app.post(SESSION_READINESS_DISMISS_PATH, { onRequest: sensitiveResponse }, async (request, reply) => {
    const access = student(request, reply);
    if (access === null) return reply;
    await readiness.dismiss(access.principal.lmsUserId);
    return reply.send({ success: true });
  });

  app.get<QuizViewRoute>(REQUIRED_BROWSER_VIEW_PATH, async (request, reply) => {
    const params = assessmentParams(request.params.courseId, request.params.quizId);
    if (params === null) return reply.code(404).headers(htmlHeaders).type('text/plain; charset=utf-8').send('Not found');
    const notice = (status: number, title: string, message: string, code: string) =>
      shell.send(
        reply,
        { view: 'notice', title, message, variant: 'error', details: [{ label: 'Error code', value: code }], lmsReturnUrl: lmsHome(params.courseId) },
        { status, title },
      );
    if (params.content.kind !== 'classic') {
      return notice(403, 'Open this quiz from the LMS', 'This page is only for classic quizzes; open the quiz from its assignment in the LMS.', 'EXB_CLASSIC_QUIZ_ONLY');
    }
    const access = coursePrincipal(request, params.courseId);
    if (access === null) {
      return notice(403, 'Open the tool from your course', 'This session does not belong to this course. Open the quiz from your course in the LMS.', 'LTI_PRINCIPAL_REQUIRED');
    }
    const assessmentUrl = new URL(classicQuizPath(params.courseId, params.content.quizId), config.lmsUrl).href;
    const returnUrl = lmsQuizUrl(request.query.lms_url, lmsOrigin) ?? assessmentUrl;
    if (!(await requirement.isRequired(params))) return reply.header('cache-control', 'no-store').redirect(returnUrl, 302);
    const { principal, session } = access;
    const userId = typeof request.query.user_id === 'string' && /^\d{1,20}$/.test(request.query.user_id) ? request.query.user_id : undefined;
    return shell.send(reply, {
      view: 'exb-required',
      courseId: params.courseId,
      contentId: params.contentId,
      assessmentKind: 'classic',
      lmsUserId: principal.lmsUserId,
      ...(userId === undefined ? {} : { requestedUserId: userId }),
      ...(principal.name !== undefined ? { userName: principal.name } : {}),
      ...(principal.courseName !== undefined ? { courseName: principal.courseName } : {}),
      assessmentUrl,
      lmsReturnUrl: returnUrl,
      setupCheckUrl: '/exb/check',
      actionToken: actionTokens.issue(session, 'config-grant'),
    });
  });

  app.get<HandoffRoute>(LAUNCH_HANDOFF_PATH, { onRequest: sensitiveResponse }, async (request, reply) => {
    const { key } = request.query;
    const send = (status: number, html: string) => reply.code(status).headers(htmlHeaders).type('text/html; charset=utf-8').send(html);
    const consumed = isBase64UrlToken(key) ? await store.consumeAnywhere<HandoffPayload>('launch-handoff', key) : null;
    if (consumed === null) {
      return send(
        404,
        exbPage({
          title: 'This link is not valid',
          paragraphs: ['Open the quiz from your course in the LMS and download the configuration again.'],
          links: [{ href: config.lmsUrl, text: 'Go to the LMS', top: true }],
          bootstrap: { view: 'exb-launch-handoff', available: false },
        }),
      );
    }
    const returnUrl = lmsHome(consumed.courseId);
    if (consumed.consumed || consumed.payload === null) {
      return send(
        200,
        exbPage({
          title: 'The exam browser was already started',
          paragraphs: ['This link opens the exam browser only once. To start again, download a new configuration from the quiz.'],
          links: [{ href: returnUrl, text: 'Back to the course', top: true }],
          bootstrap: { view: 'exb-launch-handoff', available: false, lmsReturnUrl: returnUrl },
        }),
      );
    }
    const { exbLaunchUrl, purpose } = consumed.payload;
    return send(
      200,
      exbPage({
        title: 'Starting the exam browser',
        paragraphs: [
          'The exam browser opens with this quiz. If nothing happens, start it with the button below.',
          'The configuration can be used once and only for the next two minutes.',
        ],
        links: [
          { href: exbLaunchUrl, text: 'Open the exam browser' },
          { href: returnUrl, text: purpose === 'student-list' ? 'Back to the quiz list' : 'Back to the course', top: true },
        ],
        bootstrap: { view: 'exb-launch-handoff', available: true, exbLaunchUrl, lmsReturnUrl: returnUrl, purpose },
        head: `<meta http-equiv="refresh" content="0;url=${escapeHtml(exbLaunchUrl)}">`,
      }),
    );
  });
}

/** The LMS page a student came from, only if it is an absolute URL on the LMS origin. */
function lmsQuizUrl(value: unknown, lmsOrigin: string): string | null {
  if (typeof value !== 'string' || value.length > MAX_LMS_URL_LENGTH) return null;
  try {
    const url = new URL(value);
    return url.origin === lmsOrigin && url.username === '' && url.password === '' ? url.href : null;
  } catch {
    return null;
  }
}
