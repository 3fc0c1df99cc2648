import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { describe, expect, it } from 'vitest';
import { LTI_CLAIM, LTI_ROLES, PLACEMENT_CLAIM, type LaunchOptions } from '../../src/lms/index.js';
import { TOOL, api, tokenFor, useInProcessLms } from './helpers.js';
import { readForm } from './lti-helpers.js';

const { lms } = useInProcessLms();

const LINKS = '/api/v1/courses/:course_id/lti_resource_links';
const LINK = '/api/v1/courses/:course_id/lti_resource_links/:id';
const LINK_SCOPES = [`url:GET|${LINKS}`, `url:POST|${LINKS}`, `url:GET|${LINK}`, `url:PUT|${LINK}`];
const LAUNCH_URL = `${TOOL.baseUrl}/lti/launch`;

/** What a course author writes into a link to impersonate the root administrator. */
const FORGED = {
  lms_user_id: '1',
  lms_course_id: '104',
  lms_membership_roles: 'TeacherEnrollment,Account Admin',
  exb_launch_surface: 'account_admin',
  lms_user_is_root_account_admin: 'true',
};

function linkToken(person: string): string {
  return tokenFor(lms, person, LINK_SCOPES);
}

interface LinkJson {
  id: number;
  resource_link_uuid: string;
  lookup_uuid: string;
  url: string;
  title: string | null;
  custom: Record<string, string> | null;
  context_id: number;
  canvas_launch_url: string;
}

async function createLink(person: string, body: Record<string, unknown>, courseId = 101): Promise<Response> {
  return api(lms, linkToken(person), `/api/v1/courses/${courseId}/lti_resource_links`, { method: 'POST', json: body });
}

async function verified(token: string): Promise<JWTPayload> {
  const keys = createRemoteJWKSet(new URL(`${lms.baseUrl}/api/lti/security/jwks`));
  return (await jwtVerify(token, keys, { issuer: lms.issuer, audience: TOOL.clientId })).payload;
}

async function signedClaims(options: LaunchOptions): Promise<JWTPayload> {
  return verified(await lms.platform.buildLaunch({ nonce: 'n', ...options }).idToken());
}

/** Opens an LMS page that hosts a launch, then completes it as the browser would; returns the verified claims. */
async function claimsOfPage(path: string, person: string): Promise<JWTPayload> {
  const cookie = lms.webSessionCookie(person);
  const page = await fetch(`${lms.baseUrl}${path}`, { headers: { cookie } });
  expect(page.status).toBe(200);
  const login = readForm(await page.text()).fields;
  const query = new URLSearchParams({
    scope: 'openid',
    response_type: 'id_token',
    response_mode: 'form_post',
    prompt: 'none',
    client_id: login.client_id!,
    redirect_uri: LAUNCH_URL,
    login_hint: login.login_hint!,
    lti_message_hint: login.lti_message_hint!,
    nonce: 'page-nonce',
    state: 'page-state',
  });
  const answer = await fetch(`${lms.baseUrl}/api/lti/authorize?${query}`, { headers: { cookie } });
  return verified(readForm(await answer.text()).fields.id_token!);
}

