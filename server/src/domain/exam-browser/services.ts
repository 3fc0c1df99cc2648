import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { AppConfig } from '../../config/app-config.js';
import type { CertificateStore } from '../../exb/certificate-store.js';
import type { IdentityService } from '../../identity/identity-service.js';
import type { LmsConnector } from '../../lms/connector.js';
import type { LmsTokenRepository } from '../../oauth/token-repository.js';
import { ProofRedemption } from './proof-redemption.js';
import { ProofTokens } from './proof-token.js';
import { deriveExamBrowserKey } from '../../security/exam-browser-keys.js';
import { DEFAULT_EXAM_BROWSER_BUDGETS, ExamBrowserAdmission, type ExamBrowserBudgetSizes } from './admission.js';
import { systemClock, type Clock } from '../../clock.js';
import { ConfigGrants } from './config-grants.js';
import { ExamConfigurations } from './configuration.js';
import { ExitService } from './exits.js';
import { SettingsCodec } from '../settings/settings-codec.js';
import { PolicyReader, type ExamPolicy } from './exam-policy.js';
import { QuitTokens } from './quit-token.js';
import { SessionReadiness } from './readiness.js';
import { ReadinessDismissals } from './readiness-dismissals.js';
import { RequiredAssessments } from './required-assessments.js';
import { RequirementService } from './requirement.js';
import { ExamTokenStore } from './token-store.js';

/** What tests and deployments may tune; everything has a production default. */
export interface ExamBrowserOptions {
  budgets?: Partial<ExamBrowserBudgetSizes>;
  /** Hosts every configuration allows besides the LMS and the service, e.g. the school's sign-in provider. */
  additionalAllowedHosts?: readonly string[];
  /** Fingerprints whose configuration parts are kept in process. */
  configurationCacheSize?: number;
}

export interface ExamBrowserServices {
  store: ExamTokenStore;
  reader: PolicyReader;
  quitTokens: QuitTokens;
  configurations: ExamConfigurations;
  requirement: RequirementService;
  /** The assessments of a course that require the exam browser, for the student's course view. */
  requiredAssessments: RequiredAssessments;
  grants: ConfigGrants;
  /** The access proof and the code's redemption: the only way the access code leaves the service. */
  proofs: ProofRedemption;
  exits: ExitService;
  readiness: SessionReadiness;
  /** Students who dismissed the readiness prompt. */
  readinessDismissals: ReadinessDismissals;
  /** Admission budgets of the student routes. */
  admission: ExamBrowserAdmission;
  loadPolicy(courseId: string, contentId: string): Promise<ExamPolicy | null>;
}

export interface ExamBrowserDependencies {
  config: AppConfig;
  pool: Pool;
  logger: Logger;
  certificates: CertificateStore;
  lms: LmsConnector;
  tokens: LmsTokenRepository;
  identity: IdentityService;
  /** The service clock; every lifetime of the flow is measured with it. */
  clock?: Clock;
}

export function createExamBrowserServices(deps: ExamBrowserDependencies, options: ExamBrowserOptions = {}): ExamBrowserServices {
  const { config, pool, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const appSecret = config.secrets.appSecret;
  const additionalAllowedHosts = options.additionalAllowedHosts ?? [];
  const quitTokens = QuitTokens.fromAppSecret(appSecret);
  const log = logger.child({ component: 'exb-student' });
  const context = {
    baseUrl: config.baseUrl,
    lmsUrl: config.lmsUrl,
    managedExitPassword: config.exb.managedQuitPassword,
    additionalAllowedHosts,
    quitTokens,
  };
  const reader = new PolicyReader(pool, SettingsCodec.fromAppSecret(appSecret), context, log);
  const store = new ExamTokenStore(pool, appSecret, clock);
  const configurations = new ExamConfigurations({
    baseUrl: config.baseUrl,
    lmsUrl: config.lmsUrl,
    certificates: deps.certificates,
    additionalAllowedHosts,
    appSecret,
    clock,
    ...(options.configurationCacheSize === undefined ? {} : { cacheSize: options.configurationCacheSize }),
  });
  const loadPolicy = async (courseId: string, contentId: string) => {
    const read = await reader.load(courseId, contentId);
    return typeof read === 'object' ? read : null;
  };
  const lmsApiConfigured = Boolean(config.oauth.clientId && config.oauth.clientSecret);
  return {
    store,
    reader,
    quitTokens,
    configurations,
    requirement: new RequirementService(loadPolicy, log),
    requiredAssessments: new RequiredAssessments(pool, reader),
    grants: new ConfigGrants({
      baseUrl: config.baseUrl,
      store,
      reader,
      configurations,
      lms: deps.lms,
      tokens: deps.tokens,
      identity: deps.identity,
      sessionHandoff: lmsApiConfigured,
      logger: log,
    }),
    proofs: new ProofRedemption({
      store,
      reader,
      configurations,
      proofTokens: new ProofTokens(deriveExamBrowserKey(appSecret, 'proof-token')),
      clock,
      sessionHandoff: lmsApiConfigured,
      logger: log,
    }),
    exits: new ExitService({ store, reader, quitTokens }),
    readiness: new SessionReadiness({ lms: deps.lms, lmsUrl: config.lmsUrl, lmsApiConfigured, logger: log }),
    readinessDismissals: new ReadinessDismissals(pool, clock),
    admission: new ExamBrowserAdmission(pool, { ...DEFAULT_EXAM_BROWSER_BUDGETS, ...options.budgets }),
    loadPolicy,
  };
}
