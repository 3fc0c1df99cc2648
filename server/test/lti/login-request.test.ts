import { describe, expect, it } from 'vitest';
import { LtiError } from '../../src/lti/errors.js';
import {
  authorizationRedirectUrl,
  LOGIN_PARAMETER_LIMITS,
  readLoginParameters,
  validateLoginRequest,
  type LoginConfig,
} from '../../src/lti/login-request.js';

const config: LoginConfig = {
  baseUrl: 'https://tool.example.test',
  issuer: 'https://lms.example.test',
  clientId: '10000000000001',
  deploymentIds: ['1:abc', '2:def'],
  deploymentIdCheckingEnabled: true,
};

const valid = {
  iss: 'https://lms.example.test',
  login_hint: 'b3f9c2',
  target_link_uri: 'https://tool.example.test/lti/launch',
  client_id: '10000000000001',
  lti_deployment_id: '1:abc',
  lti_message_hint: 'eyJhbGciOiJIUzI1NiJ9.e30.sig',
  canvas_region: 'not_configured',
};

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof LtiError) return error.code;
    throw error;
  }
  return undefined;
}

const check = (params: Record<string, unknown>, overrides: Partial<LoginConfig> = {}) =>
  codeOf(() => validateLoginRequest(readLoginParameters(params), { ...config, ...overrides }));

describe('login parameters', () => {
  it('reads a query object and a form object the same way, ignoring unknown parameters', () => {
    const fromQuery = readLoginParameters({ ...valid });
    const fromForm = readLoginParameters(Object.assign(Object.create(null), valid));
    expect(fromQuery).toEqual(fromForm);
    expect(fromQuery).not.toHaveProperty('canvas_region');
  });

  it('treats empty values as absent', () => {
    expect(readLoginParameters({ ...valid, client_id: '' })).not.toHaveProperty('client_id');
  });

  it.each(Object.entries(LOGIN_PARAMETER_LIMITS))('bounds %s to %i characters', (name, limit) => {
    expect(() => readLoginParameters({ [name]: 'a'.repeat(limit) })).not.toThrow();
    expect(codeOf(() => readLoginParameters({ [name]: 'a'.repeat(limit + 1) }))).toBe('LTI_LOGIN_INVALID_REQUEST');
  });

  it('refuses a parameter given twice', () => {
    expect(codeOf(() => readLoginParameters({ ...valid, iss: [valid.iss, valid.iss] }))).toBe('LTI_LOGIN_INVALID_REQUEST');
  });

  it('accepts a complete, valid login and keeps the hints unchanged', () => {
    const login = validateLoginRequest(readLoginParameters(valid), config);
    expect(login).toMatchObject({
      issuer: valid.iss,
      loginHint: valid.login_hint,
      messageHint: valid.lti_message_hint,
      deploymentId: '1:abc',
      clientId: valid.client_id,
      target: { kind: 'lti', path: '/lti/launch' },
    });
  });

  it.each(['iss', 'login_hint', 'target_link_uri'])('requires %s', (name) => {
    expect(check({ ...valid, [name]: undefined })).toBe('LTI_LOGIN_INVALID_REQUEST');
  });

  it('checks the issuer', () => {
    expect(check({ ...valid, iss: 'https://other.example.test' })).toBe('LTI_LOGIN_ISSUER');
  });

  it('checks the client id only when given', () => {
    expect(check({ ...valid, client_id: '999' })).toBe('LTI_LOGIN_CLIENT_ID');
    expect(check({ ...valid, client_id: undefined })).toBeUndefined();
  });

  it.each([
    'https://evil.example.test/lti/launch',
    'http://tool.example.test/lti/launch',
    'https://tool.example.test:8443/lti/launch',
    'https://tool.example.test/lti/launch/',
    'https://tool.example.test/lti/launch?x=1',
    'https://tool.example.test/lti/launch#x',
    'https://tool.example.test/lti/login',
    'https://tool.example.test/exb/launch/512',
    'https://tool.example.test/exb/launch/classicquiz_0',
    'https://user:pw@tool.example.test/lti/launch',
    'javascript:alert(1)',
    'https://tool.example.test/exb/launch/newquiz:1:99999999999999999999',
    'https://tool.example.test/exb/launch/newquiz:1:2:3',
  ])('refuses the target %s', (target) => {
    expect(check({ ...valid, target_link_uri: target })).toBe('LTI_LOGIN_TARGET');
  });

  it('accepts exam-browser launch targets of both content id forms', () => {
    for (const contentId of ['classicquiz_201', 'newquiz:101:301']) {
      const login = validateLoginRequest(
        readLoginParameters({ ...valid, target_link_uri: `https://tool.example.test/exb/launch/${contentId}` }),
        config,
      );
      expect(login.target).toEqual({ kind: 'exb', path: `/exb/launch/${contentId}`, contentId });
    }
  });

  it('requires an allowlisted deployment id while checking is enabled', () => {
    expect(check({ ...valid, lti_deployment_id: '3:zzz' })).toBe('LTI_LOGIN_DEPLOYMENT');
    expect(check({ ...valid, lti_deployment_id: undefined })).toBe('LTI_LOGIN_DEPLOYMENT');
    expect(check({ ...valid, lti_deployment_id: '2:def' })).toBeUndefined();
  });

  it('accepts any or no deployment id while checking is disabled', () => {
    expect(check({ ...valid, lti_deployment_id: '3:zzz' }, { deploymentIdCheckingEnabled: false })).toBeUndefined();
    expect(check({ ...valid, lti_deployment_id: undefined }, { deploymentIdCheckingEnabled: false })).toBeUndefined();
  });

  it('reads the older deployment_id parameter name, and refuses two different ids', () => {
    const legacy = { ...valid, lti_deployment_id: undefined, deployment_id: '2:def' };
    expect(validateLoginRequest(readLoginParameters(legacy), config).deploymentId).toBe('2:def');
    expect(check({ ...valid, deployment_id: '2:def' })).toBe('LTI_LOGIN_INVALID_REQUEST');
    expect(check({ ...valid, deployment_id: '1:abc' })).toBeUndefined();
  });

  it('checks in the contract order: issuer before client id before target before deployment', () => {
    const allWrong = {
      ...valid,
      iss: 'https://other.example.test',
      client_id: '999',
      target_link_uri: 'https://evil.example.test/',
      lti_deployment_id: 'x',
    };
    expect(check(allWrong)).toBe('LTI_LOGIN_ISSUER');
    expect(check({ ...allWrong, iss: valid.iss })).toBe('LTI_LOGIN_CLIENT_ID');
    expect(check({ ...allWrong, iss: valid.iss, client_id: valid.client_id })).toBe('LTI_LOGIN_TARGET');
  });
});

describe('authorization redirect', () => {
  it('carries every parameter of the authentication request', () => {
    const login = validateLoginRequest(readLoginParameters(valid), config);
    const url = new URL(
      authorizationRedirectUrl({
        authUrl: 'https://lms.example.test/api/lti/authorize_redirect',
        clientId: config.clientId,
        redirectUri: 'https://tool.example.test/lti/launch',
        nonce: 'n-1',
        state: 's-1',
        login,
      }),
    );
    expect(url.origin + url.pathname).toBe('https://lms.example.test/api/lti/authorize_redirect');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      scope: 'openid',
      response_type: 'id_token',
      response_mode: 'form_post',
      prompt: 'none',
      client_id: config.clientId,
      redirect_uri: 'https://tool.example.test/lti/launch',
      login_hint: valid.login_hint,
      lti_message_hint: valid.lti_message_hint,
      nonce: 'n-1',
      state: 's-1',
    });
  });
});
