import { SignJWT } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { LtiError } from '../../src/lti/errors.js';
import { LTI_CLAIMS, verifyIdToken, type TokenExpectations } from '../../src/lti/id-token.js';
import { PlatformKeySet } from '../../src/lti/platform-keys.js';
import { keySetFetch, rsaKey, signJwt } from './token-fixtures.js';

const platform = rsaKey('2026-01-01T00:00:00Z');
const foreign = rsaKey('2026-01-01T00:00:00Z');
const weak = rsaKey('weak-1024', 1024);
const NOW = 1_800_000_000;

const expected: TokenExpectations = {
  issuer: 'https://lms.example.test',
  clientId: '10000000000001',
  nonce: '0b7f2c1e-4d43-4a5e-9f55-1a1c1c7d3a10',
  baseUrl: 'https://tool.example.test',
  deploymentIds: ['1:abc'],
  deploymentIdCheckingEnabled: true,
  nowSeconds: NOW,
};

function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const base: Record<string, unknown> = {
    iss: expected.issuer,
    aud: expected.clientId,
    azp: expected.clientId,
    iat: NOW - 5,
    exp: NOW + 3600,
    nonce: expected.nonce,
    sub: 'e77934e7-4e98-4055-b4b4-3a8431e4f22a',
    name: 'Ian Instructor',
    [LTI_CLAIMS.version]: '1.3.0',
    [LTI_CLAIMS.messageType]: 'LtiResourceLinkRequest',
    [LTI_CLAIMS.deploymentId]: '1:abc',
    [LTI_CLAIMS.targetLinkUri]: 'https://tool.example.test/lti/launch',
    [LTI_CLAIMS.roles]: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor'],
    [LTI_CLAIMS.custom]: { lms_user_id: '2' },
    [LTI_CLAIMS.context]: { id: 'c', title: 'Biology 101', type: ['http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering'] },
    [LTI_CLAIMS.resourceLink]: { id: 'c', title: 'Biology 101' },
  };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete base[key];
    else base[key] = value;
  }
  return base;
}

const sign = (payload: Record<string, unknown>, key = platform, header: Record<string, unknown> = {}) =>
  new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: key.kid, ...header }).sign(key.privateKey);

let keys: PlatformKeySet;
beforeEach(() => {
  keys = new PlatformKeySet({ jwksUrl: 'https://lms.example.test/jwks', fetch: keySetFetch(() => [platform.jwk, weak.jwk]).fetchImpl });
});

async function codeOf(token: string, overrides: Partial<TokenExpectations> = {}): Promise<string> {
  try {
    await verifyIdToken(token, keys, { ...expected, ...overrides });
    return 'ok';
  } catch (error) {
    if (error instanceof LtiError) return error.code;
    throw error;
  }
}

