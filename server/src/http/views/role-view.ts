import type { FastifyReply, FastifyRequest } from 'fastify';
import { localeOfTag, negotiateLocale, type Locale } from '@exb/shared/i18n/locale.js';
import type { AppContext } from '../../context.js';
import { isExamBrowserRequest } from '../../domain/exam-browser-client.js';
import type { CoursePrincipal } from '../../identity/principal.js';
import { decideExbLaunch, type ExbLaunchDecision } from '../../domain/exam-browser/launch-decision.js';
import { translator } from '../../i18n/translator.js';
import { LtiError } from '../../lti/errors.js';
import { exbLaunchPath, LTI_LAUNCH_PATH } from '../../lti/launch-target.js';
import { lmsAccountsUrl, lmsHomeUrl } from '../../lms/pages.js';
import { ACCOUNT_NAVIGATION_TEXT } from '../../domain/lti-registration.js';
import { RATE_LIMIT_RETRY_AFTER_SECONDS } from '../../security/admission-budget.js';
import { readSession, requestLocale, updateSession, type SessionData } from '../../security/session.js';
import { CONFIG_GRANT_PATH } from '../routes/sessionless/config-download.js';
import { STUDENT_SESSION_AUTHORIZE_PATH } from '../kit/student-access.js';

/**
 * The language of a login's or launch's pages before the launch has a session: the launch's own locale (once its
 * claims are verified), else the browser's Accept-Language. A session some earlier launch left behind does not count.
 */
export function launchLocale(request: FastifyRequest, claimedLocale?: unknown): Locale {
  return localeOfTag(claimedLocale) ?? negotiateLocale(request.headers['accept-language']);
}

/**
 * Renders a refused login or launch: the `lti-error` view with the failed check's code, never a token value, worded
 * in `locale` (by default the request's). The code and the status never depend on the language.
 */
export function sendLtiError(reply: FastifyReply, ctx: AppContext, error: LtiError, locale = requestLocale(reply.request)): FastifyReply {
  reply.request.log.info({ code: error.code, status: error.status }, 'lti request refused');
  if (error.status === 429) reply.header('retry-after', String(RATE_LIMIT_RETRY_AFTER_SECONDS));
  const { title, message, details } = error.wording(locale);
  return ctx.shell.send(
    reply,
    {
      view: 'lti-error',
      title,
      message,
      errorCode: error.code,
      details: [...details, { label: translator(locale)('launch:errorCode'), value: error.code }],
      lmsReturnUrl: ctx.config.lmsUrl,
    },
    { status: error.status, title, locale },
  );
}

/**
 * The page for a launch whose role the tool does not serve, worded in `locale`. An administrator who opened a course's
 * tab is told where the administration is instead: the root account's navigation, reached from the LMS's list of the
 * accounts one administers (Canvas's `GET /accounts`, `AccountsController#index`). The tool does not know its own id
 * in the LMS, so it cannot link to the navigation entry itself.
 */
export function sendNotAuthorized(reply: FastifyReply, ctx: AppContext, locale: Locale, administratorInCourse = false): FastifyReply {
  const t = translator(locale);
  if (administratorInCourse) {
    const title = t('launch:notAuthorized.administratorInCourse.title');
    const message = t('launch:notAuthorized.administratorInCourse.message', { navigation: ACCOUNT_NAVIGATION_TEXT });
    const link = { href: lmsAccountsUrl(ctx.config.lmsUrl), text: t('launch:notAuthorized.administratorInCourse.link') };
    return ctx.shell.send(
      reply,
      { view: 'role-not-authorized', title, message, variant: 'info', link, lmsReturnUrl: ctx.config.lmsUrl },
      { title, locale },
    );
  }
  const title = t('launch:notAuthorized.title');
  return ctx.shell.send(
    reply,
    { view: 'role-not-authorized', title, message: t('launch:notAuthorized.message'), lmsReturnUrl: ctx.config.lmsUrl },
    { title, locale },
  );
}

