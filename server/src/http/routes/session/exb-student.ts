import { ErrorCodes, errorStatus, type ErrorCode } from '@exb/shared/error-codes.js';
import {
  EXEMPTION_RELEASE_ROUTE,
  REQUIRED_BROWSER_VIEW_ROUTE,
  REQUIRED_NEW_QUIZ_VIEW_ROUTE,
  SESSION_READINESS_DISMISS_ROUTE,
  SESSION_READINESS_ROUTE,
  SETUP_CHECK_ROUTE,
} from '@exb/shared/service-paths.js';
import type { Catalogue } from '@exb/shared/i18n/catalogues.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isLmsId, parseContentId } from '@exb/shared/content-id.js';
import type { AppContext } from '../../../context.js';
import { translator } from '../../../i18n/translator.js';
import { lmsAssessmentUrl, lmsCourseUrl, lmsToolLaunchUrl } from '../../../lms/pages.js';
import { readSession, requestLocale } from '../../../security/session.js';
import { sendError } from '../../kit/error-body.js';
import {
  assessmentParams,
  provenCoursePrincipal,
  sendCourseUnverified,
  sendPrincipalRequired,
  sendRateLimited,
  sensitiveResponse,
  STUDENT_SESSION_AUTHORIZE_PATH,
} from '../../kit/student-access.js';
import { exbLaunchPath } from '../../../lti/launch-target.js';
import { sameOriginMutation } from '../../kit/mutation-guard.js';
import { htmlSecurityHeaders } from '../../../pages/shell.js';
import { isDomainError } from '../../../domain-error.js';

const MAX_LMS_URL_LENGTH = 2048;

type QuizViewRoute = { Params: { courseId: string; quizId: string }; Querystring: { lms_url?: unknown; user_id?: unknown } };

interface Notice {
  readonly status: number;
  /** Its title and message in the `launch` catalogue (`launch:notice.<words>.*`). */
  readonly words: keyof Catalogue['launch']['notice'];
  readonly code: ErrorCode;
}

const CLASSIC_QUIZ_ONLY: Notice = { status: errorStatus(ErrorCodes.EXB_CLASSIC_QUIZ_ONLY), words: 'classicQuizOnly', code: ErrorCodes.EXB_CLASSIC_QUIZ_ONLY };
const COURSE_UNVERIFIED: Notice = { status: errorStatus(ErrorCodes.LMS_COURSE_UNVERIFIED), words: 'courseUnverified', code: ErrorCodes.LMS_COURSE_UNVERIFIED };

/** A notice worded on the server in the request's language; the view shows it as it arrives. */
function sendNotice(reply: FastifyReply, ctx: AppContext, courseId: string, notice: Notice): FastifyReply {
  const { status, words, code } = notice;
  const locale = requestLocale(reply.request);
  const t = translator(locale);
  const title = t(`launch:notice.${words}.title`);
  const message = t(`launch:notice.${words}.message`);
  const details = [{ label: t('launch:errorCode'), value: code }];
  const lmsReturnUrl = lmsCourseUrl(ctx.config.lmsUrl, courseId);
  return ctx.shell.send(reply, { view: 'notice', title, message, variant: 'error', details, lmsReturnUrl }, { status, title, locale });
}

/**
 * Student pages and checks around the download (Document 3): the session-readiness check and its dismissal, and the
 * required-browser view for classic quizzes.
 */
