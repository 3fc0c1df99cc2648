import type { ExbUrlRule, ExternalToolConfig } from '@exb/shared/exb-policy.js';
import type { AssessmentSettings, CourseDefaults } from './model.js';

/**
 * What one assessment's exam-browser configuration is built from, resolved from its setting, its course defaults and
 * the managed default exit password. Pure: the same inputs always give the same result, so the configuration builder,
 * the fingerprint, the approved-tool list and the password reveal routes all agree.
 */

export type StartPasswordSource = 'assessment' | 'course' | 'none';
export type ExitPasswordSource = 'assessment' | 'course' | 'managed' | 'none';

export interface ResolvedPassword<Source extends string> {
  readonly value: string | null;
  readonly source: Source;
}

/** A tool as it goes into a configuration; catalog bookkeeping (`enabled`, `managedByAdmin`, `presetId`) resolved away. */
export interface EffectiveTool {
  readonly id: string;
  readonly label: string;
  readonly url: string;
  readonly resourceRules: readonly ExbUrlRule[];
  /** `course` for a catalog tool, `quiz` for a tool defined on the assessment. */
  readonly source: 'course' | 'quiz';
}

export interface EffectiveSettings {
  readonly courseId: string;
  readonly contentId: string;
  readonly urlRules: readonly ExbUrlRule[];
  readonly tools: readonly EffectiveTool[];
  readonly startPassword: ResolvedPassword<StartPasswordSource>;
  readonly exitPassword: ResolvedPassword<ExitPasswordSource>;
}

export type AssessmentPolicy = Pick<
  AssessmentSettings,
  | 'courseId'
  | 'contentId'
  | 'usesCourseDefaults'
  | 'urlRules'
  | 'externalToolIds'
  | 'quizOnlyTools'
  | 'startPasswordOverride'
  | 'exitPasswordOverride'
>;

export type CoursePolicy = Pick<CourseDefaults, 'courseId' | 'urlRules' | 'externalTools' | 'startPassword' | 'exitPassword'>;

export interface EffectiveSettingsInput {
  readonly assessment: AssessmentPolicy;
  /** `null` when the course never saved defaults: no rules, no tools, no passwords. */
  readonly courseDefaults: CoursePolicy | null;
  /** `EXB_MANAGED_QUIT_PASSWORD`, the server-wide fallback exit password. */
  readonly managedExitPassword?: string | null | undefined;
}

// An empty string would write an exit password the student cannot type and the exam browser treats as none.
function present(value: string | null | undefined): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** Assessment override, then course default, then none. */
export function resolveStartPassword(
  assessment: Pick<AssessmentPolicy, 'startPasswordOverride'>,
  courseDefaults: Pick<CoursePolicy, 'startPassword'> | null,
): ResolvedPassword<StartPasswordSource> {
  if (present(assessment.startPasswordOverride)) return { value: assessment.startPasswordOverride, source: 'assessment' };
  if (present(courseDefaults?.startPassword)) return { value: courseDefaults.startPassword, source: 'course' };
  return { value: null, source: 'none' };
}

/** Assessment override, then course default, then the managed default, then none. */
export function resolveExitPassword(
  assessment: Pick<AssessmentPolicy, 'exitPasswordOverride'> | null,
  courseDefaults: Pick<CoursePolicy, 'exitPassword'> | null,
  managedExitPassword: string | null | undefined,
): ResolvedPassword<ExitPasswordSource> {
  if (present(assessment?.exitPasswordOverride)) return { value: assessment.exitPasswordOverride, source: 'assessment' };
  if (present(courseDefaults?.exitPassword)) return { value: courseDefaults.exitPassword, source: 'course' };
  if (present(managedExitPassword)) return { value: managedExitPassword, source: 'managed' };
  return { value: null, source: 'none' };
}

function effectiveTool(tool: ExternalToolConfig, source: EffectiveTool['source']): EffectiveTool {
  return { id: tool.id, label: tool.label, url: tool.url, resourceRules: tool.resourceRules, source };
}

/**
 * The tools of a configuration: the course catalog (all of it when `externalToolIds` is `null`, else the selected
 * ids, ignoring ids no longer in the catalog) in catalog order, then the assessment's own tools; switched-off tools
 * are left out either way.
 */
export function selectTools(
  catalog: readonly ExternalToolConfig[],
  externalToolIds: readonly string[] | null,
  quizOnlyTools: readonly ExternalToolConfig[],
): EffectiveTool[] {
  const selected = externalToolIds === null ? null : new Set(externalToolIds);
  const courseTools = catalog
    .filter((tool) => tool.enabled && (selected === null || selected.has(tool.id)))
    .map((tool) => effectiveTool(tool, 'course'));
  const ownTools = quizOnlyTools.filter((tool) => tool.enabled).map((tool) => effectiveTool(tool, 'quiz'));
  return [...courseTools, ...ownTools];
}

export function resolveEffectiveSettings(input: EffectiveSettingsInput): EffectiveSettings {
  const { assessment, courseDefaults } = input;
  if (courseDefaults !== null && courseDefaults.courseId !== assessment.courseId) {
    throw new Error('course defaults belong to another course');
  }
  return {
    courseId: assessment.courseId,
    contentId: assessment.contentId,
    urlRules: assessment.usesCourseDefaults ? (courseDefaults?.urlRules ?? []) : assessment.urlRules,
    tools: selectTools(courseDefaults?.externalTools ?? [], assessment.externalToolIds, assessment.quizOnlyTools),
    startPassword: resolveStartPassword(assessment, courseDefaults),
    exitPassword: resolveExitPassword(assessment, courseDefaults, input.managedExitPassword),
  };
}

/** The approved tools students see (Document 3, "Approved tool"). */
export function approvedTools(settings: Pick<EffectiveSettings, 'tools'>): { id: string; label: string; url: string }[] {
  return settings.tools.map((tool) => ({ id: tool.id, label: tool.label, url: tool.url }));
}
