import { createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { describe, expect, it } from 'vitest';
import { DL_CLAIM, LTI_CLAIM, LTI_ROLES, PLACEMENT_CLAIM } from '../../src/lms/index.js';
import { TOOL, useInProcessLms } from './helpers.js';
import { completeLaunch, readForm } from './lti-helpers.js';

const { lms } = useInProcessLms();

function remoteKeys() {
  return createRemoteJWKSet(new URL(`${lms.baseUrl}/api/lti/security/jwks`));
}

async function verify(token: string): Promise<JWTPayload> {
  const { payload } = await jwtVerify(token, remoteKeys(), { issuer: lms.issuer, audience: TOOL.clientId, algorithms: ['RS256'] });
  return payload;
}

describe('key set', () => {
  it('publishes public RSA keys only, with timestamp kids and a cache lifetime', async () => {
    const response = await fetch(`${lms.baseUrl}/api/lti/security/jwks`);
    expect(response.headers.get('cache-control')).toMatch(/^max-age=\d+$/);
    const { keys } = (await response.json()) as { keys: Array<Record<string, string>> };
    expect(keys).toHaveLength(1);
    const key = keys[0]!;
    expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', e: 'AQAB' });
    expect(key.kid).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Buffer.from(key.n!, 'base64url').length).toBe(256);
  });

  it('keeps older keys published after a rotation, signing with the newest', async () => {
    const before = lms.platform.keys.active.kid;
    const rotated = lms.platform.keys.rotate(lms.clock.now());
    expect(Date.parse(rotated.kid)).toBeGreaterThan(Date.parse(before));
    expect(lms.platform.jwks().keys.map((key) => key.kid)).toEqual([before, rotated.kid]);
    const launch = lms.platform.buildLaunch({ person: 'instructor', placement: 'course_navigation', nonce: 'n' });
    const token = await launch.idToken();
    expect(decodeProtectedHeader(token).kid).toBe(rotated.kid);
    await expect(verify(token)).resolves.toBeTruthy();
  });
});

describe('login initiation', () => {
  it('has the LMS parameters, in its order', () => {
    const launch = lms.platform.buildLaunch({ person: 'instructor', placement: 'course_navigation' });
    expect(launch.loginUrl).toBe(`${TOOL.baseUrl}/lti/login`);
    expect(Object.keys(launch.loginParams)).toEqual([
      'iss',
      'login_hint',
      'client_id',
      'lti_deployment_id',
      'target_link_uri',
      'lti_message_hint',
      'canvas_environment',
      'canvas_region',
      'lti_storage_target',
    ]);
    expect(launch.loginParams).toMatchObject({
      iss: 'https://canvas.instructure.com',
      client_id: TOOL.clientId,
      lti_deployment_id: TOOL.deploymentId,
      target_link_uri: `${TOOL.baseUrl}/lti/launch`,
      canvas_environment: 'prod',
      canvas_region: 'not_configured',
      lti_storage_target: 'post_message_forwarding',
    });
    expect(launch.loginParams.login_hint).toMatch(/^[0-9a-f]{40}$/);
    expect(launch.loginParams.lti_message_hint!.split('.')).toHaveLength(3);
  });

  it('can send the older deployment_id name instead, or both', () => {
    const older = lms.platform.buildLaunch({ person: 'student1', placement: 'course_navigation', deploymentIdParam: 'deployment_id' });
    expect(older.loginParams).toHaveProperty('deployment_id', TOOL.deploymentId);
    expect(older.loginParams).not.toHaveProperty('lti_deployment_id');
    const both = lms.platform.buildLaunch({ person: 'student1', placement: 'course_navigation', deploymentIdParam: 'both' });
    expect(both.loginParams).toMatchObject({ deployment_id: TOOL.deploymentId, lti_deployment_id: TOOL.deploymentId });
  });

  it('targets /exb/launch/:contentId for an assessment link', () => {
    const launch = lms.platform.buildLaunch({ person: 'student1', placement: 'assessment', contentId: 'classicquiz_201' });
    expect(launch.loginParams.target_link_uri).toBe(`${TOOL.baseUrl}/exb/launch/classicquiz_201`);
    expect(launch.claims[`${LTI_CLAIM}resource_link`]).toMatchObject({ title: 'Midterm exam', description: null });
    expect(launch.claims[PLACEMENT_CLAIM]).toBeNull();
    const newQuiz = lms.platform.buildLaunch({ person: 'student1', placement: 'assessment', contentId: 'newquiz:101:301' });
    expect(newQuiz.loginParams.target_link_uri).toBe(`${TOOL.baseUrl}/exb/launch/newquiz:101:301`);
  });
});

