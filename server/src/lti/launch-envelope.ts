import { LtiError, type RefusalKey } from './errors.js';

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
const PLATFORM_ERRORS: Readonly<Record<string, RefusalKey>> = {
  login_required: 'platformLoginRequired',
  launch_no_longer_valid: 'platformLaunchNoLongerValid',
  unauthorized_client: 'platformUnauthorizedClient',
  invalid_request_object: 'platformInvalidRequestObject',
  invalid_request: 'platformInvalidRequest',
};

const invalidEnvelope = (key: RefusalKey) => new LtiError('LTI_LAUNCH_INVALID_ENVELOPE', 'launchNotVerified', { key });

/**
 * Step 1 of the launch: the LMS's `error` answer, then presence, type and size of `state` and `id_token`. Throws an
 * {@link LtiError}; never touches a key or the database.
 */
export function readLaunchEnvelope(body: unknown): LaunchEnvelope {
  const form = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const { error, id_token: idToken, state } = form;
  if (error !== undefined) {
    const code = typeof error === 'string' && ERROR_CODE.test(error) ? error : undefined;
    const known = code !== undefined && Object.hasOwn(PLATFORM_ERRORS, code) ? PLATFORM_ERRORS[code] : undefined;
    throw new LtiError(
      'LTI_LAUNCH_PLATFORM_ERROR',
      'platformError',
      { key: known ?? 'platformError' },
      // Only a short, code-shaped value is echoed; the free-text description is not, as anyone can post this form.
      code ? [{ detail: 'platformErrorCode', values: { code } }] : [],
    );
  }
  if (typeof idToken !== 'string' || idToken === '') throw invalidEnvelope('envelopeNoIdToken');
  if (typeof state !== 'string' || state === '') throw invalidEnvelope('envelopeNoState');
  if (idToken.length > MAX_ID_TOKEN_LENGTH) throw invalidEnvelope('envelopeTokenTooLarge');
  if (!STATE.test(state)) throw invalidEnvelope('envelopeStateUnknown');
  if (!COMPACT_JWS.test(idToken)) throw invalidEnvelope('envelopeTokenNotCompact');
  return { idToken, state };
}
