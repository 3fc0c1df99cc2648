import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseContentId } from '@exb/shared/content-id.js';
import { classicQuizPath, newQuizAssignmentPath } from '@exb/shared/lms-paths.js';
import type { AppContext } from '../context.js';
import { isExamBrowserRequest } from '../domain/exam-browser-client.js';
import type { CoursePrincipal, Principal } from '../domain/principal.js';
import { LtiError } from '../lti/errors.js';
import { exbLaunchPath, LTI_LAUNCH_PATH } from '../lti/launch-target.js';
import { readSession, updateSession, type SessionData } from '../security/session.js';
import { CONFIG_GRANT_PATH } from './exb-config.js';

/** How long a completed exam-browser launch is remembered (Document 3). */
export const EXB_LAUNCH_MEMORY_MS = 24 * 60 * 60 * 1000;

/** Retry hint of every refused-for-budget answer (Document 1: 60 on login; launch uses the same). */
export const RETRY_AFTER_SECONDS = 60;

/** Renders a refused login or launch: the `lti-error` view with the failed check's code, never a token value. */
export function sendLtiError(reply: FastifyReply, ctx: AppContext, error: LtiError): FastifyReply {
  reply.request.log.info({ code: error.code, status: error.status }, 'lti request refused');
  return ctx.shell.send(
    reply,
    {
      view: 'lti-error',
      title: error.title,
      message: error.message,
      errorCode: error.code,
      details: [...error.details, { label: 'Error code', value: error.code }],
      lmsReturnUrl: ctx.config.lmsUrl,
    },
    { status: error.status, title: error.title },
  );
}

export function sendRateLimited(reply: FastifyReply, ctx: AppContext): FastifyReply {
  reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  return sendLtiError(
    reply,
    ctx,
    new LtiError(
      'RATE_LIMITED',
      429,
      'Too many launches',
      'The tool received too many launches from your network in a short time. Wait a minute, then open the tool again from the LMS.',
    ),
  );
}

export function sendNotAuthorized(reply: FastifyReply, ctx: AppContext): FastifyReply {
  return ctx.shell.send(reply, { view: 'role-not-authorized', lmsReturnUrl: ctx.config.lmsUrl });
}

/** The LMS page a principal returns to: its course or its account, built from signed identifiers only. */
export function lmsHomeUrl(lmsUrl: string, principal: Principal): string {
  return principal.kind === 'admin' ? `${lmsUrl}/accounts/${principal.accountId}` : `${lmsUrl}/courses/${principal.courseId}`;
}

/** Where a student's page starts the LMS authorization that lets configurations sign the exam browser in. */
export const STUDENT_SESSION_AUTHORIZE_PATH = '/api/student-session-authorize';

/** The config-grant route of one assessment, as the student pages call it. */
export function configGrantPath(courseId: string, contentId: string): string {
  return CONFIG_GRANT_PATH.replace(':courseId', encodeURIComponent(courseId)).replace(':contentId', encodeURIComponent(contentId));
}

/**
 * What the student's course view shows beside the common fields: the assessments that require the exam browser, each
 * with its download entry point, and, where configurations sign the exam browser in to the LMS, the authorization
 * start and whether the student dismissed the readiness prompt. A failed lookup still renders the page, without the
 * list (the view says it is unavailable); the assessments' own LMS pages lead to the download too.
 */
async function studentCourseData(request: FastifyRequest, ctx: AppContext, principal: CoursePrincipal) {
  const { requiredAssessments, readiness } = ctx.exbStudent;
  const [assessments, dismissed] = await Promise.all([
    requiredAssessments.list(principal.courseId).catch((error: unknown) => {
      request.log.warn({ err: error, courseId: principal.courseId }, 'required assessments could not be listed');
      return null;
    }),
    readiness.applies
      ? readiness.isDismissed(principal.lmsUserId).catch((error: unknown) => {
          request.log.warn({ err: error }, 'session-readiness preference could not be read');
          return false;
        })
      : false,
  ]);
  return {
    ...(assessments === null
      ? {}
      : {
          assessments: assessments.map((assessment) => ({
            contentId: assessment.contentId,
            kind: assessment.kind,
            title: assessment.title,
            configGrantUrl: configGrantPath(principal.courseId, assessment.contentId),
          })),
        }),
    ...(readiness.applies ? { authorizeUrl: STUDENT_SESSION_AUTHORIZE_PATH, sessionReadiness: { dismissed } } : {}),
  };
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
  };
  switch (principal.kind) {
    case 'admin':
      return ctx.shell.send(reply, {
        view: 'admin',
        ...common,
        accountId: principal.accountId,
        ...(principal.accountName !== undefined ? { accountName: principal.accountName } : {}),
        authorizeUrl: '/api/admin/oauth2authorize',
      });
    case 'instructor':
      return ctx.shell.send(reply, {
        view: 'teacher',
        ...common,
        courseId: principal.courseId,
        ...(principal.courseName !== undefined ? { courseName: principal.courseName } : {}),
        authorizeUrl: `/api/oauth2authorize?${new URLSearchParams({ course_id: principal.courseId, user_id: principal.lmsUserId })}`,
      });
    case 'student':
      return ctx.shell.send(reply, {
        view: 'student',
        ...common,
        courseId: principal.courseId,
        ...(principal.courseName !== undefined ? { courseName: principal.courseName } : {}),
        setupCheckUrl: '/exb/check',
        actionToken: ctx.actionTokens.issue(session, 'config-grant'),
        ...(await studentCourseData(reply.request, ctx, principal)),
      });
  }
}

