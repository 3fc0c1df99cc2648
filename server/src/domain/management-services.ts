import type { Logger } from 'pino';
import type { AuditLog } from '../audit/audit-log.js';
import { systemClock, type Clock } from '../clock.js';
import { ActivityCounters } from './activity/activity-counters.js';
import { AssessmentActivityService } from './activity/assessment-activity.js';
import { AssessmentCache } from './assessments/assessment-cache.js';
import { AssessmentDiscovery } from './assessments/discovery.js';
import { AssessmentScope } from './assessments/scope.js';
import { AssessmentPolicyService } from './assessment-policy/policy-service.js';
import { CourseDefaultsService } from './course-defaults/course-defaults-service.js';
import { AccessCodeVerification } from './enforcement/access-code-verification.js';
import { ExamDayBoard } from './exam-day/board.js';
import { StudentReadmission } from './exam-browser/readmission.js';
import { CodeSheetService } from './exam-day/code-sheet.js';
import { ExamDayExemptions } from './exam-day/exemptions.js';
import { EnforcementService } from './enforcement/enforcement-service.js';
import { OriginalAdoption } from './enforcement/adopt-original.js';
import { UnmanagedCodeScan } from './enforcement/unmanaged-code.js';
import { ManagementLocks } from './locks.js';
import { AutoRepairOption } from './pre-exam-sweep/auto-repair-option.js';
import { SweepRecords } from './pre-exam-sweep/sweep-records.js';
import { PasswordRevealService } from './password-reveal/password-reveal.js';
import { createSettingsRepository, type SettingsDatabase, type SettingsRepository } from './settings/settings-repository.js';
import { ToolsCopyService } from './tools-copy/tools-copy-service.js';
import { UrlRuleRepairService } from './url-rule-repair/url-rule-repair.js';

/** The management services over one application's database and configuration. */
export interface ManagementServices {
  readonly settings: SettingsRepository;
  readonly assessments: AssessmentCache;
  readonly scope: AssessmentScope;
  readonly locks: ManagementLocks;
  readonly discovery: AssessmentDiscovery;
  readonly enforcement: EnforcementService;
  readonly verification: AccessCodeVerification;
  readonly policy: AssessmentPolicyService;
  readonly courseDefaults: CourseDefaultsService;
  readonly toolsCopy: ToolsCopyService;
  readonly passwords: PasswordRevealService;
  /** The teacher's Activity panel: recent changes and exam-day counters. */
  readonly activity: AssessmentActivityService;
  /** Stored URL rules the exam browser reads differently, and their one-click rewrite. */
  readonly urlRules: UrlRuleRepairService;
  /** Exam day: every student's way into an enforced assessment. */
  readonly examDay: ExamDayBoard;
  /** The pre-exam sweep's findings and each course's choice of automatic repairs. */
  readonly sweepRecords: SweepRecords;
  readonly sweepOption: AutoRepairOption;
  /** Adopting a copied quiz with its original's settings. */
  readonly adoption: OriginalAdoption;
  /** Exam day: re-admitting one student who is stuck (`exam-browser/readmission.ts`). */
  readonly readmission: StudentReadmission;
  /** Exam day: one student's exemption from the exam browser, granted and used. */
  readonly exemptions: ExamDayExemptions;
  /** Exam day: the administrator's printable sheet of current access codes for an outage. */
  readonly codeSheet: CodeSheetService;
}

export interface ManagementDependencies {
  readonly db: SettingsDatabase;
  readonly logger: Logger;
  readonly appSecret: Buffer;
  /** Where every change to enforcement and its secrets is recorded. */
  readonly audit: AuditLog;
  readonly baseUrl: string;
  /** The operator's server-default exit password (`EXB_MANAGED_QUIT_PASSWORD`), never shown. */
  readonly managedExitPassword: string | null | undefined;
  /** The service clock the student flow's lifetimes are measured with (tests: a controllable one). */
  readonly clock?: Clock;
}

/** Wires the management services once, at start (`app.ts`), over the shared settings repository and locks. */
export function createManagementServices(deps: ManagementDependencies): ManagementServices {
  const { db, logger, baseUrl, managedExitPassword, audit } = deps;
  const clock = deps.clock ?? systemClock;
  const settings = createSettingsRepository(db, deps.appSecret);
  const assessments = new AssessmentCache(db.orm);
  const locks = new ManagementLocks(db.orm, logger);
  const verification = new AccessCodeVerification(settings, logger);
  const sweepRecords = new SweepRecords(db.orm);
  const enforcement = new EnforcementService({ settings, assessments, locks, logger, audit, managedExitPassword, verification });
  return {
    settings,
    assessments,
    scope: new AssessmentScope(assessments, settings),
    locks,
    discovery: new AssessmentDiscovery(assessments, locks, logger, [verification, new UnmanagedCodeScan(assessments, settings, logger)]),
    enforcement,
    verification,
    policy: new AssessmentPolicyService({ settings, locks, audit, baseUrl }),
    courseDefaults: new CourseDefaultsService({ settings, locks, audit, baseUrl }),
    toolsCopy: new ToolsCopyService({ settings, locks, logger, audit }),
    passwords: new PasswordRevealService(settings, managedExitPassword, audit),
    activity: new AssessmentActivityService(audit, new ActivityCounters(db.orm)),
    urlRules: new UrlRuleRepairService({ settings, locks, audit }),
    examDay: new ExamDayBoard(db.orm, clock, logger),
    sweepRecords,
    sweepOption: new AutoRepairOption(sweepRecords, audit),
    adoption: new OriginalAdoption(db.orm, settings, enforcement),
    readmission: new StudentReadmission({ pool: db.pool, audit, clock: clock }),
    exemptions: new ExamDayExemptions({ orm: db.orm, settings, audit, clock }),
    codeSheet: new CodeSheetService(settings, audit, clock),
  };
}
