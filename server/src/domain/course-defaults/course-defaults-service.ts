import { mergeInstructorToolCatalog, type ExbUrlRule } from '@exb/shared/exb-policy.js';
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
  readonly baseUrl: string;
}

export class CourseDefaultsService {
  constructor(private readonly deps: CourseDefaultsDependencies) {}

  async load(courseId: string): Promise<CourseDefaults> {
    return (await this.deps.settings.loadCourseDefaults(courseId)) ?? emptyCourseDefaults(courseId);
  }

  /**
   * Saves under the course write lock, and only while the course's reset generation is the one read: a reset that
   * slipped in between must not be overwritten with the policy it just cleared.
   */
  async save(courseId: string, input: CourseDefaultsInput): Promise<CourseDefaults> {
    return this.deps.locks.withCourseWriteLock(courseId, async () => {
      const current = await this.load(courseId);
      const externalTools =
        input.externalTools === undefined
          ? current.externalTools
          : policyValue(mergeInstructorToolCatalog(current.externalTools, input.externalTools, { baseUrl: this.deps.baseUrl }, ['externalTools']));
      try {
        return await this.deps.settings.saveCourseDefaults(
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
      } catch (error) {
        if (error instanceof SettingsConflictError) throw courseResetInProgressError();
        throw error;
      }
    });
  }
}