describe('resource-link API', () => {
  it('lets a teacher, a TA, a designer and an administrator create links, with platform-generated ids', async () => {
    for (const person of ['instructor', 'ta', 'designer', 'administrator']) {
      const response = await createLink(person, { url: LAUNCH_URL, title: `By ${person}`, custom: { who: person } });
      expect(response.status, person).toBe(200);
      const link = (await response.json()) as LinkJson;
      expect(link).toMatchObject({ url: LAUNCH_URL, title: `By ${person}`, custom: { who: person }, context_id: 101, context_type: 'Course' });
      expect(link.resource_link_uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(link.canvas_launch_url).toBe(`${lms.baseUrl}/courses/101/external_tools/retrieve?resource_link_lookup_uuid=${link.lookup_uuid}`);
    }
    expect(lms.state.resourceLinks.size).toBe(4);
  });

  it('refuses students, teachers of other courses and teachers of a concluded course, writing nothing', async () => {
    const student = await createLink('student1', { url: LAUNCH_URL, custom: FORGED });
    expect(student.status).toBe(403);
    expect(await student.json()).toEqual({ status: 'unauthorized', errors: [{ message: 'user not authorized to perform that action' }] });
    expect((await createLink('other-teacher', { url: LAUNCH_URL })).status).toBe(403);
    expect((await createLink('instructor', { url: LAUNCH_URL }, 103)).status).toBe(403);
    expect((await createLink('instructor', { url: LAUNCH_URL }, 999)).status).toBe(404);
    expect(lms.state.resourceLinks.size).toBe(0);
    // Reading the links needs the same rights.
    expect((await api(lms, linkToken('student1'), '/api/v1/courses/101/lti_resource_links')).status).toBe(403);
  });

  it('updates a link’s custom parameters and URL for course staff only', async () => {
    const link = lms.state.createResourceLink({ courseId: 101, url: LAUNCH_URL, custom: { a: '1' } });
    const path = `/api/v1/courses/101/lti_resource_links/${link.id}`;
    const asDesigner = await api(lms, linkToken('designer'), path, { method: 'PUT', form: { 'custom[lms_user_id]': '1' } });
    expect(asDesigner.status).toBe(200);
    expect(((await asDesigner.json()) as LinkJson).custom).toEqual({ lms_user_id: '1' });
    expect(lms.state.resourceLinks.get(link.id)!.custom).toEqual({ lms_user_id: '1' });

    const asStudent = await api(lms, linkToken('student1'), path, { method: 'PUT', json: { custom: { lms_user_id: '3' } } });
    expect(asStudent.status).toBe(403);
    expect(lms.state.resourceLinks.get(link.id)!.custom).toEqual({ lms_user_id: '1' });

    const moved = await api(lms, linkToken('instructor'), `/api/v1/courses/101/lti_resource_links/resource_link_uuid:${link.resourceLinkUuid}`, {
      method: 'PUT',
      json: { url: `${TOOL.baseUrl}/exb/launch/classicquiz_201` },
    });
    expect(((await moved.json()) as LinkJson).url).toBe(`${TOOL.baseUrl}/exb/launch/classicquiz_201`);
  });

  it('answers 422 for bad custom parameters or a URL off the tool, and changes nothing', async () => {
    const notPairs = await createLink('instructor', { url: LAUNCH_URL, custom: { nested: { a: 'b' } } });
    expect(notPairs.status).toBe(422);
    expect(await notPairs.json()).toEqual({ errors: [{ code: 'invalid_custom', message: "'custom' param must contain key/value pairs" }] });
    const elsewhere = await createLink('instructor', { url: 'https://elsewhere.example/lti/launch' });
    expect(await elsewhere.json()).toEqual({ errors: [{ code: 'invalid_url', message: 'No tool found for the provided URL' }] });
    expect((await createLink('instructor', { title: 'no url' })).status).toBe(422);
    expect((await createLink('instructor', { url: 'not a url' })).status).toBe(422);
    expect(lms.state.resourceLinks.size).toBe(0);

    const link = lms.state.createResourceLink({ courseId: 101, url: LAUNCH_URL, custom: { keep: 'me' } });
    const update = await api(lms, linkToken('instructor'), `/api/v1/courses/101/lti_resource_links/${link.id}`, {
      method: 'PUT',
      json: { url: 'https://elsewhere.example/x', custom: { changed: 'yes' } },
    });
    expect(update.status).toBe(422);
    expect(((await update.json()) as { errors: Array<{ code: string }> }).errors[0]!.code).toBe('url_tool_mismatch');
    expect(lms.state.resourceLinks.get(link.id)).toMatchObject({ url: LAUNCH_URL, custom: { keep: 'me' } });
  });

  it('finds a link by id, resource_link_uuid: or lookup_uuid:, only in its own course, and lists 50 a page', async () => {
    const link = lms.state.createResourceLink({ courseId: 101, url: LAUNCH_URL });
    const token = linkToken('instructor');
    for (const id of [String(link.id), `resource_link_uuid:${link.resourceLinkUuid}`, `lookup_uuid:${link.lookupUuid}`]) {
      const response = await api(lms, token, `/api/v1/courses/101/lti_resource_links/${id}`);
      expect(((await response.json()) as LinkJson).resource_link_uuid, id).toBe(link.resourceLinkUuid);
    }
    expect((await api(lms, token, `/api/v1/courses/102/lti_resource_links/${link.id}`)).status).toBe(404);
    for (let index = 0; index < 54; index += 1) lms.state.createResourceLink({ courseId: 101, url: LAUNCH_URL });
    const first = await api(lms, token, '/api/v1/courses/101/lti_resource_links');
    expect(((await first.json()) as unknown[]).length).toBe(50);
    expect(first.headers.get('link')).toContain('page=2&per_page=50>; rel="next"');
  });

  it('needs a matching scope, and takes faults like every route', async () => {
    const appToken = tokenFor(lms, 'instructor');
    expect((await api(lms, appToken, '/api/v1/courses/101/lti_resource_links', { method: 'POST', json: { url: LAUNCH_URL } })).status).toBe(401);
    lms.faults.next(`POST ${LINKS}`, { status: 503 });
    expect((await createLink('instructor', { url: LAUNCH_URL })).status).toBe(503);
    lms.faults.next(`PUT ${LINK}`, { kind: 'forbidden' });
    const link = lms.state.createResourceLink({ courseId: 101, url: LAUNCH_URL });
    const put = await api(lms, linkToken('instructor'), `/api/v1/courses/101/lti_resource_links/${link.id}`, { method: 'PUT', json: { custom: { a: 'b' } } });
    expect(put.status).toBe(403);
    expect(lms.state.resourceLinks.get(link.id)!.custom).toBeNull();
  });

  it('answers the LMS’s own web session, which must send its authenticity token to change anything', async () => {
    const cookie = lms.webSessionCookie('instructor');
    const session = [...lms.state.webSessions.values()].at(-1)!;
    const listed = await fetch(`${lms.baseUrl}/api/v1/courses/101/lti_resource_links`, { headers: { cookie } });
    expect(listed.status).toBe(200);
    // Session JSON is guarded against being loaded as a script.
    expect(await listed.text()).toBe('while(1);[]');
    const post = (headers: Record<string, string>) =>
      fetch(`${lms.baseUrl}/api/v1/courses/101/lti_resource_links`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ url: LAUNCH_URL, custom: FORGED }),
      });
    expect((await post({})).status).toBe(422);
    expect(lms.state.resourceLinks.size).toBe(0);
    expect((await post({ 'x-csrf-token': session.csrfToken })).status).toBe(200);
    expect(lms.state.resourceLinks.size).toBe(1);
  });
});

