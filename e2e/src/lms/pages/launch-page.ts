import type { LmsRuntime } from '../runtime.js';
import { isAnyAccountAdmin } from '../permissions.js';
import { DEMO_PERSONAS } from '../demo-seed.js';
import type { Account, Course, User, WebSession } from '../state.js';
import { applicationPage, escapeHtml } from './html.js';

/** Where a person's course launches go: their first current course, else (administrators) the first course they administer. */
export function homeCourse(lms: LmsRuntime, user: User): Course | undefined {
  const enrolled = lms.state
    .enrollmentsOf(user.id)
    .filter((enrollment) => enrollment.state === 'active')
    .map((enrollment) => lms.state.courses.get(enrollment.courseId))
    .find((course) => course && !course.deleted && !course.concluded && course.published);
  if (enrolled) return enrolled;
  const administered = new Set(adminAccounts(lms, user).map((account) => account.id));
  return [...lms.state.courses.values()].find(
    (course) => !course.deleted && course.published && lms.state.accountChain(course.accountId).some((a) => administered.has(a.id)),
  );
}

/** The accounts the person administers directly, in the LMS's own school. */
function adminAccounts(lms: LmsRuntime, user: User): Account[] {
  const school = lms.state.accountSubtree(lms.state.rootAccount().id);
  return lms.state
    .adminMembershipsOf(user.id)
    .map((membership) => lms.state.accounts.get(membership.accountId))
    .filter((account): account is Account => account !== undefined && school.has(account.id));
}

/** People of another school (another root account) have nothing to launch on this LMS's domain. */
function belongsHere(lms: LmsRuntime, user: User): boolean {
  const school = lms.state.accountSubtree(lms.state.rootAccount().id);
  const enrollments = lms.state.enrollmentsOf(user.id);
  const memberships = lms.state.adminMembershipsOf(user.id);
  if (enrollments.length === 0 && memberships.length === 0) return true;
  return (
    memberships.some((m) => school.has(m.accountId)) ||
    enrollments.some((e) => school.has(lms.state.courses.get(e.courseId)?.accountId ?? -1))
  );
}

function launchButton(fields: Record<string, string | number>, label: string, primary = false): string {
  const inputs = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  return `<form action="/testbed/launch" method="post" class="launch">${inputs}<button type="submit" class="btn${primary ? ' btn-primary' : ''}">${escapeHtml(label)}</button></form>`;
}

/**
 * An administrator's main launch is their account's navigation, as in the LMS: the root administrator reaches the
 * tool's administration there, a sub-account administrator the tool's answer for anyone else.
 */
function personButtons(lms: LmsRuntime, user: User, label: string, course: Course | undefined): string[] {
  const buttons: string[] = [];
  const accounts = adminAccounts(lms, user);
  const main = accounts[0];
  if (main) {
    buttons.push(launchButton({ person: user.id, placement: 'account_navigation', account_id: main.id }, `Launch as ${label}`, true));
  } else if (course) {
    buttons.push(launchButton({ person: user.id, placement: 'course_navigation', course_id: course.id }, `Launch as ${label}`, true));
  }
  for (const account of accounts) {
    buttons.push(
      launchButton({ person: user.id, placement: 'account_navigation', account_id: account.id }, `Account navigation (${account.name}) as ${label}`),
    );
  }
  if (main && course) {
    buttons.push(launchButton({ person: user.id, placement: 'course_navigation', course_id: course.id }, `Course navigation (${course.name}) as ${label}`));
  }
  if (course && !isAnyAccountAdmin(lms.state, user.id)) buttons.push(...assessmentButtons(lms, user, label, course));
  return buttons;
}

function assessmentButtons(lms: LmsRuntime, user: User, label: string, course: Course): string[] {
  const buttons: string[] = [];
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
  return buttons;
}

/**
 * The language the launched person uses, as their profile's Language setting in the LMS would say; the launch then
 * carries it as the LMS does (`launch_presentation.locale`), and the LMS's own pages speak it (`<html lang>`).
 */
function languageChoice(url: URL): string {
  const chosen = launchLocale(url.searchParams.get('locale'));
  const option = (value: string, text: string, lang?: string) =>
    `<option value="${value}"${lang ? ` lang="${lang}"` : ''}${(chosen ?? '') === value ? ' selected' : ''}>${text}</option>`;
  return `<label>Language of the person launching <select name="locale">${option('', 'as in their profile')}${option('en', 'English')}${option('de', 'Deutsch', 'de')}</select></label>
<button type="submit" class="btn">Use this language</button>`;
}

