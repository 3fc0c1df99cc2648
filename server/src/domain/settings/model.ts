import { z } from 'zod';
import type { ExbUrlRule, ExternalToolConfig } from '@exb/shared/exb-policy.js';
import type { VerificationStatus } from '@exb/shared/verification-status.js';

/**
 * The per-assessment and per-course settings as the domain sees them: secrets in plain text (sealed only at rest by
 * the repository), policies already normalized by `@exb/shared/exb-policy.js`. Enumerations that are read back from
 * the database are zod schemas so a stored value outside the contract is caught where it enters.
 */

export const CONTENT_TYPES = ['CLASSIC_QUIZ', 'NEW_QUIZ'] as const;
export const contentTypeSchema = z.enum(CONTENT_TYPES);
export type ContentType = z.infer<typeof contentTypeSchema>;


/** An assessment as last discovered in the LMS. */
export interface CachedAssessment {
  readonly courseId: string;
  readonly contentId: string;
  readonly contentType: ContentType;
  /** The classic quiz id, or the new quiz's assignment id. */
  readonly lmsAssessmentId: string;
  readonly title: string;
  readonly published: boolean;
  /**
   * The LMS showed an access code on it at the last discovery (a course copy carries codes along). Whether the service
   * manages that code is a question of the setting: `unmanagedAccessCode` in `enforcement/unmanaged-code.ts`.
   */
  readonly lmsHasAccessCode: boolean;
  readonly discoveredAt: Date;
  readonly updatedAt: Date;
}

/** Enforcement and policy of one assessment. */
export interface AssessmentSettings {
  readonly courseId: string;
  readonly contentId: string;
  readonly exbRequired: boolean;
  readonly enabled: boolean;
  /** The LMS access code while enforcement is on; never leaves the server except in a redemption. */
  readonly accessCode: string | null;
  /** URL policy comes from the course defaults instead of `urlRules`. */
  readonly usesCourseDefaults: boolean;
  readonly urlRules: readonly ExbUrlRule[];
  /** Course tools selected by id; `null` inherits the whole course catalog. */
  readonly externalToolIds: readonly string[] | null;
  /** Tools defined for this assessment only; never part of the course catalog. */
  readonly quizOnlyTools: readonly ExternalToolConfig[];
  readonly startPasswordOverride: string | null;
  readonly exitPasswordOverride: string | null;
  readonly verificationStatus: VerificationStatus;
  /** Time of the last write; null until saved. */
  readonly updatedAt: Date | null;
  /** Optimistic-concurrency counter; 0 until saved, then incremented by every write. */
  readonly version: number;
}

/** Defaults and the tool catalog of one course. */
export interface CourseDefaults {
  readonly courseId: string;
  readonly urlRules: readonly ExbUrlRule[];
  readonly externalTools: readonly ExternalToolConfig[];
  readonly startPassword: string | null;
  readonly exitPassword: string | null;
  readonly setupCompleted: boolean;
  /**
   * Advanced by each course reset, which clears the policy but keeps the row, so a copy that snapshotted the generation
   * can tell that the course was reset under it.
   */
  readonly resetGeneration: number;
  readonly updatedAt: Date | null;
}

/** A fresh assessment setting: enforcement off, course defaults inherited, nothing overridden. */
export function defaultAssessmentSettings(courseId: string, contentId: string): AssessmentSettings {
  return {
    courseId,
    contentId,
    exbRequired: false,
    enabled: false,
    accessCode: null,
    usesCourseDefaults: true,
    urlRules: [],
    externalToolIds: null,
    quizOnlyTools: [],
    startPasswordOverride: null,
    exitPasswordOverride: null,
    verificationStatus: 'unverified',
    updatedAt: null,
    version: 0,
  };
}

/** Course defaults of a course that never saved any. */
export function emptyCourseDefaults(courseId: string): CourseDefaults {
  return {
    courseId,
    urlRules: [],
    externalTools: [],
    startPassword: null,
    exitPassword: null,
    setupCompleted: false,
    resetGeneration: 0,
    updatedAt: null,
  };
}

/** The instructor view of a setting (Document 2, "Redacted setting"): no code, no passwords. */
export interface RedactedAssessmentSettings {
  readonly exbRequired: boolean;
  readonly enabled: boolean;
  readonly hasAccessCode: boolean;
  readonly usesCourseDefaults: boolean;
}

export function redactAssessmentSettings(settings: AssessmentSettings): RedactedAssessmentSettings {
  return {
    exbRequired: settings.exbRequired,
    enabled: settings.enabled,
    hasAccessCode: settings.accessCode !== null,
    usesCourseDefaults: settings.usesCourseDefaults,
  };
}

/** The instructor view of course defaults (Document 2, "Course defaults"): passwords reduced to flags. */
export interface RedactedCourseDefaults {
  readonly courseId: string;
  readonly urlRules: readonly ExbUrlRule[];
  readonly externalTools: readonly ExternalToolConfig[];
  readonly setupCompleted: boolean;
  readonly hasQuitPassword: boolean;
  readonly hasStartPassword: boolean;
}

export function redactCourseDefaults(defaults: CourseDefaults): RedactedCourseDefaults {
  return {
    courseId: defaults.courseId,
    urlRules: defaults.urlRules,
    externalTools: defaults.externalTools,
    setupCompleted: defaults.setupCompleted,
    hasQuitPassword: defaults.exitPassword !== null,
    hasStartPassword: defaults.startPassword !== null,
  };
}
