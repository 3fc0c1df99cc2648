import type { LmsRuntime } from '../context.js';
import { htmlResponse, redirectResponse } from '../errors.js';
import { isAnyAccountAdmin } from '../permissions.js';
import { publicRoute, type RouteDef } from '../router.js';
import { DEMO_PERSONAS } from '../seed.js';
import type { Account, Course, User, WebSession } from '../state.js';
import { localPath, visitor } from './common.js';
import { applicationPage, barePage, escapeHtml } from './html.js';

/** Where a person's course launches go: their first current course, else (administrators) the first course. */
function homeCourse(lms: LmsRuntime, user: User): Course | undefined {
  const enrolled = lms.state
    .enrollmentsOf(user.id)
    .filter((enrollment) => enrollment.state === 'active')
    .map((enrollment) => lms.state.courses.get(enrollment.courseId))
    .find((course) => course && !course.deleted && !course.concluded && course.published);
  if (enrolled) return enrolled;
  return [...lms.state.courses.values()].find(
    (course) => !course.deleted && course.published && lms.state.accountChain(course.accountId).some((a) => isAdminAccountOf(lms, user, a)),
  );
}

function isAdminAccountOf(lms: LmsRuntime, user: User, account: Account): boolean {
  return lms.state.adminMembershipsOf(user.id).some((admin) => admin.accountId === account.id);
}

function launchButton(fields: Record<string, string | number>, label: string, primary = false): string {
  const inputs = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  return `<form action="/testbed/launch" method="post" class="launch">${inputs}<button type="submit" class="btn${primary ? ' btn-primary' : ''}">${escapeHtml(label)}</button></form>`;
}

function personRow(lms: LmsRuntime, user: User): string {
  const label = user.label ?? user.name;
  const buttons: string[] = [];
  const course = homeCourse(lms, user);
  if (course) {
    buttons.push(launchButton({ person: user.id, placement: 'course_navigation', course_id: course.id }, `Launch as ${label}`, true));
  }
  const adminOf = lms.state.adminMembershipsOf(user.id);
  for (const membership of adminOf) {
    const account = lms.state.accounts.get(membership.accountId);
    if (account) {
      buttons.push(
        launchButton(
          { person: user.id, placement: 'account_navigation', account_id: account.id },
          `Account navigation (${account.name}) as ${label}`,
        ),
      );
    }
  }
  if (course && !isAnyAccountAdmin(lms.state, user.id)) {
    for (const quiz of lms.state.quizzes.values()) {
      if (quiz.courseId !== course.id || quiz.deleted || !quiz.published) continue;
      buttons.push(
        launchButton(
          { person: user.id, placement: 'assessment', course_id: course.id, content_id: `classicquiz_${quiz.id}` },
          `Open "${quiz.title}" as ${label}`,
        ),
      );
    }
    for (const assignment of lms.state.assignments.values()) {
      if (assignment.courseId !== course.id || !assignment.newQuiz || assignment.deleted || !assignment.published) continue;
      buttons.push(
        launchButton(
          { person: user.id, placement: 'assessment', course_id: course.id, content_id: `newquiz:${course.id}:${assignment.id}` },
          `Open "${assignment.name}" as ${label}`,
        ),
      );
    }
  }
  return `<tr data-person="${escapeHtml(user.persona ?? user.id)}">
  <th scope="row">${escapeHtml(user.name)}<br><small>${escapeHtml(label)}${course ? ` · ${escapeHtml(course.name)}` : ''}</small></th>
  <td>${buttons.join('\n')}</td>
</tr>`;
}

function launchPage(lms: LmsRuntime, url: URL, user: User | undefined, session: WebSession | undefined): string {
  const demo = DEMO_PERSONAS.map((persona) => lms.state.findUser(persona)).filter((u): u is User => u !== undefined);
  const others = [...lms.state.users.values()].filter((u) => !demo.includes(u));
  const rows = [...demo, ...others].map((person) => personRow(lms, person)).join('\n');
  const courses = [...lms.state.courses.values()]
    .filter((course) => !course.deleted)
    .map((course) => `<li><a href="/courses/${course.id}">${escapeHtml(course.name)}</a> (${escapeHtml(course.courseCode)}${course.concluded ? ', concluded' : ''}${course.published ? '' : ', unpublished'})</li>`)
    .join('');
  return applicationPage(lms, {
    title: 'Launch page',
    url,
    user,
    session,
    body: `<h1>Development LMS</h1>
<p>This LMS stands in for the real one. Each button logs this browser in as the person and opens the tool's placement,
which starts a real LTI 1.3 login at <code>${escapeHtml(lms.platform.registration.oidcInitiationUrl)}</code>.</p>
<form method="get" action="/" id="display_choice"><label><input type="checkbox" name="display" value="window"${url.searchParams.get('display') === 'window' ? ' checked' : ''} onchange="this.form.submit()"> Open the tool in the whole window instead of the LMS frame</label></form>
<table id="launch_table">
<thead><tr><th>Person</th><th>Placements</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
<h2>Courses</h2>
<ul id="course_list">${courses}</ul>
<p><small>Issuer <code>${escapeHtml(lms.issuer)}</code> · client id <code>${escapeHtml(lms.tool.clientId)}</code> · deployment <code>${escapeHtml(lms.tool.deploymentId)}</code> · theme script <code>${escapeHtml(lms.state.themeJavaScriptUrl ?? 'none')}</code></small></p>
<script>
  // Carry the display choice into every launch form.
  var display = new URLSearchParams(location.search).get('display');
  if (display) document.querySelectorAll('form.launch').forEach(function (form) {
    var input = document.createElement('input'); input.type = 'hidden'; input.name = 'display'; input.value = display; form.appendChild(input);
  });
</script>`,
  });
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
      noteUser(user.id);
      const session = lms.sessions.create(user.id);
      const toolId = lms.tool.toolId;
      const display = body.display === 'window' ? 'display=window' : '';
      const query = (params: URLSearchParams) => {
        if (display) params.set('display', 'window');
        const text = params.toString();
        return text ? `?${text}` : '';
      };
      let location: string;
      switch (body.placement) {
        case 'account_navigation':
          location = `/accounts/${Number(body.account_id) || lms.state.rootAccount().id}/external_tools/${toolId}${query(new URLSearchParams())}`;
          break;
        case 'assessment': {
          const contentId = String(body.content_id ?? '');
          location = `/courses/${Number(body.course_id)}/external_tools/retrieve${query(
            new URLSearchParams({ url: `${lms.tool.baseUrl}/exb/launch/${contentId}` }),
          )}`;
          break;
        }
        default: {
          const courseId = Number(body.course_id) || homeCourse(lms, user)?.id;
          location = `/courses/${courseId}/external_tools/${toolId}${query(new URLSearchParams())}`;
        }
      }
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