describe('launching a resource link', () => {
  it('puts the link’s literal custom values over the tool’s, while sub, roles and context stay truthful', async () => {
    const link = lms.state.createResourceLink({ courseId: 101, url: LAUNCH_URL, custom: FORGED });
    const honest = await signedClaims({ person: 'student1', placement: 'course_navigation', courseId: 101 });
    const forged = await signedClaims({ person: 'student1', placement: 'course_navigation', resourceLinkId: link.resourceLinkUuid });

    expect(forged[`${LTI_CLAIM}custom`]).toMatchObject(FORGED);
    // Fields the link does not name keep the tool's expansion.
    expect(forged[`${LTI_CLAIM}custom`]).toMatchObject({ lms_lis_membership_roles: LTI_ROLES.learner });
    expect(forged.sub).toBe(lms.state.users.get(3)!.ltiId);
    expect(forged.sub).toBe(honest.sub);
    expect(forged[`${LTI_CLAIM}roles`]).toEqual([LTI_ROLES.institutionStudent, LTI_ROLES.learner, LTI_ROLES.systemUser]);
    expect(forged[`${LTI_CLAIM}context`]).toEqual({
      id: lms.state.courses.get(101)!.ltiContextId,
      label: 'BIO101',
      title: 'Biology 101',
      type: ['http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering'],
    });
    expect(forged[`${LTI_CLAIM}resource_link`]).toMatchObject({ id: link.resourceLinkUuid });
    expect(honest[`${LTI_CLAIM}resource_link`]).toMatchObject({ id: lms.state.courses.get(101)!.ltiContextId });
    expect(honest[`${LTI_CLAIM}custom`]).toMatchObject({ lms_user_id: '3', exb_launch_surface: 'course', lms_course_id: '101' });
  });

  it('merges for assessment and link launches too, keeping link keys as written and expanding their variables', async () => {
    const link = lms.state.createResourceLink({
      courseId: 101,
      url: `${TOOL.baseUrl}/exb/launch/classicquiz_201`,
      title: 'Midterm link',
      custom: { LMS_Course_Id: '$Canvas.course.id', lms_membership_roles: 'StudentEnrollment', note: 'from the link' },
    });
    const claims = await signedClaims({ person: 'instructor', placement: 'assessment', resourceLinkId: link.resourceLinkUuid });
    expect(claims[`${LTI_CLAIM}target_link_uri`]).toBe(`${TOOL.baseUrl}/exb/launch/classicquiz_201`);
    expect(claims[`${LTI_CLAIM}resource_link`]).toEqual({ id: link.resourceLinkUuid, title: 'Midterm link', description: null });
    expect(claims[PLACEMENT_CLAIM]).toBeNull();
    expect(claims[`${LTI_CLAIM}custom`]).toMatchObject({
      LMS_Course_Id: '101',
      lms_course_id: '101',
      lms_membership_roles: 'StudentEnrollment',
      note: 'from the link',
      lms_user_id: '2',
    });
    expect(claims[`${LTI_CLAIM}roles`]).toContain(LTI_ROLES.instructor);
  });

  it('gives links inside the course only the tool-level fields unless their URL names a placement', async () => {
    const plain = lms.platform.buildLaunch({ person: 'instructor', placement: 'link', courseId: 101 });
    expect(plain.claims[PLACEMENT_CLAIM]).toBeNull();
    expect(plain.claims[`${LTI_CLAIM}custom`]).toMatchObject({ exb_launch_surface: 'course' });
    const named = lms.platform.buildLaunch({ person: 'instructor', placement: 'link', courseId: 101, placementParam: 'account_navigation' });
    expect(named.claims[PLACEMENT_CLAIM]).toBe('account_navigation');
    expect(named.claims[`${LTI_CLAIM}custom`]).toMatchObject({ exb_launch_surface: 'account_admin', lms_user_is_root_account_admin: false, lms_account_id: '2' });
  });

  it('copies the placement claim from the launch URL of a course tab, with the link named there', async () => {
    const link = lms.state.createResourceLink({ courseId: 101, url: LAUNCH_URL, custom: { lms_user_is_root_account_admin: 'true' } });
    const claims = await claimsOfPage(`/courses/101/external_tools/1?placement=account_navigation&resource_link_id=${link.resourceLinkUuid}`, 'instructor');
    expect(claims[PLACEMENT_CLAIM]).toBe('account_navigation');
    expect(claims[`${LTI_CLAIM}custom`]).toMatchObject({ exb_launch_surface: 'account_admin', lms_user_is_root_account_admin: 'true', lms_user_id: '2' });
    // The platform's own claims still say: an instructor, in the course, through this link.
    expect(claims[`${LTI_CLAIM}roles`]).toEqual([LTI_ROLES.institutionInstructor, LTI_ROLES.instructor, LTI_ROLES.systemUser]);
    expect(claims[`${LTI_CLAIM}context`]).toMatchObject({ id: lms.state.courses.get(101)!.ltiContextId, type: ['http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering'] });
    expect(claims[`${LTI_CLAIM}resource_link`]).toMatchObject({ id: link.resourceLinkUuid });
  });

  it('launches rich-content links by their lookup UUID, and refuses links of another course or none', async () => {
    const link = lms.state.createResourceLink({ courseId: 101, url: `${TOOL.baseUrl}/exb/launch/newquiz:101:301`, custom: { lms_user_id: '1' } });
    const claims = await claimsOfPage(`/courses/101/external_tools/retrieve?resource_link_lookup_uuid=${link.lookupUuid}`, 'student1');
    expect(claims[`${LTI_CLAIM}target_link_uri`]).toBe(`${TOOL.baseUrl}/exb/launch/newquiz:101:301`);
    expect(claims[`${LTI_CLAIM}custom`]).toMatchObject({ lms_user_id: '1' });
    expect(claims[PLACEMENT_CLAIM]).toBeNull();

    const cookie = lms.webSessionCookie('instructor');
    const other = await fetch(`${lms.baseUrl}/courses/102/external_tools/1?resource_link_id=${link.resourceLinkUuid}`, { headers: { cookie } });
    expect(other.status).toBe(404);
    expect(await other.text()).toContain('Resource link not found');
    expect(() => lms.platform.buildLaunch({ person: 'instructor', placement: 'course_navigation', courseId: 102, resourceLinkId: link.resourceLinkUuid })).toThrow(
      /another course/,
    );
  });

  it('asks for the permissions a placement named in a link’s URL requires', async () => {
    const url = encodeURIComponent(LAUNCH_URL);
    const student = await fetch(`${lms.baseUrl}/courses/101/external_tools/retrieve?url=${url}&placement=account_navigation`, {
      headers: { cookie: lms.webSessionCookie('student1') },
    });
    expect(student.status).toBe(401);
    const tab = await fetch(`${lms.baseUrl}/courses/101/external_tools/1?placement=no_such_placement`, { headers: { cookie: lms.webSessionCookie('instructor') } });
    expect(tab.status).toBe(404);
  });
});
