import type { AppContext } from '../context.js';
import { AssessmentCache } from './assessments/assessment-cache.js';
import { AssessmentDiscovery } from './assessments/discovery.js';
import { AssessmentScope } from './assessments/scope.js';
import { AssessmentPolicyService } from './assessment-policy/policy-service.js';
import { CourseDefaultsService } from './course-defaults/course-defaults-service.js';
import { EnforcementService } from './enforcement/enforcement-service.js';
import { ManagementLocks } from './locks.js';
import { PasswordRevealService } from './password-reveal/password-reveal.js';
import { createSettingsRepository, type SettingsRepository } from './settings/settings-repository.js';
import { ToolsCopyService } from './tools-copy/tools-copy-service.js';

/** The management services over one application's database and configuration. */
export interface ManagementServices {
  readonly settings: SettingsRepository;
  readonly assessments: AssessmentCache;
  readonly scope: AssessmentScope;
  readonly locks: ManagementLocks;
  readonly discovery: AssessmentDiscovery;
  readonly enforcement: EnforcementService;
  readonly policy: AssessmentPolicyService;
  readonly courseDefaults: CourseDefaultsService;
  readonly toolsCopy: ToolsCopyService;
  readonly passwords: PasswordRevealService;
}

const built = new WeakMap<AppContext, ManagementServices>();

/** Built once per application context, on first use, so the context stays free of management wiring. */
export function managementServices(ctx: AppContext): ManagementServices {
  const existing = built.get(ctx);
  if (existing) return existing;
  const { orm } = ctx.db;
  const managedExitPassword = ctx.config.exb.managedQuitPassword;
  const settings = createSettingsRepository(orm, ctx.config.secrets.appSecret);
  const assessments = new AssessmentCache(orm);
  const locks = new ManagementLocks(orm, ctx.logger);
  const services: ManagementServices = {
    settings,
    assessments,
    scope: new AssessmentScope(assessments, settings),
    locks,
    discovery: new AssessmentDiscovery(assessments, locks, ctx.logger),
    enforcement: new EnforcementService({ settings, locks, logger: ctx.logger, managedExitPassword }),
    policy: new AssessmentPolicyService({ settings, locks, baseUrl: ctx.config.baseUrl }),
    courseDefaults: new CourseDefaultsService({ settings, locks, baseUrl: ctx.config.baseUrl }),
    toolsCopy: new ToolsCopyService({ settings, locks, logger: ctx.logger }),
    passwords: new PasswordRevealService(settings, managedExitPassword),
  };
  built.set(ctx, services);
  return services;
}
