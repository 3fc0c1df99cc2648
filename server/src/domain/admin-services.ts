import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { AuditLog } from '../audit/audit-log.js';
import { AccountAuditTrail } from './activity/audit-views.js';
import type { AppConfig } from '../config/app-config.js';
import { CourseResetWorkflow } from './course-reset/course-reset-workflow.js';
import { ResetJournal } from './course-reset/reset-journal.js';
import { ResetRecovery } from './course-reset/reset-recovery.js';
import type { ManagementServices } from './management-services.js';
import { createPresetServices, deleteCourseAssignments, type PresetServices } from './presets/index.js';
import { AdminAccounts } from './admin/admin-accounts.js';
import { BackgroundWork } from './admin/background.js';
import { CatalogService } from './admin/catalog-service.js';
import { ConnectService } from './admin/connect-service.js';
import { CourseConnections } from './connected-courses/course-connections.js';
import { CourseListService } from './admin/course-list.js';
import { AdminCourseService } from './admin/course-service.js';
import { LegacyBackfill } from './admin/legacy-backfill.js';
import { SummaryService } from './admin/summary-service.js';
import { TermsService } from './admin/terms-service.js';

/** The administrator's services over one application's database, configuration and management services. */
export interface AdminServices {
  readonly connections: CourseConnections;
  readonly accounts: AdminAccounts;
  readonly terms: TermsService;
  readonly summary: SummaryService;
  readonly courseList: CourseListService;
  readonly catalog: CatalogService;
  readonly connect: ConnectService;
  readonly courses: AdminCourseService;
  readonly backfill: LegacyBackfill;
  /** School tool presets, their assignments and the reconciled rollout. */
  readonly presets: PresetServices;
  /** The course reset: preview and the compensating workflow. */
  readonly reset: CourseResetWorkflow;
  /** Finishes or undoes resets whose process died, from their journal (the start and the periodic sweep). */
  readonly resetRecovery: ResetRecovery;
  /** What summaries start without waiting (backfill, reconciliation); tests wait for it with `idle()`. */
  readonly background: BackgroundWork;
  /** The account's audit trail, paged and exported. */
  readonly auditTrail: AccountAuditTrail;
}

export interface AdminDependencies {
  readonly orm: MikroORM;
  readonly logger: Logger;
  readonly config: Pick<AppConfig, 'admin' | 'lmsUrl' | 'baseUrl' | 'secrets'> & { exb: Pick<AppConfig['exb'], 'managedQuitPassword'> };
  readonly management: ManagementServices;
  readonly audit: AuditLog;
}

/** Wires the administrator's services once, at start (`app.ts`), over the instructor's management services. */
export function createAdminServices(deps: AdminDependencies): AdminServices {
  const { orm, config } = deps;
  const logger = deps.logger.child({ component: 'admin' });
  const connections = new CourseConnections(orm);
  const accounts = new AdminAccounts(orm);
  const terms = new TermsService(accounts);
  const background = new BackgroundWork(logger);
  const backfill = new LegacyBackfill({ orm, connections, accounts, logger });
  const presets = createPresetServices({
    orm,
    logger,
    audit: deps.audit,
    connections,
    management: deps.management,
    baseUrl: config.baseUrl,
    batchSize: config.admin.reconcileBatchSize,
  });
  // The reset's transaction deletes the course's preset assignments too; presets stay.
  const presetAssignments = { deleteForCourse: deleteCourseAssignments };
  const journal = new ResetJournal(orm, config.secrets.appSecret);
  const resetRecovery = new ResetRecovery({ orm, journal, audit: deps.audit, logger, presetAssignments });
  return {
    connections,
    accounts,
    terms,
    summary: new SummaryService({
      connections,
      accounts,
      terms,
      backfill,
      background,
      presets: presets.counts,
      reconciler: presets.reconciler,
      reconcileBatchSize: config.admin.reconcileBatchSize,
    }),
    courseList: new CourseListService(connections, config.admin.pageSize),
    catalog: new CatalogService(connections, config.admin.pageSize),
    connect: new ConnectService(connections, config.lmsUrl, logger),
    courses: new AdminCourseService({ connections, management: deps.management, managedExitPassword: config.exb.managedQuitPassword }),
    backfill,
    presets,
    reset: new CourseResetWorkflow({
      orm,
      connections,
      assessments: deps.management.assessments,
      settings: deps.management.settings,
      audit: deps.audit,
      logger,
      presetAssignments,
      journal,
      recovery: resetRecovery,
    }),
    resetRecovery,
    background,
    auditTrail: new AccountAuditTrail(deps.audit, connections),
  };
}
