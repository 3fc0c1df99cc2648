import { ErrorCodes } from '@exb/shared/error-codes.js';
import { readServerError } from './trpc';

/**
 * What the server last said about the user's LMS authorization through a refusal: an expired or revoked grant
 * (`requiresAuth` with its `authUrl`), or a session that is gone altogether. Fed by the query client's error hook, so
 * every query and mutation reports into one place.
 */
export interface AuthorizationSignal {
  readonly reauthorizeUrl: string | null;
  readonly sessionEnded: boolean;
}

export function createAuthorizationStore() {
  let state: AuthorizationSignal = { reauthorizeUrl: null, sessionEnded: false };
  const listeners = new Set<() => void>();
  const set = (next: AuthorizationSignal) => {
    state = next;
    for (const listener of listeners) listener();
  };
  return {
    report(error: unknown) {
      const refusal = readServerError(error);
      if (refusal.authUrl !== undefined) set({ ...state, reauthorizeUrl: refusal.authUrl });
      else if (refusal.errorCode === ErrorCodes.UNAUTHORIZED) set({ ...state, sessionEnded: true });
    },
    clear() {
      set({ reauthorizeUrl: null, sessionEnded: false });
    },
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    get: () => state,
  };
}

export type AuthorizationStore = ReturnType<typeof createAuthorizationStore>;