describe('authorization endpoint', () => {
  it('posts a signed id_token and the state back to the registered redirect URI', async () => {
    const launch = lms.platform.buildLaunch({ person: 'instructor', placement: 'course_navigation' });
    const response = await completeLaunch(lms, launch);
    expect(response.status).toBe(200);
    const form = readForm(await response.text());
    expect(form.action).toBe(`${TOOL.baseUrl}/lti/launch`);
    expect(Object.keys(form.fields)).toEqual(['utf8', 'authenticity_token', 'id_token', 'state', 'lti_storage_target']);
    expect(form.fields.state).toBe('state-xyz');
    const claims = await verify(form.fields.id_token!);
    expect(claims.nonce).toBe('nonce-abc');
    expect(decodeProtectedHeader(form.fields.id_token!)).toMatchObject({ typ: 'JWT', alg: 'RS256', kid: lms.platform.keys.active.kid });
  });

  it('uses each prepared launch once', async () => {
    const launch = lms.platform.buildLaunch({ person: 'instructor', placement: 'course_navigation' });
    readForm(await (await completeLaunch(lms, launch)).text());
    const second = readForm(await (await completeLaunch(lms, launch)).text());
    expect(second.fields).toEqual({
      error: 'launch_no_longer_valid',
      error_description: 'The launch has either expired or already been consumed',
      state: 'state-xyz',
    });
  });

  it('requires every parameter and scope=openid, answering by form post', async () => {
    const launch = lms.platform.buildLaunch({ person: 'instructor', placement: 'course_navigation' });
    const missing = readForm(await (await completeLaunch(lms, launch, { overrides: { nonce: undefined, prompt: undefined } })).text());
    expect(missing.action).toBe(`${TOOL.baseUrl}/lti/launch`);
    expect(missing.fields.error).toBe('invalid_request_object');
    expect(missing.fields.error_description).toBe('The following parameters are missing: nonce,prompt');
    const scope = readForm(await (await completeLaunch(lms, launch, { overrides: { scope: 'openid profile' } })).text());
    expect(scope.fields.error).toBe('invalid_request_object');
  });

  it('refuses an unregistered redirect_uri or a forged hint without posting anything', async () => {
    const launch = lms.platform.buildLaunch({ person: 'instructor', placement: 'course_navigation' });
    const foreign = await completeLaunch(lms, launch, { overrides: { redirect_uri: 'https://evil.example/lti/launch' } });
    expect(foreign.status).toBe(400);
    expect(await foreign.text()).toContain('Invalid redirect_uri');
    const forged = await completeLaunch(lms, launch, { overrides: { lti_message_hint: `${launch.loginParams.lti_message_hint}x` } });
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('Invalid lti_message_hint');
  });

  it('accepts /exb/launch/* redirect URIs', async () => {
    const launch = lms.platform.buildLaunch({ person: 'student1', placement: 'assessment', contentId: 'classicquiz_201' });
    const response = await completeLaunch(lms, launch, { overrides: { redirect_uri: `${TOOL.baseUrl}/exb/launch/classicquiz_201` } });
    expect(readForm(await response.text()).fields).toHaveProperty('id_token');
  });

  it('answers login_required without an LMS session or for another user than the login hint', async () => {
    const launch = lms.platform.buildLaunch({ person: 'instructor', placement: 'course_navigation' });
    const anonymous = readForm(await (await completeLaunch(lms, launch, { cookie: null })).text());
    expect(anonymous.fields.error).toBe('login_required');
    const someoneElse = readForm(await (await completeLaunch(lms, launch, { cookie: lms.webSessionCookie('student1') })).text());
    expect(someoneElse.fields.error).toBe('login_required');
  });

  it('answers unauthorized_client while the key is off, and expires hints after five minutes', async () => {
    const launch = lms.platform.buildLaunch({ person: 'instructor', placement: 'course_navigation' });
    lms.platform.enabled = false;
    expect(readForm(await (await completeLaunch(lms, launch)).text()).fields.error).toBe('unauthorized_client');
    lms.platform.enabled = true;
    lms.clock.advance(5 * 60 * 1000 + 1000);
    const expired = await completeLaunch(lms, launch);
    expect(expired.status).toBe(400);
    expect(await expired.text()).toContain('Invalid lti_message_hint');
  });
});

