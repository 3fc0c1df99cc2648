import { describe, expect, it } from 'vitest';
import { LtiError } from '../../src/lti/errors.js';
import { MAX_ID_TOKEN_LENGTH, readLaunchEnvelope } from '../../src/lti/launch-envelope.js';

const state = 'A'.repeat(43);
const idToken = 'eyJ.eyJ.sig';

function codeOf(body: unknown): string {
  try {
    readLaunchEnvelope(body);
    return 'ok';
  } catch (error) {
    if (error instanceof LtiError) return error.code;
    throw error;
  }
}

describe('launch envelope', () => {
  it('accepts a token and a state, ignoring the LMS form extras', () => {
    expect(readLaunchEnvelope({ id_token: idToken, state, utf8: '✓', authenticity_token: 'x' })).toEqual({ idToken, state });
  });

  it('answers an LMS error with its own code, echoing only a code-shaped value', () => {
    expect(codeOf({ error: 'login_required', state })).toBe('LTI_LAUNCH_PLATFORM_ERROR');
    try {
      readLaunchEnvelope({ error: '<b>x</b>', error_description: 'Call 555' });
    } catch (error) {
      expect((error as LtiError).details).toEqual([]);
    }
  });

  it.each([
    [{ state }, 'missing id_token'],
    [{ id_token: idToken }, 'missing state'],
    [{ id_token: [idToken, idToken], state }, 'id_token twice'],
    [{ id_token: idToken, state: 'short' }, 'malformed state'],
    [{ id_token: 'not-a-jws', state }, 'not a compact JWS'],
    [{ id_token: `${'a'.repeat(MAX_ID_TOKEN_LENGTH)}.b.c`, state }, 'oversized id_token'],
  ])('refuses %j (%s)', (body, _reason) => {
    expect(codeOf(body)).toBe('LTI_LAUNCH_INVALID_ENVELOPE');
  });
});