/** The config-grant route of one assessment, as the student pages call it. */
export function configGrantPath(courseId: string, contentId: string): string {
  return CONFIG_GRANT_PATH.replace(':courseId', encodeURIComponent(courseId)).replace(':contentId', encodeURIComponent(contentId));
}

/**
 * What the student's course view shows beside the common fields: the assessments that require the exam browser, each
 * with its download entry point, and, where configurations sign the exam browser in to the LMS, the authorization
 * start and whether the student dismissed the readiness prompt. A failed lookup, or a course the LMS has not proven for
 * the launch's context yet (`courseUnverified`), still renders the page, without the list (the view says why); the
 * assessments' own LMS pages lead to the download too.
 */
async function studentCourseData(request: FastifyRequest, ctx: AppContext, principal: CoursePrincipal) {
  const { requiredAssessments, readiness, readinessDismissals } = ctx.examBrowser;
  // Titles are the course's to tell: only for a course the LMS proved for this launch's context (docs/architecture.md, trust model).
  const listRequired = async () =>
    (await ctx.identity.courseProvenForReading(principal)) ? requiredAssessments.list(principal.courseId) : ('unverified' as const);
  const [listed, dismissed] = await Promise.all([
    listRequired().catch((error: unknown) => {
      request.log.warn({ err: error, courseId: principal.courseId }, 'required assessments could not be listed');
      return null;
    }),
    readiness.applies
      ? readinessDismissals.isDismissed(principal.lmsUserId).catch((error: unknown) => {
          request.log.warn({ err: error }, 'session-readiness preference could not be read');
          return false;
        })
      : false,
  ]);
  const assessments = listed === 'unverified' ? null : listed;
  return {
    ...(listed === 'unverified' ? { courseUnverified: true as const } : {}),
    ...(assessments === null
      ? {}
      : {
          assessments: assessments.map(({ contentId, kind, title }) => ({
            contentId,
            kind,
            title,
            configGrantUrl: configGrantPath(principal.courseId, contentId),
          })),
        }),
    ...(readiness.applies ? { authorizeUrl: STUDENT_SESSION_AUTHORIZE_PATH, sessionReadiness: { dismissed } } : {}),
  };
}

/** The course fields every course view carries. */
function courseFields(principal: CoursePrincipal) {
  return { courseId: principal.courseId, ...(principal.courseName !== undefined ? { courseName: principal.courseName } : {}) };
}

/**
 * Role routing (Document 1): administrator → `admin`, instructor → `teacher`, student → `student`, each a shell with the
 * principal's course or account. Used after a launch and on a session reload.
 */
export async function sendRoleView(reply: FastifyReply, ctx: AppContext, session: SessionData): Promise<FastifyReply> {
  const { principal } = session;
  const common = {
    lmsUserId: principal.lmsUserId,
    ...(principal.name !== undefined ? { userName: principal.name } : {}),
    lmsReturnUrl: session.lmsReturnUrl ?? lmsHomeUrl(ctx.config.lmsUrl, principal),
    reloadUrl: LTI_LAUNCH_PATH,
    // The page keeps it in memory and sends it with its requests: its session where the frame keeps no cookie.
    sessionToken: ctx.sessionTokens.issue(session),
  };
  if (principal.kind === 'admin') {
    const account = { accountId: principal.accountId, ...(principal.accountName !== undefined ? { accountName: principal.accountName } : {}) };
    const actionToken = ctx.actionTokens.issue(session, 'admin-mutation');
    return ctx.shell.send(reply, { view: 'admin', ...common, ...account, authorizeUrl: '/api/admin/oauth2authorize', actionToken });
  }
  if (principal.kind === 'instructor') {
    const authorizeQuery = new URLSearchParams({ course_id: principal.courseId, user_id: principal.lmsUserId });
    const role = principal.courseRole !== undefined ? { courseRole: principal.courseRole } : {};
    return ctx.shell.send(reply, { view: 'teacher', ...common, ...courseFields(principal), ...role, authorizeUrl: `/api/oauth2authorize?${authorizeQuery}` });
  }
  return ctx.shell.send(reply, {
    view: 'student',
    ...common,
    ...courseFields(principal),
    setupCheckUrl: '/exb/check',
    actionToken: ctx.actionTokens.issue(session, 'config-grant'),
    ...(await studentCourseData(reply.request, ctx, principal)),
  });
}

