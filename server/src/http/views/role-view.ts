import type { FastifyReply } from 'fastify';
import { authorizationStartPath } from '@exb/shared/oauth-popup-ticket.js';
import { SETUP_CHECK_ROUTE } from '@exb/shared/service-paths.js';
import type { AppContext } from '../../context.js';
import type { CoursePrincipal } from '../../identity/principal.js';
import { LTI_LAUNCH_PATH } from '../../lti/launch-target.js';
import { lmsHomeUrl } from '../../lms/pages.js';
import type { SessionData } from '../../security/session.js';
import { studentCourseData } from './student-course.js';

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
    return ctx.shell.send(reply, { view: 'admin', ...common, ...account, authorizeUrl: authorizationStartPath('admin/oauth2authorize'), actionToken });
  }
  if (principal.kind === 'instructor') {
    const authorizeQuery = new URLSearchParams({ course_id: principal.courseId, user_id: principal.lmsUserId });
    const role = principal.courseRole !== undefined ? { courseRole: principal.courseRole } : {};
    return ctx.shell.send(reply, { view: 'teacher', ...common, ...courseFields(principal), ...role, authorizeUrl: `${authorizationStartPath('oauth2authorize')}?${authorizeQuery}` });
  }
  return ctx.shell.send(reply, {
    view: 'student',
    ...common,
    ...courseFields(principal),
    setupCheckUrl: SETUP_CHECK_ROUTE.path,
    actionToken: ctx.actionTokens.issue(session, 'config-grant'),
    ...(await studentCourseData(reply.request, ctx, principal)),
  });
}

