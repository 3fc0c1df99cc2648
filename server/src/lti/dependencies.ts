import type { AppConfig } from '../config/app-config.js';
import type { IdentityService } from '../identity/identity-service.js';
import type { LtiAdmission } from './admission.js';
import type { TransactionBinder } from './login-state.js';
import type { LoginStateStore } from './login-state-store.js';
import type { PlatformKeySet } from './platform-keys.js';

/** What the login and the launch run with, named as the application context names them, so the context serves as it is. */
export interface LtiDependencies {
  readonly config: Pick<AppConfig, 'baseUrl'> & {
    lti: Pick<AppConfig['lti'], 'issuer' | 'clientId' | 'deploymentIds' | 'deploymentIdCheckingEnabled' | 'authUrl'>;
  };
  readonly ltiAdmission: Pick<LtiAdmission, 'login' | 'launch' | 'launchState'>;
  readonly transactionBinder: TransactionBinder;
  readonly loginStates: LoginStateStore;
  readonly platformKeys: PlatformKeySet;
  readonly identity: Pick<IdentityService, 'checkLaunch'>;
}

/** The browser's side of a login or a launch: its address (for the admission budgets) and its cookies. */
export interface BrowserRequest {
  readonly ip: string;
  readonly cookies: Record<string, string | undefined>;
}
