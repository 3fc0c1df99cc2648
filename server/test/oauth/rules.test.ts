import { ADMIN_AND_APPLICATION_SCOPES, ADMIN_SCOPES, APPLICATION_SCOPES } from '@exb/shared/oauth-scopes.js';
import { describe, expect, it } from 'vitest';
import { grantTypeForScopes, profileForStart, scopeParameter, scopesForProfile } from '../../src/oauth/grant-rules.js';
import { lmsHomeUrl } from '../../src/lms/pages.js';
import { redirectUrlOrDefault, safeLocalPath, studentReturnUrl } from '../../src/oauth/redirect.js';
import { reauthorizeUrl, authorizationRequiredBody } from '../../src/oauth/reauthorize.js';

const BASE = 'https://tool.example.test';

describe('scope and grant-type rules', () => {
  it('uses the exact scope sets of the contract', () => {
    expect(scopesForProfile('application')).toEqual(APPLICATION_SCOPES);
    expect(scopesForProfile('admin')).toEqual([...APPLICATION_SCOPES, ...ADMIN_SCOPES]);
    expect(scopeParameter('application')).toBe(APPLICATION_SCOPES.join(' '));
  });

  it('derives the grant type from the scopes', () => {
    expect(grantTypeForScopes(APPLICATION_SCOPES)).toBe('instructor');
    expect(grantTypeForScopes(ADMIN_AND_APPLICATION_SCOPES)).toBe('account_admin');
    expect(grantTypeForScopes([...APPLICATION_SCOPES, ADMIN_SCOPES[0]])).toBe('instructor');
  });

  it('requests the administrator set again whenever an administrator grant exists', () => {
    expect(profileForStart('application', null)).toBe('application');
    expect(profileForStart('application', 'instructor')).toBe('application');
    expect(profileForStart('application', 'account_admin')).toBe('admin');
    expect(profileForStart('admin', null)).toBe('admin');
  });
});

describe('redirect rules', () => {
  it.each([
    ['/lti/launch', '/lti/launch'],
    ['/lti/launch?connected=1', '/lti/launch?connected=1'],
    ['/exb/launch/classicquiz_12#frag', '/exb/launch/classicquiz_12'],
    ['/a/../lti/launch', '/lti/launch'],
    ['/lti//launch', '/lti//launch'],
    ['/./lti/launch', '/lti/launch'],
    ['/x/../lti/launch?next=//elsewhere', '/lti/launch?next=//elsewhere'],
  ])('keeps the local path %s', (input, expected) => {
    expect(safeLocalPath(input, BASE)).toBe(expected);
  });

  it.each([
    'https://attacker.example/',
    '//attacker.example/path',
    '/\\attacker.example',
    '\\\\attacker.example',
    'javascript:alert(1)',
    'lti/launch',
    '/%2e%2e/admin',
    '/%2f%2fattacker.example',
    '/lti/launch\n',
    '',
    `/${'a'.repeat(3000)}`,
    'https://tool.example.test/lti/launch',
    // Dot segments that normalize into a scheme-relative path.
    '/.//attacker.example',
    '/.//attacker.example/lti/launch?x=1',
    '/x/..//attacker.example',
    '/x/y/../..//attacker.example',
    '/..//attacker.example',
    '/../..//attacker.example',
    '/././/attacker.example',
    '/x/.././/attacker.example',
    '/.///attacker.example',
    '/.//',
    '/x/..//',
  ])('replaces unsafe value %# with /lti/launch', (input) => {
    expect(safeLocalPath(input, BASE)).toBeNull();
    expect(redirectUrlOrDefault(input, BASE)).toBe('/lti/launch');
  });

  it('derives the student return URL from the signed launch target only', () => {
    expect(studentReturnUrl('/exb/launch/classicquiz_204')).toBe('/exb/launch/classicquiz_204?connected=1');
    expect(studentReturnUrl('/exb/launch/newquiz:101:301')).toBe('/exb/launch/newquiz:101:301?connected=1');
    expect(studentReturnUrl('/lti/launch')).toBe('/lti/launch?connected=1');
    expect(studentReturnUrl('/exb/launch/not-a-content-id')).toBe('/lti/launch?connected=1');
    expect(studentReturnUrl('/exb/launch/classicquiz_1/../../x')).toBe('/lti/launch?connected=1');
  });

  it('points the LMS return link at the course or the account', () => {
    expect(lmsHomeUrl('https://lms.example.test', { kind: 'instructor', courseId: '101' })).toBe('https://lms.example.test/courses/101');
    expect(lmsHomeUrl('https://lms.example.test', { kind: 'admin', accountId: '1' })).toBe('https://lms.example.test/accounts/1');
  });

  it('builds the reauthorization body instructor routes answer with', () => {
    expect(reauthorizeUrl({ courseId: '101', lmsUserId: '2' })).toBe('/api/oauth2reauthorize?course_id=101&user_id=2');
    const body = authorizationRequiredBody({ courseId: '101', lmsUserId: '2' });
    expect(body).toMatchObject({ success: false, requiresAuth: true });
    expect(body.authUrl.startsWith('/api/oauth2reauthorize')).toBe(true);
  });
});
