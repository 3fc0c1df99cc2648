import { timingSafeEqual } from 'node:crypto';
import type { LoginState, TransactionBinder, TransactionCheck } from './login-state.js';

/**
 * The login state without a cookie: the LMS's platform storage (1EdTech "LTI Client Side postMessages", platform
 * storage; Canvas announces it with `lti_storage_target` in the login initiation). The login page puts the login's
 * transaction value and its nonce into the storage frame the LMS named (`lti.put_data`), in the LMS's own storage of
 * this browser; the launch page reads them back (`lti.get_data`) and posts them with the launch. Only the browser that
 * ran the login page holds them, as only it would hold the transaction cookie.
 */

/** How a launch was tied to the browser that started its login; logged with every launch. */
export type BrowserBindingPath = 'cookie' | 'platform-storage';

/** The launch form fields the launch page fills from the platform storage (empty when the storage had nothing). */
export const STORAGE_STATE_FIELD = 'lti_storage_state';
export const STORAGE_NONCE_FIELD = 'lti_storage_nonce';

/** Longest value read back from the storage: a transaction value is under 100 characters, a nonce 36. */
const MAX_STORED_VALUE_LENGTH = 256;

/** The storage keys of one login, as the client-side postMessages name them (`state_<state>`, `nonce_<nonce>`). */
export function storageKeys(state: string, nonce: string): { stateKey: string; nonceKey: string } {
  return { stateKey: `state_${state}`, nonceKey: `nonce_${nonce}` };
}

/** What the login page puts into the platform storage before it goes on to the LMS's authorization. */
export interface PlatformStoragePut {
  readonly target: string;
  /** The origin the messages go to and answers must come from: the LMS's OIDC authorization endpoint's. */
  readonly platformOrigin: string;
  readonly entries: ReadonlyArray<{ readonly key: string; readonly value: string }>;
}

/** What the launch page reads back from the platform storage before it posts the launch again. */
export interface PlatformStorageRead {
  readonly target: string;
  readonly platformOrigin: string;
  readonly stateKey: string;
  readonly nonceKey: string;
}

/** The values a launch form carries from the platform storage; `undefined` when the launch page did not run. */
export function readStorageFields(body: unknown): { state: string; nonce: string } | undefined {
  const form = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  if (!Object.hasOwn(form, STORAGE_STATE_FIELD)) return undefined;
  // A repeated, non-text or oversized value counts as nothing read: the check below then refuses it.
  const text = (value: unknown) => (typeof value === 'string' && value.length <= MAX_STORED_VALUE_LENGTH ? value : '');
  return { state: text(form[STORAGE_STATE_FIELD]), nonce: text(form[STORAGE_NONCE_FIELD]) };
}

/**
 * The storage path's browser check: the transaction value read back must bind to the state (as the cookie's would),
 * and the nonce read back must be the state's own, so a state cannot be paired with another login's storage entries.
 */
export function checkStoredValues(
  binder: TransactionBinder,
  state: Pick<LoginState, 'transactionBinding' | 'nonce'>,
  stored: { state: string; nonce: string },
): TransactionCheck {
  const transaction = binder.checkValue(stored.state, state.transactionBinding);
  if (transaction !== 'ok') return transaction;
  const [given, expected] = [Buffer.from(stored.nonce), Buffer.from(state.nonce)];
  return given.length === expected.length && timingSafeEqual(given, expected) ? 'ok' : 'mismatch';
}
