import type { FastifyReply, FastifyRequest } from 'fastify';
import { SETUP_CHECK_ROUTE } from '@exb/shared/service-paths.js';
import type { AppContext } from '../../context.js';
import { isExamBrowserRequest } from '../../domain/exam-browser-client.js';
import { decideExbLaunch, type ExbLaunchDecision } from '../../domain/exam-browser/launch-decision.js';
import { LtiError } from '../../lti/errors.js';
import { exbLaunchPath } from '../../lti/launch-target.js';
import { sendLtiError } from '../../pages/launch-refusals.js';
import { updateSession, type SessionData } from '../../security/session.js';
import { configGrantPath } from './student-course.js';

const notForAdmin = () => new LtiError('EXB_LAUNCH_NOT_FOR_ADMIN', 'notForAdmin', { key: 'notForAdmin' });

const courseMismatch = () => new LtiError('EXB_LAUNCH_COURSE_MISMATCH', 'courseMismatch', { key: 'courseMismatch' });

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
    setupCheckUrl: SETUP_CHECK_ROUTE.path,
    reloadUrl: exbLaunchPath(contentId),
    actionToken: ctx.actionTokens.issue(session, 'config-grant'),
    configGrantUrl: configGrantPath(principal.courseId, contentId),
    sessionToken: ctx.sessionTokens.issue(session),
  });
}

