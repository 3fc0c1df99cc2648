import type { LmsRuntime } from '../runtime.js';
import { htmlResponse, redirectResponse } from '../errors.js';
import type { ParamObject } from '../params.js';
import { publicRoute, type RouteDef } from '../router.js';
import type { User } from '../state.js';
import { localPath, visitor } from './common.js';
import { barePage, escapeHtml } from './html.js';
import { homeCourse, launchLocale, launchPage } from './launch-page.js';

/** `key=value` lines of the launch page's link custom fields; `undefined` when a line is not of that form. */
function parseCustomLines(text: string): Record<string, string> | undefined {
  const custom: Record<string, string> = {};
  for (const line of text.split(/\r?\n/).map((entry) => entry.trim()).filter(Boolean)) {
    const index = line.indexOf('=');
    if (index <= 0) return undefined;
    custom[line.slice(0, index).trim()] = line.slice(index + 1).trim();
  }
  return custom;
}

/**
 * The launch page's link with custom fields: stored as a resource link of the course, as a teacher would create it,
 * and opened from the chosen surface with the link named in the URL (and the placement, when one was given).
 */
function linkLaunchLocation(lms: LmsRuntime, body: ParamObject, user: User, text: string): string | Response {
  const custom = parseCustomLines(text);
  const course = lms.state.courses.get(Number(body.course_id)) ?? homeCourse(lms, user);
  if (!custom || !course) {
    return htmlResponse(barePage('Invalid link', '<h1>Give a course and one <code>key=value</code> custom field a line</h1>'), 400);
  }
  const viaLink = body.placement === 'link';
  const link = lms.state.createResourceLink({
    courseId: course.id,
    url: lms.platform.registration.targetLinkUri,
    title: 'Link with custom fields',
    custom,
    toolId: lms.tool.toolId,
    at: lms.clock.date().toISOString(),
  });
  const params = new URLSearchParams({ resource_link_id: link.resourceLinkUuid });
  const placement = typeof body.url_placement === 'string' ? body.url_placement.trim() : '';
  if (placement) params.set('placement', placement);
  return `/courses/${course.id}/external_tools/${viaLink ? 'retrieve' : lms.tool.toolId}?${params}`;
}

/** The LMS page of the chosen placement: an account's or course's tool tab, or a link to an assessment. */
function placementLocation(lms: LmsRuntime, body: ParamObject, user: User): string {
  const toolId = lms.tool.toolId;
  switch (body.placement) {
    case 'account_navigation':
      return `/accounts/${Number(body.account_id) || lms.state.rootAccount().id}/external_tools/${toolId}`;
    case 'assessment': {
      const url = `${lms.tool.baseUrl}/exb/launch/${String(body.content_id ?? '')}`;
      return `/courses/${Number(body.course_id)}/external_tools/retrieve?${new URLSearchParams({ url })}`;
    }
    default:
      return `/courses/${Number(body.course_id) || homeCourse(lms, user)?.id}/external_tools/${toolId}`;
  }
}

export function testbedRoutes(): RouteDef[] {
  return [
    publicRoute('GET', '/', (req) => {
      const seen = visitor(req);
      if (seen instanceof Response) return seen;
      return htmlResponse(launchPage(req.lms, req.url, seen.user, seen.session));
    }),

    // Logs the browser in as the chosen person and opens the placement, as the person would by clicking in the LMS.
    publicRoute('POST', '/testbed/launch', ({ lms, body, noteUser }) => {
      const user = lms.state.findUser(String(body.person ?? ''));
      if (!user) return htmlResponse(barePage('Unknown person', '<h1>Unknown person</h1>'), 400);
      const linkCustom = typeof body.link_custom === 'string' ? body.link_custom.trim() : '';
      const target = linkCustom ? linkLaunchLocation(lms, body, user, linkCustom) : placementLocation(lms, body, user);
      if (target instanceof Response) return target;
      // The language chosen on the launch page becomes the person's profile language, as a user sets it under
      // Settings in the LMS (Canvas: the user's `locale`, which its locale selection prefers over the account's and
      // the browser's, lib/locale_selection.rb); launches and the LMS's pages then carry it.
      const locale = launchLocale(body.locale);
      if (locale) user.locale = locale;
      noteUser(user.id);
      const session = lms.sessions.create(user.id);
      const location = body.display === 'window' ? `${target}${target.includes('?') ? '&' : '?'}display=window` : target;
      return redirectResponse(location, 303, { 'set-cookie': lms.sessions.setCookie(session) });
    }),

    publicRoute('GET', '/login', ({ lms, url }) => {
      const returnTo = localPath(url.searchParams.get('return_to'));
      const people = [...lms.state.users.values()]
        .map(
          (user) => `<li><form action="/login" method="post"><input type="hidden" name="person" value="${user.id}"><input type="hidden" name="return_to" value="${escapeHtml(returnTo)}"><button type="submit" class="btn">Log in as ${escapeHtml(user.name)}</button> <small>${escapeHtml(user.label ?? '')}</small></form></li>`,
        )
        .join('');
      return htmlResponse(barePage('Log in', `<h1>Log in to ${escapeHtml(lms.state.rootAccount().name)}</h1><ul id="login_people">${people}</ul>`));
    }),

    publicRoute('POST', '/login', ({ lms, body, noteUser }) => {
      const user = lms.state.findUser(String(body.person ?? ''));
      if (!user) return htmlResponse(barePage('Unknown person', '<h1>Unknown person</h1>'), 400);
      noteUser(user.id);
      const session = lms.sessions.create(user.id);
      return redirectResponse(localPath(body.return_to), 302, { 'set-cookie': lms.sessions.setCookie(session) });
    }),

    publicRoute('GET', '/logout', ({ lms, cookies }) => {
      const session = lms.sessions.fromCookies(cookies);
      if (session) lms.state.webSessions.delete(session.id);
      return redirectResponse('/', 302, { 'set-cookie': 'canvas_session=; Path=/; Max-Age=0' });
    }),
  ];
}
