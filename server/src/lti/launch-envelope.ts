import { LtiError } from './errors.js';

/**
 * Bounds of the launch form, checked before any cryptography or database access. The state is the 43-character token
 * the login issued. An id_token of the LMS is 2 to 8 KB (claims, custom fields, service endpoints); 32 KiB leaves room
 * for large rosters of roles and custom fields while keeping signature checks cheap.
 */
export const MAX_ID_TOKEN_LENGTH = 32 * 1024;
const STATE = /^[A-Za-z0-9_-]{43}$/;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const ERROR_CODE = /^[A-Za-z0-9_.-]{1,64}$/;

export interface LaunchEnvelope {
  idToken: string;
  state: string;
}

/** Explanations for the errors the LMS posts instead of a token (its authorization endpoint's error table). */
const PLATFORM_ERRORS: Record<string, string> = {
  login_required: 'The LMS could not confirm who is signed in. Sign in to the LMS again, then open the tool.',
  launch_no_longer_valid: 'This launch was already used or has expired. Reload the LMS page and open the tool again.',
  unauthorized_client: 'The LMS does not allow this tool here: its developer key is off or not enabled for this account.',
  invalid_request_object: 'The LMS rejected the tool’s sign-in request. An administrator should check the developer key’s redirect URIs.',
  invalid_request: 'The LMS rejected the tool’s sign-in request.',
};

const invalidEnvelope = (message: string) =>
  new LtiError('LTI_LAUNCH_INVALID_ENVELOPE', 400, 'The launch could not be verified', message);

/**
 * Step 1 of the launch: the LMS's `error` answer, then presence, type and size of `state` and `id_token`. Throws an
 * {@link LtiError}; never touches a key or the database.
 */
export function readLaunchEnvelope(body: unknown): LaunchEnvelope {
  const form = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const { error, id_token: idToken, state } = form;
  if (error !== undefined) {
    const code = typeof error === 'string' && ERROR_CODE.test(error) ? error : undefined;
    throw new LtiError(
      'LTI_LAUNCH_PLATFORM_ERROR',
      400,
      'The LMS did not complete the launch',
      (code && PLATFORM_ERRORS[code]) ?? 'The LMS answered the launch with an error instead of a signed token. Open the tool again from the LMS.',
      // Only a short, code-shaped value is echoed; the free-text description is not, as anyone can post this form.
      code ? [`LMS error: ${code}`] : [],
    );
  }
  if (typeof idToken !== 'string' || idToken === '') throw invalidEnvelope('The launch does not carry an id_token.');
  if (typeof state !== 'string' || state === '') throw invalidEnvelope('The launch does not carry its state.');
  if (idToken.length > MAX_ID_TOKEN_LENGTH) throw invalidEnvelope('The launch token is larger than this tool accepts.');
  if (!STATE.test(state)) throw invalidEnvelope('The launch state is not one this tool issued.');
  if (!COMPACT_JWS.test(idToken)) throw invalidEnvelope('The launch token is not a compact signed token.');
  return { idToken, state };
}