const notForAdmin = () => new LtiError('EXB_LAUNCH_NOT_FOR_ADMIN', 403, 'notForAdmin', { key: 'notForAdmin' });

const courseMismatch = () => new LtiError('EXB_LAUNCH_COURSE_MISMATCH', 403, 'courseMismatch', { key: 'courseMismatch' });

const redirect = (reply: FastifyReply, url: string) => reply.header('cache-control', 'no-store').redirect(url, 302);

/** Renders the exam-browser launch decision (`domain/exam-browser/launch-decision.ts`) for a session whose launch targeted `contentId`. */
export async function sendExbLaunch(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
  session: SessionData,
  contentId: string,
): Promise<FastifyReply> {
  const decision = await decideExbLaunch(
    { lmsUrl: ctx.config.lmsUrl, requirement: ctx.exbRequirement },
    { principal: session.principal, contentId, completedLaunches: session.exbLaunches, fromExamBrowser: isExamBrowserRequest(request.headers), now: Date.now() },
  );
  switch (decision.kind) {
    case 'not-for-admin':
      return sendLtiError(reply, ctx, notForAdmin());
    case 'course-mismatch':
      return sendLtiError(reply, ctx, courseMismatch());
    case 'course-home':
      return redirect(reply, decision.url);
    case 'assessment':
      if (decision.completed !== null) updateSession(request, { ...session, exbLaunches: decision.completed });
      return redirect(reply, decision.url);
    case 'exb-required':
      return sendExbRequired(reply, ctx, session, decision);
  }
}

function sendExbRequired(
  reply: FastifyReply,
  ctx: AppContext,
  session: SessionData,
  decision: Extract<ExbLaunchDecision, { kind: 'exb-required' }>,
): FastifyReply {
  const { principal, content, contentId } = decision;
  return ctx.shell.send(reply, {
    view: 'exb-required',
    courseId: principal.courseId,
    contentId,
    assessmentKind: content.kind,
    lmsUserId: principal.lmsUserId,
    ...(principal.name !== undefined ? { userName: principal.name } : {}),
    ...(principal.courseName !== undefined ? { courseName: principal.courseName } : {}),
    assessmentUrl: decision.assessmentUrl,
    lmsReturnUrl: decision.courseHomeUrl,
    setupCheckUrl: '/exb/check',
    reloadUrl: exbLaunchPath(contentId),
    actionToken: ctx.actionTokens.issue(session, 'config-grant'),
    configGrantUrl: configGrantPath(principal.courseId, contentId),
    sessionToken: ctx.sessionTokens.issue(session),
  });
}

/** A navigation that puts the tool into a frame of another site: not the tool reloading its own frame. */
function isCrossSiteFrame(request: FastifyRequest): boolean {
  return request.headers['sec-fetch-dest'] === 'iframe' && request.headers['sec-fetch-site'] === 'cross-site';
}

/**
 * The guard of the session reloads (`GET /lti/launch`, `GET /exb/launch/:contentId`): a cross-site frame gets `403`,
 * a browser without a principal goes to `/login`. Returns the session, or the reply already sent.
 */
export function sessionForReload(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
): { session: SessionData } | { sent: FastifyReply } {
  if (isCrossSiteFrame(request)) {
    return {
      sent: sendLtiError(
        reply,
        ctx,
        new LtiError('LTI_CROSS_SITE_FRAME', 403, 'crossSiteFrame', { key: 'crossSiteFrame' }),
      ),
    };
  }
  const session = readSession(request);
  if (!session) return { sent: reply.header('cache-control', 'no-store').redirect('/login', 302) };
  return { session };
}