/**
 * The result of an exam-browser launch (Document 3) for a session whose launch targeted `contentId`: a second load after
 * a completed launch goes to the LMS course home; an assessment without enforcement, or a request from the exam browser,
 * goes to the LMS assessment (the latter completes the launch); otherwise the required-browser view.
 */
export async function sendExbLaunch(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
  session: SessionData,
  contentId: string,
): Promise<FastifyReply> {
  const { principal } = session;
  const { lmsUrl } = ctx.config;
  if (principal.kind === 'admin') {
    return sendLtiError(
      reply,
      ctx,
      new LtiError(
        'EXB_LAUNCH_NOT_FOR_ADMIN',
        403,
        'Open the assessment from its course',
        'Exam-browser launches belong to an assessment in a course; they cannot be opened from the account.',
      ),
    );
  }
  const content = parseContentId(contentId);
  if (!content || (content.kind === 'newquiz' && content.courseId !== principal.courseId)) {
    return sendLtiError(
      reply,
      ctx,
      new LtiError(
        'EXB_LAUNCH_COURSE_MISMATCH',
        403,
        'This assessment belongs to another course',
        'The link opened an assessment of a different course than the one you launched from. Open the assessment from its own course.',
      ),
    );
  }
  const courseHome = `${lmsUrl}/courses/${principal.courseId}`;
  const now = Date.now();
  const completedAt = session.exbLaunches[contentId];
  if (completedAt !== undefined && now - completedAt < EXB_LAUNCH_MEMORY_MS) {
    return reply.header('cache-control', 'no-store').redirect(courseHome, 302);
  }

  const assessmentUrl =
    lmsUrl +
    (content.kind === 'classic'
      ? classicQuizPath(principal.courseId, content.quizId)
      : newQuizAssignmentPath(content.courseId, content.assignmentId));
  const required = await ctx.exbRequirement.isRequired({ courseId: principal.courseId, contentId });
  if (!required) return reply.header('cache-control', 'no-store').redirect(assessmentUrl, 302);

  if (isExamBrowserRequest(request.headers)) {
    updateSession(request, { ...session, exbLaunches: { ...recentExbLaunches(session.exbLaunches, now), [contentId]: now } });
    return reply.header('cache-control', 'no-store').redirect(assessmentUrl, 302);
  }

  return ctx.shell.send(reply, {
    view: 'exb-required',
    courseId: principal.courseId,
    contentId,
    assessmentKind: content.kind,
    lmsUserId: principal.lmsUserId,
    ...(principal.name !== undefined ? { userName: principal.name } : {}),
    ...(principal.courseName !== undefined ? { courseName: principal.courseName } : {}),
    assessmentUrl,
    lmsReturnUrl: courseHome,
    setupCheckUrl: '/exb/check',
    reloadUrl: exbLaunchPath(contentId),
    actionToken: ctx.actionTokens.issue(session, 'config-grant'),
    configGrantUrl: configGrantPath(principal.courseId, contentId),
  });
}

/** Completed launches younger than a day; older ones are dropped whenever the record is written. */
export function recentExbLaunches(launches: Record<string, number>, now = Date.now()): Record<string, number> {
  return Object.fromEntries(Object.entries(launches).filter(([, at]) => now - at < EXB_LAUNCH_MEMORY_MS));
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
        new LtiError('LTI_CROSS_SITE_FRAME', 403, 'Open the tool from the LMS', 'This page can only be reloaded from within the tool.'),
      ),
    };
  }
  const session = readSession(request);
  if (!session) return { sent: reply.header('cache-control', 'no-store').redirect('/login', 302) };
  return { session };
}