describe('id_token validation', () => {
  it('accepts a valid launch token and returns its claims', async () => {
    const result = await verifyIdToken(await sign(claims()), keys, expected);
    expect(result).toMatchObject({
      issuer: expected.issuer,
      subject: 'e77934e7-4e98-4055-b4b4-3a8431e4f22a',
      deploymentId: '1:abc',
      messageType: 'LtiResourceLinkRequest',
      target: { kind: 'lti', path: '/lti/launch' },
      name: 'Ian Instructor',
      context: { id: 'c', title: 'Biology 101', types: ['http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering'] },
    });
  });

  it('refuses a tampered payload (wrong signature)', async () => {
    const [header, , signature] = (await sign(claims())).split('.');
    const forged = Buffer.from(JSON.stringify(claims({ sub: 'someone-else' }))).toString('base64url');
    expect(await codeOf(`${header}.${forged}.${signature}`)).toBe('LTI_TOKEN_SIGNATURE');
  });

  it('refuses a token signed by a foreign key under a published kid', async () => {
    expect(await codeOf(await sign(claims(), foreign))).toBe('LTI_TOKEN_SIGNATURE');
  });

  it('refuses a token signed under a kid the LMS does not publish', async () => {
    expect(await codeOf(await sign(claims(), rsaKey('unpublished')))).toBe('LTI_TOKEN_UNKNOWN_KEY');
  });

  it('refuses a token without a kid', async () => {
    const token = signJwt(claims(), platform.privateKey, { alg: 'RS256' });
    expect(await codeOf(token)).toBe('LTI_TOKEN_UNKNOWN_KEY');
  });

  it('refuses a token signed with a published 1024-bit key, explaining why', async () => {
    const token = signJwt(claims(), weak.privateKey, { alg: 'RS256', kid: weak.kid });
    expect(await codeOf(token)).toBe('LTI_PLATFORM_KEY_TOO_WEAK');
  });

  it.each(['none', 'HS256', 'RS512', 'PS256'])('refuses alg %s', async (alg) => {
    const token = signJwt(claims(), platform.privateKey, { alg, kid: platform.kid });
    expect(await codeOf(token)).toBe('LTI_TOKEN_ALGORITHM');
  });

  it('refuses a token that is not a JWS', async () => {
    expect(await codeOf('a.b.c')).toBe('LTI_TOKEN_MALFORMED');
  });

  it('refuses a NUL character in any claim, name or value, as malformed', async () => {
    expect(await codeOf(await sign(claims({ sub: 'user\u0000' })))).toBe('LTI_TOKEN_MALFORMED');
    expect(await codeOf(await sign(claims({ [LTI_CLAIMS.context]: { id: 'c\u0000', title: 'Biology 101' } })))).toBe('LTI_TOKEN_MALFORMED');
    expect(await codeOf(await sign(claims({ [LTI_CLAIMS.custom]: { 'lms\u0000user_id': '2' } })))).toBe('LTI_TOKEN_MALFORMED');
    expect(await codeOf(await sign(claims({ [LTI_CLAIMS.roles]: ['Instructor\u0000'] })))).toBe('LTI_TOKEN_MALFORMED');
  });

  it('checks the issuer', async () => {
    expect(await codeOf(await sign(claims({ iss: 'https://other.example.test' })))).toBe('LTI_TOKEN_ISSUER');
  });

  it('checks the audience as a string or an array, with azp', async () => {
    expect(await codeOf(await sign(claims({ aud: 'another-tool', azp: undefined })))).toBe('LTI_TOKEN_AUDIENCE');
    expect(await codeOf(await sign(claims({ aud: [expected.clientId], azp: undefined })))).toBe('ok');
    expect(await codeOf(await sign(claims({ aud: [expected.clientId, 'other'], azp: expected.clientId })))).toBe('ok');
    expect(await codeOf(await sign(claims({ aud: [expected.clientId, 'other'], azp: undefined })))).toBe('LTI_TOKEN_AUDIENCE');
    expect(await codeOf(await sign(claims({ aud: ['other'], azp: expected.clientId })))).toBe('LTI_TOKEN_AUDIENCE');
    expect(await codeOf(await sign(claims({ azp: 'other' })))).toBe('LTI_TOKEN_AUDIENCE');
  });

  it('checks the nonce', async () => {
    expect(await codeOf(await sign(claims({ nonce: 'another-nonce' })))).toBe('LTI_TOKEN_NONCE');
    expect(await codeOf(await sign(claims({ nonce: undefined })))).toBe('LTI_TOKEN_NONCE');
  });

  it('checks expiry with a small clock skew', async () => {
    expect(await codeOf(await sign(claims({ exp: NOW - 61 })))).toBe('LTI_TOKEN_EXPIRED');
    expect(await codeOf(await sign(claims({ exp: NOW - 30 })))).toBe('ok');
  });

  it('refuses an iat (or nbf) in the future beyond the skew', async () => {
    expect(await codeOf(await sign(claims({ iat: NOW + 300 })))).toBe('LTI_TOKEN_ISSUED_IN_FUTURE');
    expect(await codeOf(await sign(claims({ nbf: NOW + 300 })))).toBe('LTI_TOKEN_ISSUED_IN_FUTURE');
    expect(await codeOf(await sign(claims({ iat: NOW + 30 })))).toBe('ok');
  });

  it('refuses a token older than a login can be', async () => {
    expect(await codeOf(await sign(claims({ iat: NOW - 700 })))).toBe('LTI_TOKEN_TOO_OLD');
    expect(await codeOf(await sign(claims({ iat: NOW - 600 })))).toBe('ok');
  });

  it('requires numeric iat and exp', async () => {
    expect(await codeOf(await sign(claims({ iat: undefined })))).toBe('LTI_TOKEN_CLAIMS');
    expect(await codeOf(await sign(claims({ exp: '9999999999' })))).toBe('LTI_TOKEN_CLAIMS');
  });

  it('checks the LTI version', async () => {
    expect(await codeOf(await sign(claims({ [LTI_CLAIMS.version]: '1.1' })))).toBe('LTI_TOKEN_VERSION');
  });

  it('checks the message type, accepting deep linking for its own answer', async () => {
    expect(await codeOf(await sign(claims({ [LTI_CLAIMS.messageType]: 'LtiSubmissionReviewRequest' })))).toBe(
      'LTI_TOKEN_MESSAGE_TYPE',
    );
    expect(await codeOf(await sign(claims({ [LTI_CLAIMS.messageType]: 'LtiDeepLinkingRequest' })))).toBe('ok');
  });

  it('checks the deployment id against the allowlist only while checking is enabled', async () => {
    const other = await sign(claims({ [LTI_CLAIMS.deploymentId]: '9:zzz' }));
    expect(await codeOf(other)).toBe('LTI_TOKEN_DEPLOYMENT');
    expect(await codeOf(other, { deploymentIdCheckingEnabled: false })).toBe('ok');
    expect(await codeOf(await sign(claims({ [LTI_CLAIMS.deploymentId]: undefined })), { deploymentIdCheckingEnabled: false })).toBe(
      'LTI_TOKEN_DEPLOYMENT',
    );
  });

  it('checks the target link URI, and that an exam-browser endpoint receives its own target', async () => {
    expect(await codeOf(await sign(claims({ [LTI_CLAIMS.targetLinkUri]: 'https://evil.example.test/lti/launch' })))).toBe(
      'LTI_TOKEN_TARGET',
    );
    const exb = await sign(claims({ [LTI_CLAIMS.targetLinkUri]: 'https://tool.example.test/exb/launch/classicquiz_201' }));
    expect(await codeOf(exb)).toBe('ok');
    const endpoint = { kind: 'exb', path: '/exb/launch/classicquiz_202', contentId: 'classicquiz_202' } as const;
    expect(await codeOf(exb, { endpointTarget: endpoint })).toBe('LTI_TOKEN_TARGET');
  });

  it('requires the subject (identity binds to it) and, on a resource-link launch, the resource link id', async () => {
    expect(await codeOf(await sign(claims({ sub: undefined })))).toBe('LTI_TOKEN_CLAIMS');
    expect(await codeOf(await sign(claims({ sub: '' })))).toBe('LTI_TOKEN_CLAIMS');
    expect(await codeOf(await sign(claims({ [LTI_CLAIMS.resourceLink]: undefined })))).toBe('LTI_TOKEN_CLAIMS');
    expect(await codeOf(await sign(claims({ [LTI_CLAIMS.resourceLink]: { title: 'no id' } })))).toBe('LTI_TOKEN_CLAIMS');
    const deepLinking = claims({ [LTI_CLAIMS.messageType]: 'LtiDeepLinkingRequest', [LTI_CLAIMS.resourceLink]: undefined });
    expect(await codeOf(await sign(deepLinking))).toBe('ok');
  });

  it('reads a context without an id as no context', async () => {
    const result = await verifyIdToken(await sign(claims({ [LTI_CLAIMS.context]: { title: 'x', type: ['Account'] } })), keys, expected);
    expect(result.context).toBeUndefined();
  });

  it('requires well-formed roles and custom claims', async () => {
    expect(await codeOf(await sign(claims({ [LTI_CLAIMS.roles]: undefined })))).toBe('LTI_TOKEN_CLAIMS');
    expect(await codeOf(await sign(claims({ [LTI_CLAIMS.roles]: [1] })))).toBe('LTI_TOKEN_CLAIMS');
    expect(await codeOf(await sign(claims({ [LTI_CLAIMS.custom]: 'x' })))).toBe('LTI_TOKEN_CLAIMS');
  });

  it('runs the claim checks in the contract order', async () => {
    const everythingWrong = {
      iss: 'https://other.example.test',
      aud: 'other',
      nonce: 'x',
      exp: NOW - 3600,
      [LTI_CLAIMS.version]: '1.1',
      [LTI_CLAIMS.messageType]: 'x',
      [LTI_CLAIMS.deploymentId]: 'x',
      [LTI_CLAIMS.targetLinkUri]: 'x',
    };
    const order = [
      ['iss', 'LTI_TOKEN_ISSUER'],
      ['aud', 'LTI_TOKEN_AUDIENCE'],
      ['nonce', 'LTI_TOKEN_NONCE'],
      ['exp', 'LTI_TOKEN_EXPIRED'],
      [LTI_CLAIMS.version, 'LTI_TOKEN_VERSION'],
      [LTI_CLAIMS.messageType, 'LTI_TOKEN_MESSAGE_TYPE'],
      [LTI_CLAIMS.deploymentId, 'LTI_TOKEN_DEPLOYMENT'],
      [LTI_CLAIMS.targetLinkUri, 'LTI_TOKEN_TARGET'],
    ] as const;
    const fixed: Record<string, unknown> = {};
    for (const [claim, code] of order) {
      expect(await codeOf(await sign(claims({ ...everythingWrong, ...fixed })))).toBe(code);
      fixed[claim] = claims()[claim];
    }
    expect(await codeOf(await sign(claims({ ...everythingWrong, ...fixed })))).toBe('ok');
  });
});
