import type { LmsRuntime } from '../context.js';
import { htmlResponse } from '../errors.js';
import { accountPermissions, canReadCourse, coursePermissions, isAccountAdmin } from '../permissions.js';
import type { BuiltLaunch } from '../platform/platform.js';
import { publicRoute, type RouteDef, type RouteRequest } from '../router.js';
import type { User, WebSession } from '../state.js';
import { loggedInVisitor, notFoundPage, unauthorizedPage } from './common.js';
import { applicationPage, autoPostForm, escapeHtml } from './html.js';

/**
 * The LMS page that hosts a tool: the tool frame `iframe#tool_content` and a hidden form that posts the login
 * initiation into it (or, with `display=window`, into the whole window).
 */
function toolPage(lms: LmsRuntime, req: RouteRequest, who: { user: User; session: WebSession }, launch: BuiltLaunch, heading: string): Response {
  const inWindow = req.url.searchParams.get('display') === 'window';
  const form = autoPostForm({
    action: launch.loginUrl,
    fields: launch.loginParams,
    target: inWindow ? '_self' : 'tool_content',
    id: 'tool_form',
  });
  const frame = inWindow
    ? ''
    : `<iframe id="tool_content" name="tool_content" title="${escapeHtml(heading)}" allow="clipboard-write; fullscreen" data-lti-launch="true"></iframe>`;
  return htmlResponse(
    applicationPage(lms, {
      title: heading,
      url: req.url,
      user: who.user,
      session: who.session,
      body: `<h1 class="screenreader-only">${escapeHtml(heading)}</h1>\n${frame}\n${form}`,
    }),
  );
}

function courseNavigation(req: RouteRequest): Response {
  const { lms, params, url } = req;
  const who = loggedInVisitor(req);
  if (who instanceof Response) return who;
  const course = lms.state.courses.get(Number(params.course_id));
  const placement = lms.platform.registration.placements.get('course_navigation');
  if (!course || course.deleted || Number(params.tool_id) !== lms.tool.toolId || !placement?.enabled) {
    return notFoundPage(lms, who, url);
  }
  if (!canReadCourse(lms.state, who.user.id, course.id)) return unauthorizedPage(lms, who, url);
  const rights = coursePermissions(lms.state, who.user.id, course.id);
  const visible =
    placement.visibility === 'admins'
      ? rights.has('read_as_admin')
      : placement.visibility === 'members'
        ? rights.has('participate_as_student') || rights.has('read_as_admin')
        : true;
  if (!visible) return unauthorizedPage(lms, who, url);
  const launch = lms.platform.buildLaunch({ person: who.user.id, placement: 'course_navigation', courseId: course.id });
  return toolPage(lms, req, who, launch, placement.text);
}

function accountNavigation(req: RouteRequest): Response {
  const { lms, params, url } = req;
  const who = loggedInVisitor(req);
  if (who instanceof Response) return who;
  const account = lms.state.accounts.get(Number(params.account_id));
  const placement = lms.platform.registration.placements.get('account_navigation');
  if (!account || Number(params.tool_id) !== lms.tool.toolId || !placement?.enabled) return notFoundPage(lms, who, url);
  if (placement.rootAccountOnly && account.parentAccountId !== null) return notFoundPage(lms, who, url);
  const rights = accountPermissions(lms.state, who.user.id, account.id, lms.settings);
  const visible =
    (placement.visibility !== 'admins' || isAccountAdmin(lms.state, who.user.id, account.id)) &&
    placement.requiredPermissions.every((permission) => rights.has(permission));
  if (!visible) return unauthorizedPage(lms, who, url);
  const launch = lms.platform.buildLaunch({ person: who.user.id, placement: 'account_navigation', accountId: account.id });
  return toolPage(lms, req, who, launch, placement.text);
}

/** A link in the course to a tool URL (as a module item to `/exb/launch/:contentId` is). */
function retrieve(req: RouteRequest): Response {
  const { lms, params, url } = req;
  const who = loggedInVisitor(req);
  if (who instanceof Response) return who;
  const course = lms.state.courses.get(Number(params.course_id));
  const target = url.searchParams.get('url') ?? '';
  if (!course || course.deleted || !target.startsWith(`${lms.tool.baseUrl}/`)) return notFoundPage(lms, who, url);
  if (!canReadCourse(lms.state, who.user.id, course.id)) return unauthorizedPage(lms, who, url);
  const contentId = /\/exb\/launch\/([^/?#]+)/.exec(new URL(target).pathname)?.[1];
  const launch = lms.platform.buildLaunch({
    person: who.user.id,
    placement: contentId ? 'assessment' : 'link',
    courseId: course.id,
    targetLinkUri: target,
    ...(contentId ? { contentId: decodeURIComponent(contentId) } : {}),
  });
  return toolPage(lms, req, who, launch, launch.description.resourceLink?.title ?? 'External tool');
}

export function toolLaunchRoutes(): RouteDef[] {
  return [
    publicRoute('GET', '/courses/:course_id/external_tools/retrieve', retrieve),
    publicRoute('GET', '/courses/:course_id/external_tools/:tool_id', courseNavigation),
    publicRoute('GET', '/accounts/:account_id/external_tools/:tool_id', accountNavigation),
  ];
}
