import { ErrorCodes, type ErrorCode } from '@exb/shared/error-codes.js';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { LmsApi } from '../../lms/api.js';
import { LmsError } from '../../lms/errors.js';
import { inRootAccount } from '../connected-courses/course-facts.js';
import type { CourseConnections } from '../connected-courses/course-connections.js';
import { isDomainError } from '../../domain-error.js';
import type { ManagementLocks } from '../locks.js';
import { emptyCourseDefaults } from '../settings/model.js';
import { SettingsConflictError, type SettingsRepository } from '../settings/settings-repository.js';
import type { AssignmentStore } from './assignment-store.js';
import { synchronizeCatalog } from './catalog-rule.js';
import type { PresetStore } from './preset-store.js';

export type SyncOutcome = { readonly ok: true; readonly changed: boolean } | { readonly ok: false; readonly errorCode: ErrorCode };

export interface CourseSyncDependencies {
  readonly orm: MikroORM;
  readonly presets: PresetStore;
  readonly assignments: AssignmentStore;
  readonly connections: CourseConnections;
  readonly settings: SettingsRepository;
  readonly locks: ManagementLocks;
  readonly logger: Logger;
}

class SyncFailure extends Error {
  constructor(readonly errorCode: ErrorCode) {
    super(errorCode);
  }
}

/**
 * Synchronization of one course (Document 2): its exam-tool catalog comes to hold exactly the presets desired for it.
 *
 * 1. The course must still be connected to the account, and the LMS, asked with the administrator's grant, must still
 *    place it in the root account. Nothing is written before that answer.
 * 2. Under the course write lock (held, or a reset running: a failure to retry, never a wait), one transaction writes
 *    the catalog (guarded by the course's reset generation), drops the selections of tools that left from the
 *    course's assessments, and marks applied the assignment rows whose revision it read. Assessments' configurations
 *    are derived from these rows, so every affected assessment's settings fingerprint changes with them and students
 *    fetch a fresh configuration.
 * Any failure marks the course's unfinished rows `failed` with the reason.
 */
export class CourseSync {
  constructor(private readonly deps: CourseSyncDependencies) {}

  async synchronize(accountId: string, courseId: string, lms: LmsApi): Promise<SyncOutcome> {
    try {
      await this.confirm(accountId, courseId, lms);
      const changed = await this.deps.locks.withCourseWriteLock(courseId, () => this.write(courseId));
      return { ok: true, changed };
    } catch (error) {
      const errorCode = failureCode(error);
      if (errorCode === null) this.deps.logger.error({ err: error, courseId }, 'preset synchronization failed unexpectedly');
      const code = errorCode ?? ErrorCodes.INTERNAL_ERROR;
      await this.deps.assignments.markFailed(courseId, code);
      return { ok: false, errorCode: code };
    }
  }

  private async confirm(accountId: string, courseId: string, lms: LmsApi): Promise<void> {
    if ((await this.deps.connections.find(accountId, courseId)) === null) throw new SyncFailure(ErrorCodes.ADMIN_COURSE_NOT_CONNECTED);
    const course = await lms.getCourse(courseId);
    if (course.id !== courseId || !inRootAccount(course, accountId)) throw new SyncFailure(ErrorCodes.ADMIN_COURSE_NOT_CONNECTED);
  }

  private write(courseId: string): Promise<boolean> {
    return this.deps.orm.em.fork().transactional(async (em) => {
      const rows = await this.deps.presets.desiredFor(courseId, em);
      const current = (await this.deps.settings.loadCourseDefaults(courseId, { em })) ?? emptyCourseDefaults(courseId);
      const sync = synchronizeCatalog(
        current.externalTools,
        rows.filter((row) => row.desired).map((row) => ({ presetId: row.presetId, tool: row.tool })),
      );
      if (!sync.ok) throw new SyncFailure(sync.reason);
      if (sync.changed) {
        await this.deps.settings.saveCourseDefaults(
          courseId,
          { ...current, externalTools: sync.tools },
          { em, expectedResetGeneration: current.resetGeneration },
        );
      }
      await this.deps.settings.dropToolSelections(courseId, sync.removedToolIds, { em });
      await this.deps.assignments.markApplied(em, courseId, rows);
      return sync.changed;
    });
  }
}

/** The reason a synchronization failed, as the failure list shows it; `null` for an unexpected error. */
function failureCode(error: unknown): ErrorCode | null {
  if (error instanceof SyncFailure) return error.errorCode;
  if (error instanceof SettingsConflictError) return ErrorCodes.COURSE_RESET_IN_PROGRESS;
  if (error instanceof LmsError) return error.code;
  if (isDomainError(error)) return error.errorCode;
  return null;
}