describe('id_token claims', () => {
  async function claimsOf(options: Parameters<typeof lms.platform.buildLaunch>[0]): Promise<JWTPayload> {
    const launch = lms.platform.buildLaunch({ nonce: 'n-1', ...options });
    return verify(await launch.idToken());
  }

  it('carries the LTI claims for an instructor in course navigation', async () => {
    const claims = await claimsOf({ person: 'instructor', placement: 'course_navigation' });
    expect(claims.aud).toBe(TOOL.clientId);
    expect(claims.azp).toBe(TOOL.clientId);
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(claims.sub).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(claims).toMatchObject({
      [`${LTI_CLAIM}message_type`]: 'LtiResourceLinkRequest',
      [`${LTI_CLAIM}version`]: '1.3.0',
      [`${LTI_CLAIM}deployment_id`]: TOOL.deploymentId,
      [`${LTI_CLAIM}target_link_uri`]: `${TOOL.baseUrl}/lti/launch`,
      [`${LTI_CLAIM}context`]: {
        label: 'BIO101',
        title: 'Biology 101',
        type: ['http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering'],
      },
      [`${LTI_CLAIM}resource_link`]: { title: 'Biology 101', description: null },
      [`${LTI_CLAIM}tool_platform`]: { name: 'Example University', version: 'cloud', product_family_code: 'canvas' },
      [`${LTI_CLAIM}launch_presentation`]: { document_target: 'iframe', return_url: `${lms.baseUrl}/courses/101`, locale: 'en' },
      [PLACEMENT_CLAIM]: 'course_navigation',
      name: 'Ian Instructor',
      given_name: 'Ian',
      family_name: 'Instructor',
      email: 'ian.instructor@example.edu',
      [`${LTI_CLAIM}lis`]: { person_sourcedid: 'T-0002', course_offering_sourcedid: 'BIO101-F26' },
    });
    expect(claims[`${LTI_CLAIM}roles`]).toEqual([LTI_ROLES.institutionInstructor, LTI_ROLES.instructor, LTI_ROLES.systemUser]);
    expect(claims[`${LTI_CLAIM}custom`]).toEqual({
      lms_user_id: '2',
      lms_membership_roles: 'TeacherEnrollment',
      lms_lis_membership_roles: LTI_ROLES.instructor,
      exb_launch_surface: 'course',
      lms_course_id: '101',
      lms_membership_permissions: 'manage_assignments_edit,manage_course_content_edit',
    });
  });

  it('gives students, TAs and designers their own roles and rights', async () => {
    const student = await claimsOf({ person: 'student1', placement: 'course_navigation', courseId: 101 });
    expect(student[`${LTI_CLAIM}roles`]).toEqual([LTI_ROLES.institutionStudent, LTI_ROLES.learner, LTI_ROLES.systemUser]);
    expect(student[`${LTI_CLAIM}custom`]).toMatchObject({ lms_membership_roles: 'StudentEnrollment', lms_membership_permissions: '' });
    const ta = await claimsOf({ person: 'ta', placement: 'course_navigation', courseId: 101 });
    expect(ta[`${LTI_CLAIM}roles`]).toEqual([
      LTI_ROLES.institutionInstructor,
      LTI_ROLES.instructor,
      LTI_ROLES.teachingAssistant,
      LTI_ROLES.systemUser,
    ]);
    expect(ta[`${LTI_CLAIM}custom`]).toMatchObject({
      lms_membership_roles: 'TaEnrollment',
      lms_lis_membership_roles: `${LTI_ROLES.teachingAssistant},${LTI_ROLES.instructor}`,
    });
    const designer = await claimsOf({ person: 'designer', placement: 'course_navigation', courseId: 101 });
    expect(designer[`${LTI_CLAIM}roles`]).toEqual([LTI_ROLES.contentDeveloper, LTI_ROLES.systemUser]);
    expect(designer[`${LTI_CLAIM}custom`]).toMatchObject({
      lms_membership_roles: 'DesignerEnrollment',
      lms_membership_permissions: 'manage_assignments_edit,manage_course_content_edit',
    });
  });

  it('marks a root-account administrator in account navigation, with a boolean flag', async () => {
    const claims = await claimsOf({ person: 'administrator', placement: 'account_navigation' });
    expect(claims[`${LTI_CLAIM}roles`]).toEqual([LTI_ROLES.institutionAdministrator, LTI_ROLES.systemUser]);
    expect(claims[`${LTI_CLAIM}context`]).toEqual({ id: expect.stringMatching(/^[0-9a-f]{40}$/), title: 'Example University', type: ['Account'] });
    // Placement fields override the tool-level (course) fields; a course variable stays literal outside a course.
    expect(claims[`${LTI_CLAIM}custom`]).toMatchObject({
      lms_user_id: '1',
      exb_launch_surface: 'account_admin',
      lms_account_id: '1',
      lms_root_account_id: '1',
      lms_user_is_root_account_admin: true,
      lms_course_id: '$Canvas.course.id',
    });
    const sub = await claimsOf({ person: 'subaccount-admin', placement: 'account_navigation', accountId: 2 });
    // A sub-account administrator has the same role claim; only the substitution tells them apart.
    expect(sub[`${LTI_CLAIM}roles`]).toEqual([LTI_ROLES.institutionAdministrator, LTI_ROLES.systemUser]);
    expect(sub[`${LTI_CLAIM}custom`]).toMatchObject({ lms_account_id: '2', lms_user_is_root_account_admin: false });
  });

  it('takes institution roles and the root-admin flag from the context’s own school only', async () => {
    // Another school's administrator has no role in this school's course.
    const elsewhere = await claimsOf({ person: 'other-root-admin', placement: 'course_navigation', courseId: 101 });
    expect(elsewhere[`${LTI_CLAIM}roles`]).toEqual([LTI_ROLES.systemUser]);
    expect(elsewhere[`${LTI_CLAIM}custom`]).toMatchObject({ lms_membership_roles: '' });
    const home = await claimsOf({ person: 'other-root-admin', placement: 'account_navigation', accountId: 4 });
    expect(home[`${LTI_CLAIM}roles`]).toEqual([LTI_ROLES.institutionAdministrator, LTI_ROLES.systemUser]);
    expect(home[`${LTI_CLAIM}custom`]).toMatchObject({ lms_user_is_root_account_admin: true, lms_root_account_id: '4', lms_account_id: '4' });
    expect(home[`${LTI_CLAIM}tool_platform`]).toMatchObject({ name: 'Northfield College' });
    // This school's root administrator is no root administrator of the other.
    const visiting = await claimsOf({ person: 'administrator', placement: 'account_navigation', accountId: 4 });
    expect(visiting[`${LTI_CLAIM}roles`]).toEqual([LTI_ROLES.systemUser]);
    expect(visiting[`${LTI_CLAIM}custom`]).toMatchObject({ lms_user_is_root_account_admin: false });
  });

  it('gives an administrator who is not enrolled the administrator membership in a course', async () => {
    const claims = await claimsOf({ person: 'administrator', placement: 'course_navigation', courseId: 104 });
    expect(claims[`${LTI_CLAIM}custom`]).toMatchObject({ lms_membership_roles: 'Account Admin', lms_course_id: '104' });
  });

  // Canvas's `lib/lti/variable_expander.rb` registers the `$Canvas...` names; `expand_variables!` leaves any other
  // value as it is, so the contract's `$Lms...` placeholders come back literally.
  it('expands Canvas’s names only, like Canvas: normalised keys, literal unknowns, guarded variables', async () => {
    const claims = await claimsOf({
      person: 'administrator',
      placement: 'account_navigation',
      customFields: {
        'Mixed-Key.Name': '$Canvas.user.id',
        typo: '$Canvas.user.ID',
        contract_placeholder: '$Lms.user.id',
        contract_lis_placeholder: '$com.Lms.membership.roles',
        lower_case_i: '$com.instructure.membership.roles',
        lis_roles: '$com.Instructure.membership.roles',
        course_in_account: '$Canvas.course.id',
        embedded: 'user ${Canvas.user.id} in ${Canvas.rootAccount.id}, not ${Lms.user.id}',
        permissions: '$Canvas.membership.permissions<manage_courses_admin,manage_courses,become_user>',
        contract_permissions: '$Lms.membership.permissions<manage_courses_admin>',
        literal: 'plain value',
      },
    });
    expect(claims[`${LTI_CLAIM}custom`]).toEqual({
      mixed_key_name: '1',
      typo: '$Canvas.user.ID',
      contract_placeholder: '$Lms.user.id',
      contract_lis_placeholder: '$com.Lms.membership.roles',
      lower_case_i: '$com.instructure.membership.roles',
      lis_roles: LTI_ROLES.institutionAdministrator,
      course_in_account: '$Canvas.course.id',
      embedded: 'user 1 in 1, not ${Lms.user.id}',
      permissions: 'manage_courses_admin',
      contract_permissions: '$Lms.membership.permissions<manage_courses_admin>',
      literal: 'plain value',
    });
  });

  it('merges the tool-level custom fields with the placement’s as pasted into a developer key, the placement winning', async () => {
    lms.platform.installRegistration({
      title: 'Pasted',
      oidc_initiation_url: `${TOOL.baseUrl}/lti/login`,
      target_link_uri: `${TOOL.baseUrl}/lti/launch`,
      custom_fields: { Tool_Only: '$Canvas.user.id', 'Shared-Key': 'from the tool', old_name: '$Lms.user.id' },
      extensions: [
        {
          platform: 'canvas.instructure.com',
          privacy_level: 'public',
          settings: {
            placements: [{ placement: 'course_navigation', custom_fields: { 'shared.key': 'from the placement', Course: '$Canvas.course.id' } }],
          },
        },
      ],
    });
    try {
      const claims = await claimsOf({ person: 'instructor', placement: 'course_navigation', courseId: 101 });
      expect(claims[`${LTI_CLAIM}custom`]).toEqual({
        tool_only: '2',
        shared_key: 'from the placement',
        old_name: '$Lms.user.id',
        course: '101',
      });
    } finally {
      lms.reset();
    }
  });

  it('acts like a stale registration when the custom fields are missing', async () => {
    const claims = await claimsOf({ person: 'instructor', placement: 'course_navigation', customFields: {} });
    expect(claims[`${LTI_CLAIM}custom`]).toEqual({});
  });

  it('builds deep-linking requests without a resource link', async () => {
    const claims = await claimsOf({ person: 'instructor', placement: 'course_navigation', messageType: 'LtiDeepLinkingRequest' });
    expect(claims[`${LTI_CLAIM}message_type`]).toBe('LtiDeepLinkingRequest');
    expect(claims).not.toHaveProperty(`${LTI_CLAIM}resource_link`);
    expect(claims[`${DL_CLAIM}deep_linking_settings`]).toMatchObject({ accept_types: ['ltiResourceLink'] });
  });

  it('lets a test override or drop claims', async () => {
    const claims = await claimsOf({
      person: 'instructor',
      placement: 'course_navigation',
      claims: { [`${LTI_CLAIM}version`]: '1.1', azp: undefined },
    });
    expect(claims[`${LTI_CLAIM}version`]).toBe('1.1');
    expect(claims).not.toHaveProperty('azp');
  });
});

