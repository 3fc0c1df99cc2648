import { ErrorCodes, type ErrorCode } from '@exb/shared/error-codes.js';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { isLmsId } from '@exb/shared/content-id.js';
import { EXB_POLICY_LIMITS, isEquivalentTool, type ExternalToolConfig } from '@exb/shared/exb-policy.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { audited, type AuditedBy } from '../../audit/audited.js';
import type { LmsApi } from '../../lms/api.js';
import { DomainError, isDomainError } from '../../domain-error.js';
import type { ManagementLocks } from '../locks.js';
import { emptyCourseDefaults } from '../settings/model.js';
import { SettingsConflictError, type SettingsRepository } from '../settings/settings-repository.js';

/** Document 2 "Target courses per exam-tool copy". */
export const MAX_COPY_TARGETS = 100;

export interface CopyTargetCourse {
  readonly courseId: string;
  readonly name: string;
  readonly courseCode: string | null;
}

export type CopyStatus = 'copied' | 'alreadyPresent' | 'failed';

export interface CopyEntry extends CopyTargetCourse {
  readonly status: CopyStatus;
  /** Failed entries only: why this course was not written. */
  readonly error_code?: ErrorCode;
  readonly message?: string;
}

export interface CopyResult {
  readonly copied: CopyEntry[];
  readonly alreadyPresent: CopyEntry[];
  readonly failed: CopyEntry[];
}

export interface ToolsCopyDependencies {
  readonly settings: SettingsRepository;
  readonly locks: ManagementLocks;
  readonly logger: Logger;
  readonly audit: AuditLog;
}

const FAILURES = {
  notTeacher: [ErrorCodes.COPY_TARGET_NOT_AUTHORIZED, 'You are not a teacher of this course in the LMS.'],
  reset: [ErrorCodes.COPY_TARGET_RESET, 'The course was reset while the copy was prepared; nothing was written.'],
  catalogFull: [ErrorCodes.INVALID_EXB_TOOL_POLICY, `The course already has ${EXB_POLICY_LIMITS.catalogTools} exam tools.`],
} as const;

/**
 * Copies one instructor-defined exam tool from the session course into other courses the user teaches. Targets come
 * from the user's live LMS teacher enrollments, never from the stored data, and each write is guarded by the target's
 * reset generation, so a copy can neither reach a course the user does not teach nor resurrect policy a reset cleared.
 */
export class ToolsCopyService {
  constructor(private readonly deps: ToolsCopyDependencies) {}

  /** The courses the user teaches, other than the source course, for a tool that may be copied. */
  async copyTargets(sourceCourseId: string, toolId: string, lms: LmsApi): Promise<CopyTargetCourse[]> {
    await this.sourceTool(sourceCourseId, toolId);
    const courses = await this.teacherCourses(lms);
    return [...courses.values()].filter((course) => course.courseId !== sourceCourseId);
  }

  /**
   * In order: check the tool, snapshot every target's reset generation, re-read the live teacher courses, then write
   * target by target under its course write lock. A target that is not taught, was reset since the snapshot, is being
   * written or reset, or has a full catalog fails on its own; an equivalent tool already there counts as present, so a
   * retried copy adds nothing twice. Recorded in the source course's trail with the tool and the courses per outcome.
   */
  copy(by: AuditedBy, sourceCourseId: string, toolId: string, targetCourseIds: readonly (string | number)[], lms: LmsApi): Promise<CopyResult> {
    return audited(
      this.deps.audit,
      by,
      { action: 'exam-tool.copy', courseId: sourceCourseId },
      () => this.copyChecked(sourceCourseId, toolId, targetCourseIds, lms),
      (result) => ({
        toolId,
        copiedTo: result.copied.map((entry) => entry.courseId),
        alreadyIn: result.alreadyPresent.map((entry) => entry.courseId),
        failedFor: result.failed.map((entry) => entry.courseId),
      }),
    );
  }

