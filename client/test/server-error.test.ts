import { beforeAll, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import { readServerError } from '../src/lib/trpc';
import { failedOutcome } from '../src/views/admin/reset-outcome';
import { catalogue, startEnglish } from './support/i18n';
import { refusal } from './support/server-error';

beforeAll(startEnglish);

const unreachable = catalogue.teacher.apiClient.unreachable;

describe('readServerError', () => {
  it('reads the code, path, status, details and a same-origin authorization start of a refusal', () => {
    const read = readServerError(
      refusal('Authorize again.', {
        errorCode: ErrorCodes.LMS_AUTHORIZATION_REQUIRED,
        httpStatus: 401,
        path: ['urlRules', 0],
        authUrl: '/oauth/start?x=1',
        details: { outcome: 'refused' },
      }),
    );
    expect(read).toMatchObject({ errorCode: ErrorCodes.LMS_AUTHORIZATION_REQUIRED, httpStatus: 401, path: ['urlRules', 0], authUrl: '/oauth/start?x=1', details: { outcome: 'refused' } });
  });

  it('says a contract code in the catalogue’s words rather than the server’s English', () => {
    const read = readServerError(refusal('Server wording.', { errorCode: ErrorCodes.NOT_FOUND, httpStatus: 404 }));
    expect(read.message).toBe(catalogue.errors.NOT_FOUND);
  });

  it('keeps the server’s message for a code the catalogue does not know', () => {
    expect(readServerError(refusal('Something odd.', { errorCode: 'NOT_A_CODE', httpStatus: 409 })).message).toBe('Something odd.');
  });

  it('refuses an authorization address to another origin, and malformed fields', () => {
    const read = readServerError(
      refusal('No.', { authUrl: 'https://evil.example/oauth', httpStatus: 'four hundred', path: ['ok', { not: 'a segment' }], details: 'text', errorCode: 42 }),
    );
    expect(read).toMatchObject({ authUrl: undefined, httpStatus: undefined, path: undefined, details: undefined, errorCode: undefined });
    for (const authUrl of ['//evil.example/oauth', '/\\evil.example/oauth', 'oauth/start', '']) {
      expect(readServerError(refusal('No.', { authUrl })).authUrl, authUrl).toBeUndefined();
    }
  });

  it('takes the path and code of an input validation failure from its first issue', () => {
    const issues = JSON.stringify([
      { message: 'Not an https address.', path: ['urlRules', 2, 'value'], params: { errorCode: ErrorCodes.INVALID_EXB_URL_POLICY } },
      { message: 'Second issue.', path: ['other'] },
    ]);
    const read = readServerError(refusal(issues, { httpStatus: 400 }));
    expect(read).toMatchObject({ errorCode: ErrorCodes.INVALID_EXB_URL_POLICY, path: ['urlRules', 2, 'value'] });
  });

  it('treats a message that only looks like an issue list as a message', () => {
    expect(readServerError(refusal('[not json', { httpStatus: 400 })).message).toBe('[not json');
    expect(readServerError(refusal('[]', { httpStatus: 400 })).message).toBe('[]');
  });

  it('says the tool could not be reached when no answer came, or for anything that is not an error', () => {
    expect(readServerError(refusal('fetch failed', {})).message).toBe(unreachable);
    expect(readServerError('a string').message).toBe(unreachable);
    expect(readServerError(new Error('')).message).toBe(unreachable);
    expect(readServerError(new Error('Offline.'))).toEqual({
      message: 'Offline.',
      errorCode: undefined,
      path: undefined,
      httpStatus: undefined,
      authUrl: undefined,
      details: undefined,
    });
  });
});

describe('failedOutcome of a course reset', () => {
  const assessment = { id: '201', title: 'Midterm', contentType: 'CLASSIC_QUIZ' };

  it('follows the outcome the refusal names, with the assessments to check', () => {
    expect(failedOutcome(refusal('Undone.', { httpStatus: 409, details: { outcome: 'rolled-back' } }))).toMatchObject({ kind: 'rolled-back', assessments: [] });
    expect(failedOutcome(refusal('Refused.', { httpStatus: 409, details: { outcome: 'refused' } }))).toMatchObject({ kind: 'refused' });
    expect(failedOutcome(refusal('Check.', { httpStatus: 409, details: { outcome: 'verify-required', assessments: [assessment] } }))).toEqual({
      kind: 'verify',
      message: 'Check.',
      assessments: [assessment],
    });
  });

  it('without an outcome, a client refusal changed nothing, while a failure or a lost answer leaves the state unknown', () => {
    expect(failedOutcome(refusal('Forbidden.', { httpStatus: 403 })).kind).toBe('refused');
    expect(failedOutcome(refusal('Broken.', { httpStatus: 500 })).kind).toBe('verify');
    expect(failedOutcome(refusal('fetch failed', {})).kind).toBe('verify');
    expect(failedOutcome(new Error('network')).kind).toBe('verify');
  });

  it('does not trust details of the wrong shape', () => {
    const odd = failedOutcome(refusal('Odd.', { httpStatus: 409, details: { outcome: 'exploded', assessments: [assessment] } }));
    expect(odd).toEqual({ kind: 'refused', message: 'Odd.', assessments: [] });
    const badList = failedOutcome(refusal('Odd.', { httpStatus: 502, details: { outcome: 'verify-required', assessments: [{ id: 1 }] } }));
    expect(badList).toEqual({ kind: 'verify', message: 'Odd.', assessments: [] });
  });
});
