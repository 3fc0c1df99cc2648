import type { Logger } from 'pino';
import type { AppConfig } from './config/app-config.js';
import type { Database } from './db/orm.js';
import type { ExbRequirementLookup } from './domain/exb-requirement.js';
import type { AdminServices } from './domain/admin-services.js';
import type { ManagementServices } from './domain/management-services.js';
import type { ExamBrowserServices } from './domain/exam-browser/services.js';
import type { ExamDayChanges } from './domain/exam-day/changes.js';
import type { LiveBoards } from './domain/exam-day/live-boards.js';
import type { CertificateStore } from './exb/certificate-store.js';
import type { OutageLog } from './db/outage-log.js';
import type { ShellRenderer } from './pages/shell.js';
import type { AuditLog } from './audit/audit-log.js';
import type { IdentityService } from './identity/identity-service.js';
import type { LtiAdmission } from './lti/admission.js';
import type { TransactionBinder } from './lti/login-state.js';
import type { SessionTokens } from './security/session-token.js';
import type { LoginStateStore } from './lti/login-state-store.js';
import type { PlatformKeySet } from './lti/platform-keys.js';
import type { LmsConnector } from './lms/connector.js';
import type { OAuthServices } from './oauth/services.js';
import type { ActionTokens } from './security/action-token.js';
import type { OneTimeStore } from './security/one-time-store.js';
import type { SessionGenerations } from './security/session-generations.js';
import type { ToolKey } from './security/tool-keys.js';

/**
 * Everything a route group or service needs, built once at start and passed explicitly (no globals), so tests can
 * build the same graph against their own database and configuration.
 */
export interface AppContext {
  config: AppConfig;
  logger: Logger;
  db: Database;
  oneTimeStore: OneTimeStore;
  /** Each person's session generation: ends their sessions, and tells every session read whether it was ended. */
  sessionGenerations: SessionGenerations;
  toolKeys: ToolKey[];
  shell: ShellRenderer;
  /** The certificate exam-browser configurations are encrypted for, loaded once at start. */
  exbCertificates: CertificateStore;
  /** The LMS's id_token signing keys (cached). */
  platformKeys: PlatformKeySet;
  /** Per-address and per-state budgets of LTI login and launch. */
  ltiAdmission: LtiAdmission;
  /** Binds login states to the browser that started the login. */
  transactionBinder: TransactionBinder;
  /** The login states between login and launch. */
  loginStates: LoginStateStore;
  /** Whether an assessment requires the exam browser. */
  exbRequirement: ExbRequirementLookup;
  /** OAuth states, the token records, the token endpoint and access tokens with refresh. */
  oauth: OAuthServices;
  /** The append-only audit trail of changes to enforcement and its secrets. */
  audit: AuditLog;
  /** Decides whether a principal's LMS ids are proven (launch conflicts, user, course and account bindings). */
  identity: IdentityService;
  /** The LMS API acting for one signed identity: `ctx.lms.forPrincipal(principal)`. */
  lms: LmsConnector;
  /** Issues and verifies the HMAC action tokens of the config grant and the administrator mutations. */
  actionTokens: ActionTokens;
  /** The session as a header token, for pages whose browser keeps no cookie in the LMS's frame. */
  sessionTokens: SessionTokens;
  /** The instructor's management use cases: settings, assessments, enforcement, policies, defaults, tools, reveals. */
  management: ManagementServices;
  /** The root-account administrator's use cases: summary, course connections, catalog, terms, course actions. */
  admin: AdminServices;
  /** The student exam-browser flow: grants, downloads, proofs, redemptions, exits, readiness. */
  examBrowser: ExamBrowserServices;
  /** The change signals of this instance's open exam-day boards, fed by the database's notifications. */
  examDayChanges: ExamDayChanges;
  /** This instance's open exam-day boards, sent what changed on each signal. */
  liveBoards: LiveBoards;
  /** Where every request that found the database unreachable is reported, so an outage is logged once, not per request. */
  databaseOutage: OutageLog;
}
