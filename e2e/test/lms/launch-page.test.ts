import { describe, expect, it } from 'vitest';
import { LTI_CLAIM, LTI_ROLES, PLACEMENT_CLAIM } from '../../src/lms/index.js';
import { TOOL, useInProcessLms } from './helpers.js';
import { readForm } from './lti-helpers.js';

const { lms } = useInProcessLms();

/** The hidden fields of the launch page's form whose button reads `label`. */
function buttonFields(html: string, label: string): Record<string, string> {
  const form = [...html.matchAll(/<form action="\/testbed\/launch"[^>]*>(.*?)<\/form>/gs)].find((match) =>
    match[1]!.includes(`>${label}</button>`),
  );
  if (!form) throw new Error(`No launch button "${label}"`);
  return Object.fromEntries([...form[1]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
}

async function launchPage(): Promise<string> {
  return (await fetch(`${lms.baseUrl}/`)).text();
}

/** Posts a launch-page form, follows the LMS page it opens and completes the launch; returns the id_token claims. */
async function launchThrough(fields: Record<string, string>) {
  const posted = await fetch(`${lms.baseUrl}/testbed/launch`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
    redirect: 'manual',
  });
  expect(posted.status).toBe(303);
  const location = posted.headers.get('location')!;
  const cookie = posted.headers.get('set-cookie')!.split(';')[0]!;
  const toolPage = await fetch(`${lms.baseUrl}${location}`, { headers: { cookie } });
  expect(toolPage.status).toBe(200);
  const login = readForm(await toolPage.text()).fields;
  const query = new URLSearchParams({
    scope: 'openid',
    response_type: 'id_token',
    response_mode: 'form_post',
    prompt: 'none',
    client_id: login.client_id!,
    redirect_uri: `${TOOL.baseUrl}/lti/launch`,
    login_hint: login.login_hint!,
    lti_message_hint: login.lti_message_hint!,
    nonce: 'n',
    state: 's',
  });
  const answer = readForm(await (await fetch(`${lms.baseUrl}/api/lti/authorize?${query}`, { headers: { cookie } })).text());
  const [, payload] = answer.fields.id_token!.split('.');
  return { location, claims: JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown> };
}

describe('launch page: administrators', () => {
  it('launches the root administrator from the root account’s navigation', async () => {
    const fields = buttonFields(await launchPage(), 'Launch as administrator');
    expect(fields).toMatchObject({ placement: 'account_navigation', account_id: '1' });
    const { location, claims } = await launchThrough(fields);
    expect(location).toBe('/accounts/1/external_tools/1');
    expect(claims[PLACEMENT_CLAIM]).toBe('account_navigation');
    expect(claims[`${LTI_CLAIM}context`]).toEqual({ id: lms.state.accounts.get(1)!.ltiContextId, title: 'Example University', type: ['Account'] });
    expect(claims[`${LTI_CLAIM}roles`]).toEqual([LTI_ROLES.institutionAdministrator, LTI_ROLES.systemUser]);
    expect(claims[`${LTI_CLAIM}custom`]).toMatchObject({ exb_launch_surface: 'account_admin', lms_user_is_root_account_admin: true, lms_account_id: '1' });
  });

  it('launches the sub-account administrator from their sub-account’s navigation, as no root administrator', async () => {
    const fields = buttonFields(await launchPage(), 'Launch as sub-account administrator');
    expect(fields).toMatchObject({ placement: 'account_navigation', account_id: '2' });
    const { location, claims } = await launchThrough(fields);
    expect(location).toBe('/accounts/2/external_tools/1');
    expect(claims[`${LTI_CLAIM}context`]).toMatchObject({ id: lms.state.accounts.get(2)!.ltiContextId, type: ['Account'] });
    expect(claims[`${LTI_CLAIM}custom`]).toMatchObject({ exb_launch_surface: 'account_admin', lms_user_is_root_account_admin: false, lms_account_id: '2' });
  });

  it('still offers administrators their course navigation, and leaves out people of another school', async () => {
    const html = await launchPage();
    expect(buttonFields(html, 'Course navigation (Biology 101) as administrator')).toMatchObject({ placement: 'course_navigation', course_id: '101' });
    expect(buttonFields(html, 'Account navigation (Example University) as administrator')).toMatchObject({ account_id: '1' });
    expect(buttonFields(html, 'Launch as instructor')).toMatchObject({ placement: 'course_navigation', course_id: '101' });
    expect(html).not.toContain('data-person="other-root-admin"');
  });
});

describe('launch page: a link with its own custom fields', () => {
  it('creates the link in the course and launches it, its literal values in the signed custom claim', async () => {
    const { location, claims } = await launchThrough({
      person: 'student1',
      course_id: '101',
      placement: 'course_navigation',
      link_custom: 'lms_user_id=1\r\nexb_launch_surface=account_admin\r\nlms_user_is_root_account_admin=true',
    });
    const [link] = [...lms.state.resourceLinks.values()];
    expect(link).toMatchObject({ courseId: 101, custom: { lms_user_id: '1', exb_launch_surface: 'account_admin', lms_user_is_root_account_admin: 'true' } });
    expect(location).toBe(`/courses/101/external_tools/1?resource_link_id=${link!.resourceLinkUuid}`);
    expect(claims[`${LTI_CLAIM}custom`]).toMatchObject({ lms_user_id: '1', exb_launch_surface: 'account_admin', lms_user_is_root_account_admin: 'true' });
    expect(claims[PLACEMENT_CLAIM]).toBe('course_navigation');
    expect(claims.sub).toBe(lms.state.users.get(3)!.ltiId);
    expect(claims[`${LTI_CLAIM}roles`]).toEqual([LTI_ROLES.institutionStudent, LTI_ROLES.learner, LTI_ROLES.systemUser]);
  });

  it('names a placement in the link’s URL, which a teacher may open', async () => {
    const { location, claims } = await launchThrough({
      person: 'instructor',
      course_id: '101',
      placement: 'course_navigation',
      url_placement: 'account_navigation',
      link_custom: 'lms_user_is_root_account_admin=true',
    });
    expect(location).toMatch(/&placement=account_navigation$/);
    expect(claims[PLACEMENT_CLAIM]).toBe('account_navigation');
    expect(claims[`${LTI_CLAIM}custom`]).toMatchObject({ exb_launch_surface: 'account_admin', lms_user_is_root_account_admin: 'true', lms_account_id: '2' });
    expect(claims[`${LTI_CLAIM}context`]).toMatchObject({ id: lms.state.courses.get(101)!.ltiContextId });
  });

  it('opens the link as a link in the course too', async () => {
    const { location, claims } = await launchThrough({ person: 'instructor', course_id: '102', placement: 'link', link_custom: 'lms_course_id=101' });
    expect(location).toMatch(/^\/courses\/102\/external_tools\/retrieve\?resource_link_id=[0-9a-f-]{36}$/);
    expect(claims[`${LTI_CLAIM}custom`]).toMatchObject({ lms_course_id: '101' });
    expect(claims[`${LTI_CLAIM}context`]).toMatchObject({ id: lms.state.courses.get(102)!.ltiContextId, title: 'Chemistry 201' });
    expect(claims[PLACEMENT_CLAIM]).toBeNull();
  });

  it('refuses lines that are not key=value, creating neither link nor session', async () => {
    const response = await fetch(`${lms.baseUrl}/testbed/launch`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ person: 'student1', course_id: '101', placement: 'course_navigation', link_custom: 'no equals sign' }),
      redirect: 'manual',
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(lms.state.resourceLinks.size).toBe(0);
    expect(lms.state.webSessions.size).toBe(0);
  });

  it('is on the page, labelled as the development option it is', async () => {
    const html = await launchPage();
    expect(html).toContain('<h2>Launch a link with its own custom fields (development)</h2>');
    expect(html).toMatch(/<form action="\/testbed\/launch" method="post" class="launch" id="link_custom_form">/);
    expect(html).toContain('<textarea name="link_custom"');
  });
});