  private async copyChecked(sourceCourseId: string, toolId: string, targetCourseIds: readonly (string | number)[], lms: LmsApi): Promise<CopyResult> {
    const targets = [...new Set(targetCourseIds.map(String))];
    if (targets.length === 0 || targets.length > MAX_COPY_TARGETS || !targets.every(isLmsId)) {
      throw new DomainError(ErrorCodes.INVALID_COPY_TARGETS, `Choose between 1 and ${MAX_COPY_TARGETS} courses to copy to, by numeric course id.`);
    }
    if (targets.includes(sourceCourseId)) {
      throw new DomainError(ErrorCodes.INVALID_COPY_TARGETS, 'The tool already belongs to this course; choose other courses.');
    }
    const tool = await this.sourceTool(sourceCourseId, toolId);
    await this.deps.locks.assertNoReset(sourceCourseId);
    const generations = new Map<string, number>();
    for (const target of targets) {
      generations.set(target, (await this.deps.settings.loadCourseDefaults(target))?.resetGeneration ?? 0);
    }
    const taught = await this.teacherCourses(lms);

    const result: CopyResult = { copied: [], alreadyPresent: [], failed: [] };
    for (const target of targets) {
      const course = taught.get(target) ?? { courseId: target, name: '', courseCode: null };
      const fail = ([errorCode, message]: readonly [ErrorCode, string]) =>
        result.failed.push({ ...course, status: 'failed', error_code: errorCode, message });
      if (!taught.has(target)) {
        fail(FAILURES.notTeacher);
        continue;
      }
      try {
        const status = await this.copyInto(target, tool, generations.get(target) ?? 0);
        if (status === 'copied') result.copied.push({ ...course, status });
        else if (status === 'alreadyPresent') result.alreadyPresent.push({ ...course, status });
        else fail(FAILURES[status]);
      } catch (error) {
        if (!isDomainError(error)) throw error;
        fail([error.errorCode, error.message]);
      }
    }
    this.deps.logger.info(
      { sourceCourseId, copied: result.copied.length, alreadyPresent: result.alreadyPresent.length, failed: result.failed.length },
      'exam tool copied',
    );
    return result;
  }

  private async copyInto(
    courseId: string,
    tool: ExternalToolConfig,
    expectedGeneration: number,
  ): Promise<'copied' | 'alreadyPresent' | 'reset' | 'catalogFull'> {
    return this.deps.locks.withCourseWriteLock(courseId, async () => {
      const current = (await this.deps.settings.loadCourseDefaults(courseId)) ?? emptyCourseDefaults(courseId);
      if (current.resetGeneration !== expectedGeneration) return 'reset';
      if (current.externalTools.some((existing) => isEquivalentTool(existing, tool))) return 'alreadyPresent';
      if (current.externalTools.length >= EXB_POLICY_LIMITS.catalogTools) return 'catalogFull';
      const idTaken = current.externalTools.some((existing) => existing.id === tool.id);
      const copy: ExternalToolConfig = {
        id: idTaken ? randomUUID() : tool.id,
        label: tool.label,
        url: tool.url,
        resourceRules: tool.resourceRules,
        managedByAdmin: false,
        enabled: tool.enabled,
      };
      try {
        await this.deps.settings.saveCourseDefaults(
          courseId,
          { ...current, externalTools: [...current.externalTools, copy] },
          { expectedResetGeneration: expectedGeneration },
        );
      } catch (error) {
        if (error instanceof SettingsConflictError) return 'reset';
        throw error;
      }
      return 'copied';
    });
  }

  private async sourceTool(courseId: string, toolId: string): Promise<ExternalToolConfig> {
    const defaults = await this.deps.settings.loadCourseDefaults(courseId);
    const tool = defaults?.externalTools.find((candidate) => candidate.id === toolId);
    if (tool === undefined) throw new DomainError(ErrorCodes.EXAM_TOOL_NOT_FOUND, 'No such exam tool in this course.');
    if (tool.managedByAdmin) {
      throw new DomainError(ErrorCodes.EXAM_TOOL_MANAGED, 'This tool is managed by the school and is rolled out by an administrator; it cannot be copied.');
    }
    return tool;
  }

  /** Courses where the user holds an active teacher enrollment, by course id, in the LMS's order. */
  private async teacherCourses(lms: LmsApi): Promise<Map<string, CopyTargetCourse>> {
    const courses = await lms.listCourses({ enrollmentType: 'teacher', enrollmentState: 'active' });
    return new Map(courses.map((course) => [course.id, { courseId: course.id, name: course.name, courseCode: course.courseCode }]));
  }
}