/** The languages the launch page offers; anything else keeps the person's profile setting. */
export function launchLocale(value: unknown): 'en' | 'de' | undefined {
  return value === 'en' || value === 'de' ? value : undefined;
}

function personRow(lms: LmsRuntime, user: User): string {
  const label = user.label ?? user.name;
  const course = homeCourse(lms, user);
  return `<tr data-person="${escapeHtml(user.persona ?? user.id)}">
  <th scope="row">${escapeHtml(user.name)}<br><small>${escapeHtml(label)}${course ? ` · ${escapeHtml(course.name)}` : ''}</small></th>
  <td>${personButtons(lms, user, label, course).join('\n')}</td>
</tr>`;
}

/**
 * The development form for links with their own custom parameters, which course staff can author in the LMS; the
 * tool must not trust them. It creates such a link and opens it.
 */
function linkCustomForm(lms: LmsRuntime, people: User[]): string {
  const options = (entries: Array<[string | number, string]>) =>
    entries.map(([value, text]) => `<option value="${escapeHtml(value)}">${escapeHtml(text)}</option>`).join('');
  const courses = [...lms.state.courses.values()].filter((c) => !c.deleted && lms.state.rootAccountOf(c.accountId) === lms.state.rootAccount());
  return `<section id="link_custom_launch">
<h2>Launch a link with its own custom fields (development)</h2>
<p>Teachers, TAs and designers can give a link into their course custom parameters. The LMS merges them over the tool's
own custom fields and signs them into the launch, so they can claim any user id, course id, role list or launch surface.
Use this to check that the tool does not believe them.</p>
<form action="/testbed/launch" method="post" class="launch" id="link_custom_form">
<label>Person <select name="person">${options(people.map((u) => [u.id, `${u.name} (${u.label ?? u.persona ?? u.id})`]))}</select></label>
<label>Course <select name="course_id">${options(courses.map((c) => [c.id, c.name]))}</select></label>
<label>Opened from <select name="placement">${options([
    ['course_navigation', 'course navigation'],
    ['link', 'a link in the course'],
  ])}</select></label>
<label>Placement named in the link's URL (optional) <input name="url_placement" placeholder="account_navigation"></label>
<label>Link custom fields, one <code>key=value</code> a line <textarea name="link_custom" rows="4" cols="60" placeholder="lms_user_id=1&#10;exb_launch_surface=account_admin&#10;lms_user_is_root_account_admin=true"></textarea></label>
<button type="submit" class="btn">Create the link and launch it</button>
</form>
</section>`;
}

export function launchPage(lms: LmsRuntime, url: URL, user: User | undefined, session: WebSession | undefined): string {
  const demo = DEMO_PERSONAS.map((persona) => lms.state.findUser(persona)).filter((u): u is User => u !== undefined);
  const others = [...lms.state.users.values()].filter((u) => !demo.includes(u));
  const people = [...demo, ...others].filter((person) => belongsHere(lms, person));
  const rows = people.map((person) => personRow(lms, person)).join('\n');
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
which starts a real LTI 1.3 login at <code>${escapeHtml(lms.platform.registration.oidcInitiationUrl)}</code>.
Administrators launch from their account's navigation.</p>
<form method="get" action="/" id="display_choice"><p><label><input type="checkbox" name="display" value="window"${url.searchParams.get('display') === 'window' ? ' checked' : ''} onchange="this.form.submit()"> Open the tool in the whole window instead of the LMS frame</label></p>
<p>${languageChoice(url)}</p></form>
<table id="launch_table">
<thead><tr><th>Person</th><th>Placements</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
${linkCustomForm(lms, people)}
<h2>Courses</h2>
<ul id="course_list">${courses}</ul>
<p><small>Issuer <code>${escapeHtml(lms.issuer)}</code> · client id <code>${escapeHtml(lms.tool.clientId)}</code> · deployment <code>${escapeHtml(lms.tool.deploymentId)}</code> · theme script <code>${escapeHtml(lms.state.themeJavaScriptUrl ?? 'none')}</code></small></p>
<script>
  // Carry the display and language choices into every launch form.
  var search = new URLSearchParams(location.search);
  ['display', 'locale'].forEach(function (name) {
    var value = search.get(name);
    if (value) document.querySelectorAll('form.launch').forEach(function (form) {
      var input = document.createElement('input'); input.type = 'hidden'; input.name = name; input.value = value; form.appendChild(input);
    });
  });
</script>`,
  });
}
