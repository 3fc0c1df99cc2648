import type { ExbUrlRule, ExternalToolConfig } from '@exb/shared/exb-policy.js';
import type { RouterOutputs } from '../../lib/trpc';

type Instructor = RouterOutputs['instructor'];

export type Assessment = Instructor['assessments']['list'][number];
export type AssessmentSetting = Instructor['assessments']['settings'][string];
export type CourseDefaults = Instructor['courseDefaults']['get']['defaults'];
export type AssessmentStatus = Instructor['enforcement']['status'];
export type CopyResult = Instructor['examTools']['copy'];
export type CopyTarget = Instructor['examTools']['copyTargets']['courses'][number];

export type { ExbUrlRule, ExternalToolConfig };

/** An assessment nobody configured yet: what the server assumes for it too. */
export const DEFAULT_SETTING: AssessmentSetting = {
  exbRequired: false,
  enabled: false,
  hasAccessCode: false,
  usesCourseDefaults: true,
};

/** What a teacher needs to know about every screen of the view. */
export interface CourseScope {
  readonly courseId: string;
  readonly lmsUserId: string;
  readonly courseName: string;
}
