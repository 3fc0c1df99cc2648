import type { LmsRuntime } from '../runtime.js';
import { htmlResponse } from '../errors.js';
import { accountPermissions, canReadCourse, coursePermissions } from '../permissions.js';
import type { BuiltLaunch, LaunchOptions } from '../platform/platform.js';
import type { PlacementConfig } from '../platform/registration.js';
import { publicRoute, type RouteDef, type RouteRequest } from '../router.js';
import type { Course, ResourceLink, User, WebSession } from '../state.js';
import { loggedInVisitor, notFoundPage, unauthorizedPage, type PageVisitor } from './common.js';
import { platformStorageMarkup } from '../platform/post-message-forwarding.js';
import { applicationPage, autoPostForm, escapeHtml } from './html.js';

type Who = { user: User; session: WebSession };

/**
 * The LMS page that hosts a tool: the tool frame `iframe#tool_content` and a hidden form that posts the login
 * initiation into it (or, with `display=window`, into the whole window).
 */
function toolPage(lms: LmsRuntime, req: RouteRequest, who: Who, launch: BuiltLaunch, heading: string): Response {
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
      // The storage listener is in place before the form posts the login into the frame.
      body: `<h1 class="screenreader-only">${escapeHtml(heading)}</h1>\n${frame}\n${platformStorageMarkup(lms)}\n${form}`,
    }),
  );
}

/** The launch URL's `placement` (or `launch_type`): anyone who writes a link into a course can set it. */
function placementParam(url: URL): string | undefined {
  return url.searchParams.get('placement') ?? url.searchParams.get('launch_type') ?? undefined;
}

/** A resource link named by the launch URL, by its `resource_link_id` or its lookup UUID. */
function linkReference(url: URL): { resourceLinkUuid?: string; lookupUuid?: string } | undefined {
  const resourceLinkUuid = url.searchParams.get('resource_link_id');
  const lookupUuid = url.searchParams.get('resource_link_lookup_uuid') ?? url.searchParams.get('resource_link_lookup_id');
  if (resourceLinkUuid !== null) return { resourceLinkUuid };
  if (lookupUuid !== null) return { lookupUuid };
  return undefined;
}

/** Who may open a placement: its visibility, then every permission it requires, held in the launch context. */
function mayOpen(placement: PlacementConfig, rights: Set<string>): boolean {
  const visible =
    placement.visibility === 'admins'
      ? rights.has('read_as_admin')
      : placement.visibility === 'members'
        ? rights.has('participate_as_student') || rights.has('read_as_admin')
        : true;
  return visible && placement.requiredPermissions.every((permission) => rights.has(permission));
}

function linkNotFound(lms: LmsRuntime, who: PageVisitor, url: URL): Response {
  return htmlResponse(
    applicationPage(lms, {
      title: 'External tool',
      url,
      user: who.user,
      session: who.session,
      body: '<h1>Couldn’t find valid settings for this link</h1><p id="flash_message">Resource link not found</p>',
    }),
    404,
  );
}

/** The resource link a course launch URL names: `null` when it names none, `undefined` when it names a missing one. */
function namedLink(lms: LmsRuntime, course: Course, url: URL): ResourceLink | null | undefined {
  const reference = linkReference(url);
  return reference ? lms.state.findResourceLink(course.id, reference) : null;
}

type Surface = { options: LaunchOptions; rights: Set<string> };

/** The course of a course tab, with the resource link its URL names; or the page that refuses it. */
function courseSurface(req: RouteRequest, who: Who, placement: string): Surface | Response {
  const { lms, params, url } = req;
  const course = lms.state.courses.get(Number(params.course_id));
  if (!course || course.deleted) return notFoundPage(lms, who, url);
  if (!canReadCourse(lms.state, who.user.id, course.id)) return unauthorizedPage(lms, who, url);
  const link = namedLink(lms, course, url);
  if (link === undefined) return linkNotFound(lms, who, url);
  return {
    options: {
      person: who.user.id,
      placement: 'course_navigation',
      placementParam: placement,
      courseId: course.id,
      ...(link ? { resourceLinkId: link.resourceLinkUuid } : {}),
    },
    rights: coursePermissions(lms.state, who.user.id, course.id),
  };
}

