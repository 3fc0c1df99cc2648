import { mergeInstructorToolCatalog, type ExbUrlRule } from '@exb/shared/exb-policy.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { audited, changedFields, type AuditedBy } from '../../audit/audited.js';
import type { ManagementLocks } from '../locks.js';
import { courseResetInProgressError } from '../locks.js';
import { policyValue } from '../policy-errors.js';
import { emptyCourseDefaults, type CourseDefaults } from '../settings/model.js';
import { SettingsConflictError, type SettingsRepository } from '../settings/settings-repository.js';

/** `PUT .../defaults`: a field left out keeps its stored value; `null` removes a password. */
export interface CourseDefaultsInput {
  /** Normalized by the route input (the shared URL policy validator). */
  readonly urlRules?: readonly ExbUrlRule[];
  /** The instructor's replacement catalog; merged with the stored one so school-managed tools stay intact. */
  readonly externalTools?: unknown;
  readonly quitPassword?: string | null;
  readonly startPassword?: string | null;
  readonly setupCompleted?: boolean;
}

export interface CourseDefaultsDependencies {
  readonly settings: SettingsRepository;
  readonly locks: ManagementLocks;
  readonly audit: AuditLog;
  readonly baseUrl: string;
}

/** The course default fields the trail names when they change; passwords by name only. */
const DEFAULT_FIELDS = {
  urlRules: 'urlRules',
  externalTools: 'externalTools',
  startPassword: 'startPassword',
  exitPassword: 'exitPassword',
  setupCompleted: 'setupCompleted',
} as const;

export class CourseDefaultsService {
  constructor(private readonly deps: CourseDefaultsDependencies) {}

  async load(courseId: string): Promise<CourseDefaults> {
    return (await this.deps.settings.loadCourseDefaults(courseId)) ?? emptyCourseDefaults(courseId);
  }

  /**
   * Saves under the course write lock, and only while the course's reset generation is the one read: a reset that
   * slipped in between must not be overwritten with the policy it just cleared. Recorded in the audit trail as
   * `action` (an administrator's rotation of the exit password names its own) with the names of the changed fields.
   */
  async save(by: AuditedBy, courseId: string, input: CourseDefaultsInput, action = 'course-defaults.save'): Promise<CourseDefaults> {
    const { saved } = await audited(this.deps.audit, by, { action, courseId }, () => this.saveLocked(courseId, input), ({ fields }) => ({ fields }));
    return saved;
  }

  private async saveLocked(courseId: string, input: CourseDefaultsInput): Promise<{ saved: CourseDefaults; fields: string[] }> {
    return this.deps.locks.withCourseWriteLock(courseId, async () => {
      const current = await this.load(courseId);
      const externalTools =
        input.externalTools === undefined
          ? current.externalTools
          : policyValue(mergeInstructorToolCatalog(current.externalTools, input.externalTools, { baseUrl: this.deps.baseUrl }, ['externalTools']));
      try {
        const saved = await this.deps.settings.saveCourseDefaults(
          courseId,
          {
            courseId,
            urlRules: input.urlRules ?? current.urlRules,
            externalTools,
            startPassword: input.startPassword === undefined ? current.startPassword : input.startPassword,
            exitPassword: input.quitPassword === undefined ? current.exitPassword : input.quitPassword,
            setupCompleted: input.setupCompleted ?? current.setupCompleted,
          },
          { expectedResetGeneration: current.resetGeneration },
        );
        return { saved, fields: changedFields(current, saved, DEFAULT_FIELDS) };
      } catch (error) {
        if (error instanceof SettingsConflictError) throw courseResetInProgressError();
        throw error;
      }
    });
  }
}
