import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { checkSessionReadiness, configGrantPath, dismissSessionReadiness, requestConfigGrant } from '../src/views/student/api';
import { catalogue, startEnglish } from './support/i18n';

beforeAll(startEnglish);
afterEach(() => {
  vi.unstubAllGlobals();
});

const { student, common, errors } = catalogue;

/** Answers every request of the page with `status` and `body` (a body that is no JSON when it is a string). */
function answer(status: number, body: unknown): ReturnType<typeof vi.fn> {
  const fetch = vi.fn(async () => new Response(typeof body === 'string' ? body : JSON.stringify(body), { status }));
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

describe('configGrantPath', () => {
  it('fills the course and the assessment into the grant route, encoded', () => {
    expect(configGrantPath('101', 'classicquiz_201')).toBe('/api/exb/config-grant/101/classicquiz_201');
    expect(configGrantPath('1 01', 'a/b')).toBe('/api/exb/config-grant/1%2001/a%2Fb');
  });

  it('refuses an empty id rather than calling another route', () => {
    expect(() => configGrantPath('', 'classicquiz_201')).toThrow(RangeError);
  });
});

describe('requestConfigGrant', () => {
  it('posts the action token, with the purpose only from the student list, and hands over the handoff page', async () => {
    const fetch = answer(200, { success: true, handoffUrl: '/exb/launch-handoff?ticket=abc' });
    expect(await requestConfigGrant('/grant', 'token-1', 'student-list')).toEqual({ kind: 'handoff', handoffUrl: '/exb/launch-handoff?ticket=abc' });
    expect(JSON.parse(String(fetch.mock.calls[0]![1]!.body))).toEqual({ actionToken: 'token-1', handoffPurpose: 'student-list' });
    await requestConfigGrant('/grant', 'token-2', 'assessment');
    expect(JSON.parse(String(fetch.mock.calls[1]![1]!.body))).toEqual({ actionToken: 'token-2' });
  });

  it('follows no handoff address but the same-origin handoff page', async () => {
    for (const handoffUrl of ['https://evil.example/exb/launch-handoff', '//evil.example/exb/launch-handoff', '/exb/other', 'sebs://x']) {
      answer(200, { success: true, handoffUrl });
      expect(await requestConfigGrant('/grant', 't', 'assessment'), handoffUrl).toEqual({ kind: 'failed', message: student.download.unexpectedAnswer });
    }
  });

  it('asks for authorization first, with the start the refusal names only when it is a path here', async () => {
    answer(403, { error_code: ErrorCodes.LMS_SESSION_AUTHORIZATION_REQUIRED, authorizeUrl: '/api/student-session-authorize' });
    expect(await requestConfigGrant('/grant', 't', 'assessment')).toEqual({ kind: 'authorization-required', authorizeUrl: '/api/student-session-authorize' });
    answer(403, { error_code: ErrorCodes.LMS_SESSION_AUTHORIZATION_REQUIRED, authorizeUrl: 'https://evil.example/' });
    expect(await requestConfigGrant('/grant', 't', 'assessment')).toEqual({ kind: 'authorization-required', authorizeUrl: undefined });
  });

  it('words a refusal by its code, a spent budget as downloads, and codeless refusals by their status', async () => {
    answer(429, {});
    expect(await requestConfigGrant('/grant', 't', 'assessment')).toEqual({ kind: 'failed', message: student.download.rateLimited });
    answer(400, { error_code: ErrorCodes.EXB_CONFIG_GRANT_INVALID, message: 'English wording' });
    expect(await requestConfigGrant('/grant', 't', 'assessment')).toEqual({ kind: 'failed', message: errors.EXB_CONFIG_GRANT_INVALID });
    answer(404, 'not json');
    expect(await requestConfigGrant('/grant', 't', 'assessment')).toEqual({ kind: 'failed', message: student.download.unavailable });
    answer(403, { error_code: 'NOT_A_CODE' });
    expect(await requestConfigGrant('/grant', 't', 'assessment')).toEqual({ kind: 'failed', message: student.download.refused });
    answer(502, null);
    expect(await requestConfigGrant('/grant', 't', 'assessment')).toEqual({ kind: 'failed', message: student.download.failed.replace('{{status}}', '502') });
  });

  it('says the tool could not be reached when no answer came', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('network down'))));
    expect(await requestConfigGrant('/grant', 't', 'assessment')).toEqual({ kind: 'failed', message: common.unreachable });
  });
});

describe('session readiness', () => {
  it('is ready only with the confirmed check, telling whether the LMS will ask for its terms', async () => {
    answer(200, { success: true, checks: { lmsSessionAuthorization: true } });
    expect(await checkSessionReadiness()).toEqual({ kind: 'ready', termsAcceptanceRequired: false });
    answer(200, { success: true, checks: { lmsSessionAuthorization: true, lmsTermsAcceptanceRequired: true } });
    expect(await checkSessionReadiness()).toEqual({ kind: 'ready', termsAcceptanceRequired: true });
    answer(200, { success: true, checks: { lmsSessionAuthorization: false } });
    expect(await checkSessionReadiness()).toEqual({ kind: 'failed', message: catalogue.student.readiness.failed.replace('{{status}}', '200') });
  });

  it('asks for authorization on its refusal, and calls the readiness route', async () => {
    const fetch = answer(403, { error_code: ErrorCodes.LMS_SESSION_AUTHORIZATION_REQUIRED });
    expect(await checkSessionReadiness()).toEqual({ kind: 'authorization-required' });
    expect(fetch.mock.calls[0]![0]).toBe('/api/exb/session-readiness');
  });

  it('dismisses the prompt only when the service confirms it', async () => {
    const fetch = answer(200, { success: true });
    expect(await dismissSessionReadiness()).toBe(true);
    expect(fetch.mock.calls[0]![0]).toBe('/api/exb/session-readiness/dismiss');
    answer(500, {});
    expect(await dismissSessionReadiness()).toBe(false);
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('offline'))));
    expect(await dismissSessionReadiness()).toBe(false);
  });
});
