import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { AppConfig } from '../../config.js';
import type { CertificateStore } from '../../exb/certificate-store.js';
import type { LmsConnector } from '../../lms/connector.js';
import type { LmsTokenRepository } from '../../oauth/token-repository.js';
import { AccessService } from './access.js';
import { DEFAULT_STUDENT_BUDGETS, StudentBudgets, type StudentBudgetSizes } from './budgets.js';
import { systemClock, type Clock } from './clock.js';
import { ConfigGrants } from './config-grants.js';
import { ExamConfigurations } from './configuration.js';
import { ExitService } from './exits.js';
import { PolicyReader, type StudentPolicy } from './policy.js';
import { QuitTokens } from './quit-token.js';
import { SessionReadiness } from './readiness.js';
import { RequiredAssessments } from './required-assessments.js';
import { RequirementService } from './requirement.js';
import { StudentTokenStore } from './token-store.js';

/** What tests and deployments may tune; everything has a production default. */
export interface StudentFlowOptions {
  /** Milliseconds since the epoch; every lifetime of the flow is measured with it. */
  clock?: Clock;
  budgets?: Partial<StudentBudgetSizes>;
  /** Hosts every configuration allows besides the LMS and the service, e.g. the school's sign-in provider. */
  additionalAllowedHosts?: readonly string[];
  /** Fingerprints whose configuration parts are kept in process. */
  configurationCacheSize?: number;
}

export interface StudentServices {
  clock: Clock;
  store: StudentTokenStore;
  reader: PolicyReader;
  quitTokens: QuitTokens;
  configurations: ExamConfigurations;
  requirement: RequirementService;
  /** The assessments of a course that require the exam browser, for the student's course view. */
  requiredAssessments: RequiredAssessments;
  grants: ConfigGrants;
  access: AccessService;
  exits: ExitService;
  readiness: SessionReadiness;
  budgets: StudentBudgets;
  loadPolicy(courseId: string, contentId: string): Promise<StudentPolicy | null>;
}

export interface StudentServiceDependencies {
  config: AppConfig;
  pool: Pool;
  logger: Logger;
  certificates: CertificateStore;
  lms: LmsConnector;
  tokens: LmsTokenRepository;
}

export function createStudentServices(deps: StudentServiceDependencies, options: StudentFlowOptions = {}): StudentServices {
  const { config, pool, logger } = deps;
  const clock = options.clock ?? systemClock;
  const appSecret = config.secrets.appSecret;
  const additionalAllowedHosts = options.additionalAllowedHosts ?? [];
  const quitTokens = QuitTokens.fromAppSecret(appSecret);
  const reader = new PolicyReader(appSecret, {
    baseUrl: config.baseUrl,
    lmsUrl: config.lmsUrl,
    managedExitPassword: config.exb.managedQuitPassword,
    additionalAllowedHosts,
    quitTokens,
  });
  const store = new StudentTokenStore(pool, appSecret, clock);
  const configurations = new ExamConfigurations({
    baseUrl: config.baseUrl,
    lmsUrl: config.lmsUrl,
    certificates: deps.certificates,
    additionalAllowedHosts,
    appSecret,
    clock,
    ...(options.configurationCacheSize === undefined ? {} : { cacheSize: options.configurationCacheSize }),
  });
  const loadPolicy = async (courseId: string, contentId: string) => reader.fromRow(await store.policy(courseId, contentId));
  const lmsApiConfigured = Boolean(config.oauth.clientId && config.oauth.clientSecret);
  const log = logger.child({ component: 'exb-student' });
  return {
    clock,
    store,
    reader,
    quitTokens,
    configurations,
    requirement: new RequirementService(loadPolicy, log),
    requiredAssessments: new RequiredAssessments(pool, reader, log),
    grants: new ConfigGrants({
      baseUrl: config.baseUrl,
      store,
      reader,
      configurations,
      lms: deps.lms,
      tokens: deps.tokens,
      sessionHandoff: lmsApiConfigured,
      logger: log,
    }),
    access: new AccessService({ store, reader, configurations, logger: log }),
    exits: new ExitService({ store, reader, quitTokens, logger: log }),
    readiness: new SessionReadiness({ pool, lms: deps.lms, lmsUrl: config.lmsUrl, lmsApiConfigured, clock, logger: log }),
    budgets: new StudentBudgets(pool, { ...DEFAULT_STUDENT_BUDGETS, ...options.budgets }),
    loadPolicy,
  };
}
