import type { Pool } from 'pg';
import { layeredBudget, memoryBudget, perClientAddress, postgresBudget, type AddressAdmission, type AdmissionBudget, type AdmissionDecision } from '../security/admission-budget.js';
import { sha256Hex } from '../security/random-token.js';
import { LOGIN_STATE_TTL_SECONDS } from './login-state.js';

export interface LtiBudgetSizes {
  /** Logins per client address per minute, over all instances. */
  loginPerIp: number;
  /** Launches per client address per minute, over all instances. */
  launchPerIp: number;
  /** Logins, and apart from them launches, per client address per minute in one process. */
  processPerIp: number;
  /** Launch attempts per login state over its lifetime. */
  launchPerState: number;
}

/**
 * The admission budgets of login and launch (Document 1). Per client address, a process-local budget sheds floods
 * before they reach the database, and a PostgreSQL budget holds across instances; login and launch count apart. Per login
 * state, a distributed budget caps the tokens one state can be tried with.
 */
export class LtiAdmission {
  readonly login: AddressAdmission;
  readonly launch: AddressAdmission;
  private readonly stateBudget: AdmissionBudget;

  constructor(pool: Pool, sizes: LtiBudgetSizes) {
    const minute = 60;
    this.login = perClientAddress(
      layeredBudget(
        memoryBudget({ name: 'lti-login-ip-process', points: sizes.processPerIp, durationSeconds: minute }),
        postgresBudget({ name: 'lti-login-ip', points: sizes.loginPerIp, durationSeconds: minute }, pool),
      ),
    );
    this.launch = perClientAddress(
      layeredBudget(
        memoryBudget({ name: 'lti-launch-ip-process', points: sizes.processPerIp, durationSeconds: minute }),
        postgresBudget({ name: 'lti-launch-ip', points: sizes.launchPerIp, durationSeconds: minute }, pool),
      ),
    );
    this.stateBudget = postgresBudget(
      { name: 'lti-launch-state', points: sizes.launchPerState, durationSeconds: LOGIN_STATE_TTL_SECONDS },
      pool,
    );
  }

  /** Keyed by the state's hash: the state itself never reaches the budget table. */
  launchState(state: string): Promise<AdmissionDecision> {
    return this.stateBudget.consume(sha256Hex(state));
  }
}