describe('deliberately broken tokens', () => {
  it('signs with a key outside the key set, which does not verify', async () => {
    const launch = lms.platform.buildLaunch({ person: 'instructor', placement: 'course_navigation', nonce: 'n' });
    const stranger = lms.platform.generateKey();
    const token = await launch.idToken({ key: stranger });
    await expect(verify(token)).rejects.toThrow();
    const sameKid = await launch.idToken({ key: stranger.privateKey, kid: lms.platform.keys.active.kid });
    await expect(verify(sameKid)).rejects.toThrow(/signature verification failed/);
  });

  it('signs with a published 1024-bit key, which jose refuses', async () => {
    const weak = lms.platform.generateKey({ bits: 1024, kid: '2020-01-01T00:00:00Z' });
    expect(weak.bits).toBe(1024);
    lms.platform.keys.publish(weak);
    const launch = lms.platform.buildLaunch({ person: 'instructor', placement: 'course_navigation', nonce: 'n' });
    const token = await launch.idToken({ key: weak });
    const jwks = createLocalJWKSet(lms.platform.jwks());
    await expect(jwtVerify(token, jwks)).rejects.toThrow(/2048/);
  });

  it('signs arbitrary claims', async () => {
    const token = await lms.platform.signIdToken({ iss: 'https://other.example', aud: TOOL.clientId });
    const { payload } = await jwtVerify(token, createLocalJWKSet(lms.platform.jwks()));
    expect(payload.iss).toBe('https://other.example');
  });
});

describe('registration', () => {
  it('installs another registration document, e.g. the running service’s', async () => {
    lms.platform.installRegistration({
      title: 'Other',
      oidc_initiation_url: `${TOOL.baseUrl}/other/login`,
      target_link_uri: `${TOOL.baseUrl}/other/launch`,
      extensions: [
        {
          platform: 'canvas.instructure.com',
          privacy_level: 'anonymous',
          settings: { placements: [{ placement: 'course_navigation', custom_fields: { who: '$Canvas.user.id' } }] },
        },
      ],
    });
    const launch = lms.platform.buildLaunch({ person: 'student2', placement: 'course_navigation', nonce: 'n' });
    expect(launch.loginUrl).toBe(`${TOOL.baseUrl}/other/login`);
    expect(launch.loginParams.target_link_uri).toBe(`${TOOL.baseUrl}/other/launch`);
    expect(launch.claims[`${LTI_CLAIM}custom`]).toEqual({ who: '4' });
    expect(launch.claims).not.toHaveProperty('email');
    lms.reset();
    expect(lms.platform.buildLaunch({ person: 'student2', placement: 'course_navigation' }).loginUrl).toBe(`${TOOL.baseUrl}/lti/login`);
  });
});
