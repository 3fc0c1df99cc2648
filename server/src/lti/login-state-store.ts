import type { OneTimeStore } from '../security/one-time-store.js';
import { LOGIN_STATE_PURPOSE, LOGIN_STATE_TTL_SECONDS, loginStateSchema, type LoginState } from './login-state.js';

/**
 * Where login states wait between the login and the launch: encrypted one-time rows, so a state is read by the launch
 * that presents it and claimed exactly once, whatever instance receives the login and the launch.
 */
export class LoginStateStore {
  constructor(private readonly store: OneTimeStore) {}

  /** Stores the state for its ten minutes; the token returned is the `state` parameter of the authorization request. */
  async issue(state: LoginState): Promise<string> {
    return (await this.store.issue(LOGIN_STATE_PURPOSE, state, LOGIN_STATE_TTL_SECONDS)).token;
  }

  /** The unexpired, unclaimed state of a token, without claiming it; `null` for anything else. */
  async peek(token: string): Promise<LoginState | null> {
    const parsed = loginStateSchema.safeParse(await this.store.peek(LOGIN_STATE_PURPOSE, token));
    return parsed.success ? parsed.data : null;
  }

  /**
   * Claims the state in one conditional update: of concurrent launches with one state, exactly one gets `true`. Not
   * for a launch whose client is gone (`signal`): the state stays usable for the browser's retry.
   */
  async claim(token: string, signal?: AbortSignal): Promise<boolean> {
    return this.store.claim(LOGIN_STATE_PURPOSE, token, signal);
  }
}
