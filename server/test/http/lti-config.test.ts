import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { importJWK, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadToolKeys } from '../../src/security/tool-keys.js';
import { createTestApp, type TestApp } from '../support/app.js';

const BASE = 'https://tool.example.test';

// Canvas's names (`lib/lti/variable_expander.rb`): Canvas would send the contract's `$Lms...` placeholders back literally.
const courseCustomFields = {
  lms_user_id: '$Canvas.user.id',
  lms_membership_roles: '$Canvas.membership.roles',
  lms_lis_membership_roles: '$com.Instructure.membership.roles',
  exb_launch_surface: 'course',
  lms_course_id: '$Canvas.course.id',
  lms_membership_permissions: expect.stringMatching(/^\$Canvas\.membership\.permissions<[a-z_,]+>$/),
};

const accountCustomFields = {
  lms_user_id: '$Canvas.user.id',
  exb_launch_surface: 'account_admin',
  lms_account_id: '$Canvas.account.id',
  lms_root_account_id: '$Canvas.rootAccount.id',
  lms_user_is_root_account_admin: '$Canvas.user.isRootAccountAdmin',
};

describe.each([
  { flag: undefined, visibility: 'members' },
  { flag: 'true', visibility: 'members' },
  { flag: 'false', visibility: 'admins' },
])('GET /lti/config with LTI_COURSE_NAVIGATION_VISIBLE_TO_STUDENTS=$flag', ({ flag, visibility }) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      env: {
        BASE_URL: BASE,
        LMS_PLATFORM: 'lms.example.platform',
        ...(flag === undefined ? {} : { LTI_COURSE_NAVIGATION_VISIBLE_TO_STUDENTS: flag }),
      },
    });
  });
  afterAll(() => t.close());

  it('returns the registration document field by field', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/lti/config' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const doc = response.json();
    expect(Object.keys(doc).sort()).toEqual(
      ['custom_fields', 'description', 'extensions', 'oidc_initiation_url', 'public_jwk_url', 'scopes', 'target_link_uri', 'title'].sort(),
    );
    expect(typeof doc.title).toBe('string');
    expect(typeof doc.description).toBe('string');
    expect(doc.oidc_initiation_url).toBe(`${BASE}/lti/login`);
    expect(doc.target_link_uri).toBe(`${BASE}/lti/launch`);
    expect(doc.public_jwk_url).toBe(`${BASE}/.well-known/jwks.json`);
    expect(doc.scopes).toEqual([]);
    expect(doc.custom_fields).toEqual(courseCustomFields);
    expect(doc.extensions).toHaveLength(1);
    const [extension] = doc.extensions;
    expect(extension.platform).toBe('lms.example.platform');
    expect(extension.privacy_level).toBe('public');
    expect(typeof extension.settings.text).toBe('string');
    expect(extension.settings.placements).toHaveLength(2);
    const [course, account] = extension.settings.placements;
    expect(course).toEqual({
      placement: 'course_navigation',
      message_type: 'LtiResourceLinkRequest',
      target_link_uri: `${BASE}/lti/launch`,
      text: expect.any(String),
      visibility,
      default: 'enabled',
      enabled: true,
      custom_fields: courseCustomFields,
    });
    expect(account).toEqual({
      placement: 'account_navigation',
      message_type: 'LtiResourceLinkRequest',
      target_link_uri: `${BASE}/lti/launch`,
      text: expect.any(String),
      visibility: 'admins',
      required_permissions: 'manage_course_content_edit',
      default: 'enabled',
      enabled: true,
      display_type: 'full_width_in_context',
      root_account_only: true,
      custom_fields: accountCustomFields,
    });
  });
});

describe('GET /.well-known/jwks.json', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('publishes the RSA public key without private members, usable to verify the tool signature', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
    expect(response.statusCode).toBe(200);
    const { keys } = response.json();
    expect(keys).toHaveLength(1);
    const [key] = keys;
    expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(key).not.toHaveProperty(member);
    expect(createPublicKey({ key, format: 'jwk' }).asymmetricKeyDetails?.modulusLength).toBeGreaterThanOrEqual(2048);

    const [toolKey] = await loadToolKeys(t.config.lti.toolPrivateKeys);
    expect(key.kid).toBe(toolKey!.kid);
    const jwt = await new SignJWT({ probe: true }).setProtectedHeader({ alg: 'RS256', kid: toolKey!.kid }).sign(toolKey!.privateKey);
    const verified = await jwtVerify(jwt, await importJWK(key, 'RS256'));
    expect(verified.payload.probe).toBe(true);
  });
});

describe('key rotation', () => {
  const pem = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  let t: TestApp;
  beforeAll(async () => {
    // Operators paste keys into one variable, often with escaped newlines.
    t = await createTestApp({ env: { LTI_TOOL_PRIVATE_KEY: `${pem()}${pem()}`.replace(/\n/g, '\\n') } });
  });
  afterAll(() => t.close());

  it('publishes every configured key with distinct kids', async () => {
    const { keys } = (await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
    expect(keys).toHaveLength(2);
    expect(new Set(keys.map((key: { kid: string }) => key.kid)).size).toBe(2);
  });
});