/** The account of an account tab. `root_account_only` only hides the tab in sub-accounts: the URL still launches. */
function accountSurface(req: RouteRequest, who: Who, placement: string): Surface | Response {
  const { lms, params, url } = req;
  const account = lms.state.accounts.get(Number(params.account_id));
  if (!account) return notFoundPage(lms, who, url);
  // Resource links live in courses: an account has none to find.
  if (linkReference(url)) return linkNotFound(lms, who, url);
  return {
    options: { person: who.user.id, placement: 'account_navigation', placementParam: placement, accountId: account.id },
    rights: accountPermissions(lms.state, who.user.id, account.id, lms.settings),
  };
}

/** Course and account navigation: the tool's tab (`/courses/:id/external_tools/:tool_id`, or an account's). */
function navigation(kind: 'course' | 'account') {
  return (req: RouteRequest): Response => {
    const { lms, params, url } = req;
    const who = loggedInVisitor(req);
    if (who instanceof Response) return who;
    // The URL may name another placement of the tool; one the tool lacks is not found.
    const placement = lms.platform.registration.placements.get(placementParam(url) ?? `${kind}_navigation`);
    if (Number(params.tool_id) !== lms.tool.toolId || !placement?.enabled) return notFoundPage(lms, who, url);
    const surface = kind === 'course' ? courseSurface(req, who, placement.placement) : accountSurface(req, who, placement.placement);
    if (surface instanceof Response) return surface;
    if (!mayOpen(placement, surface.rights)) return unauthorizedPage(lms, who, url);
    return toolPage(lms, req, who, lms.platform.buildLaunch(surface.options), placement.text);
  };
}

/**
 * A link in the course to a tool URL (a module item, rich content naming a resource link, or a tool sending a browser
 * through a launch at one of its own URLs): Canvas's `GET /courses/:course_id/external_tools/retrieve?url=…`
 * (`config/routes.rb`; `app/controllers/external_tools_controller.rb#retrieve` finds the installed tool matching `url`
 * with `ContextExternalTool.find_external_tool` and launches it with `launch_url: params[:url]`, which an LTI 1.3 launch
 * sends as its `target_link_uri`). A browser that is not logged in goes through the LMS's login first.
 */
function retrieve(req: RouteRequest): Response {
  const { lms, params, url } = req;
  const who = loggedInVisitor(req);
  if (who instanceof Response) return who;
  const course = lms.state.courses.get(Number(params.course_id));
  if (!course || course.deleted) return notFoundPage(lms, who, url);
  const link = namedLink(lms, course, url);
  if (link === undefined) return linkNotFound(lms, who, url);
  const target = url.searchParams.get('url') ?? link?.url ?? '';
  if (!target.startsWith(`${lms.tool.baseUrl}/`)) return notFoundPage(lms, who, url);
  if (!canReadCourse(lms.state, who.user.id, course.id)) return unauthorizedPage(lms, who, url);
  const named = placementParam(url);
  // A placement named in the URL brings its custom fields, and the permissions it requires must be held.
  const placement = named === undefined ? undefined : lms.platform.registration.placements.get(named);
  if (placement && !placement.requiredPermissions.every((p) => coursePermissions(lms.state, who.user.id, course.id).has(p))) {
    return unauthorizedPage(lms, who, url);
  }
  const contentId = /\/exb\/launch\/([^/?#]+)/.exec(new URL(target).pathname)?.[1];
  const launch = lms.platform.buildLaunch({
    person: who.user.id,
    placement: contentId ? 'assessment' : 'link',
    courseId: course.id,
    targetLinkUri: target,
    ...(contentId ? { contentId: decodeURIComponent(contentId) } : {}),
    ...(link ? { resourceLinkId: link.resourceLinkUuid } : {}),
    ...(named !== undefined ? { placementParam: named } : {}),
  });
  return toolPage(lms, req, who, launch, launch.description.resourceLink?.title ?? 'External tool');
}

export function toolLaunchRoutes(): RouteDef[] {
  return [
    publicRoute('GET', '/courses/:course_id/external_tools/retrieve', retrieve),
    publicRoute('GET', '/courses/:course_id/external_tools/:tool_id', navigation('course')),
    publicRoute('GET', '/accounts/:account_id/external_tools/:tool_id', navigation('account')),
  ];
}