export async function registerExbStudentRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { config, shell, examBrowser, actionTokens } = ctx;
  const { readiness, readinessDismissals, requirement, admission } = examBrowser;
  const htmlHeaders = htmlSecurityHeaders(config.lmsUrl);
  const lmsOrigin = new URL(config.lmsUrl).origin;

  /** A student of a course; otherwise the refusal is already sent. */
  const student = (request: Parameters<typeof readSession>[0], reply: FastifyReply) => {
    const session = readSession(request);
    if (session === null || session.principal.kind !== 'student') {
      sendError(reply, ErrorCodes.LTI_STUDENT_REQUIRED, 'Open the tool from your course in the LMS as a student.');
      return null;
    }
    return { session, principal: session.principal };
  };

  // The mutation guard runs first, so a page of another site learns nothing about the session.
  const mutation = { onRequest: [sensitiveResponse, sameOriginMutation(config.baseUrl)] };
  app.post(SESSION_READINESS_ROUTE.path, mutation, async (request, reply) => {
    const access = student(request, reply);
    if (access === null) return reply;
    if (!(await admission.readiness(access.principal)).allowed) {
      return sendRateLimited(reply, 'Too many readiness checks. Try again in a minute.');
    }
    const outcome = await readiness.check(access.principal);
    if (outcome.ok) {
      // Where the student continues: the launch this session came from (the quiz's required-browser view or the
      // course listing), a local path built from the signed launch.
      return reply.send({
        success: true,
        checks: { lmsSessionAuthorization: true, lmsTermsAcceptanceRequired: outcome.termsAcceptanceRequired },
        handoffUrl: access.session.launchTarget,
      });
    }
    switch (outcome.reason) {
      case 'authorization-required':
        return sendError(reply, ErrorCodes.LMS_SESSION_AUTHORIZATION_REQUIRED, 'Connect your LMS account so the exam browser can sign you in.', {
          fields: { authorizeUrl: STUDENT_SESSION_AUTHORIZE_PATH },
        });
      case 'lms-failed':
        return sendError(reply, ErrorCodes.LMS_SESSION_READINESS_FAILED, 'The LMS could not confirm the sign-in for the exam browser. Try again later.');
      case 'unavailable':
        return sendError(reply, ErrorCodes.LMS_SESSION_UNAVAILABLE, 'Signing the exam browser into the LMS is not set up for this tool.');
    }
  });

  app.post(SESSION_READINESS_DISMISS_ROUTE.path, mutation, async (request, reply) => {
    const access = student(request, reply);
    if (access === null) return reply;
    await readinessDismissals.dismiss(access.principal.lmsUserId);
    return reply.send({ success: true });
  });

  /**
   * Exam day: the access code an exemption from the exam browser releases, once, to the student it names, on their own
   * page in an ordinary browser. Only the session's own student of a proven course; the code is in the answer only.
   */
  app.post<{ Params: { courseId: string; contentId: string } }>(EXEMPTION_RELEASE_ROUTE.path, mutation, async (request, reply) => {
    if (student(request, reply) === null) return reply;
    const params = assessmentParams(request.params.courseId, request.params.contentId);
    if (params === null) return reply.callNotFound();
    const access = await provenCoursePrincipal(request, params.courseId, ctx.identity);
    if (access === null) return sendPrincipalRequired(reply);
    if (access === 'unproven') return sendCourseUnverified(reply);
    const principal = access.principal;
    if (principal.kind !== 'student') return reply;
    try {
      const { accessCode } = await ctx.management.exemptions.release({ principal, requestId: request.id }, params.contentId);
      return reply.send({ success: true, accessCode });
    } catch (error) {
      if (!isDomainError(error)) throw error;
      return sendError(reply, error.errorCode, error.message);
    }
  });

  /**
   * The required-browser view, where an ordinary browser downloads the configuration of one assessment. Classic quizzes
   * have the contract's route; new quizzes the same view on a route of their own, since the contract's answers every
   * new quiz content id with 403.
   */
  const requiredBrowserView = (kind: 'classic' | 'newquiz') => async (request: FastifyRequest<QuizViewRoute>, reply: FastifyReply) => {
    const { courseId, quizId } = request.params;
    const notice = (refusal: Notice) => sendNotice(reply, ctx, courseId, refusal);
    // On the classic route every new quiz content id is the contract's 403, also one that names another course.
    if (kind === 'classic' && isLmsId(courseId) && parseContentId(quizId)?.kind === 'newquiz') return notice(CLASSIC_QUIZ_ONLY);
    const params = assessmentParams(courseId, quizId);
    if (params === null || params.content.kind !== kind) return reply.callNotFound();
    const access = await provenCoursePrincipal(request, params.courseId, ctx.identity);
    // Most students come from the quiz in the course, without a session with the tool (or with one of another course):
    // the LMS launches the tool at the assessment's exam-browser launch, which renders this view with a session.
    if (access === null) {
      const target = new URL(exbLaunchPath(params.contentId), config.baseUrl).href;
      return reply.header('cache-control', 'no-store').redirect(lmsToolLaunchUrl(config.lmsUrl, params.courseId, target), 302);
    }
    // Whether an assessment requires the exam browser is the course's to tell, once the LMS proved the course id for
    // this launch's context; until then the view says so and shows nothing of the course.
    if (access === 'unproven') return notice(COURSE_UNVERIFIED);
    const assessmentUrl = lmsAssessmentUrl(config.lmsUrl, params.courseId, params.content);
    const returnUrl = lmsQuizUrl(request.query.lms_url, lmsOrigin) ?? assessmentUrl;
    if (!(await requirement.isRequired(params))) return reply.header('cache-control', 'no-store').redirect(returnUrl, 302);
    const { principal, session } = access;
    const userId = lmsUserIdOf(request.query.user_id);
    return shell.send(reply, {
      view: 'exb-required',
      courseId: params.courseId,
      contentId: params.contentId,
      assessmentKind: kind,
      lmsUserId: principal.lmsUserId,
      ...(userId === undefined ? {} : { requestedUserId: userId }),
      ...(principal.name !== undefined ? { userName: principal.name } : {}),
      ...(principal.courseName !== undefined ? { courseName: principal.courseName } : {}),
      assessmentUrl,
      lmsReturnUrl: returnUrl,
      setupCheckUrl: SETUP_CHECK_ROUTE.path,
      actionToken: actionTokens.issue(session, 'config-grant'),
    });
  };
  app.get<QuizViewRoute>(REQUIRED_BROWSER_VIEW_ROUTE.path, requiredBrowserView('classic'));
  app.get<QuizViewRoute>(REQUIRED_NEW_QUIZ_VIEW_ROUTE.path, requiredBrowserView('newquiz'));
}

/** The LMS user id the LMS page named, when it is one. */
function lmsUserIdOf(value: unknown): string | undefined {
  return typeof value === 'string' && /^\d{1,20}$/.test(value) ? value : undefined;
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
