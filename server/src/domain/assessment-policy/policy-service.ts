import { normalizeQuizOnlyTools, normalizeToolSelection, type ExbUrlRule } from '@exb/shared/exb-policy.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { audited, changedFields, type AuditedBy } from '../../audit/audited.js';
import type { AssessmentRef } from '../assessments/scope.js';
import type { ManagementLocks } from '../locks.js';
import { policyValue } from '../policy-errors.js';
import { defaultAssessmentSettings, type AssessmentSettings, type CourseDefaults } from '../settings/model.js';
import type { SettingsRepository } from '../settings/settings-repository.js';

/**
 * One assessment's policy as the structured endpoint submits it. A field left out keeps its stored value. URL rules
 * arrive normalized (the route input runs the shared validator); tool selections and assessment tools are checked
 * here, against the course catalog they refer to.
 */
export interface StructuredPolicyInput {
  readonly urlRules?: readonly ExbUrlRule[];
  readonly usesCourseDefaults?: boolean;
  /** `true`: `quitPassword` is the override (a `null` or missing one keeps the stored override); `false`: no override. */
  readonly quitPasswordOverride?: boolean;
  readonly quitPassword?: string | null;
  readonly startPasswordOverride?: boolean;
  readonly startPassword?: string | null;
  /** Course tool ids, or `null` to inherit the whole catalog. */
  readonly externalToolIds?: unknown;
  /** Tools for this assessment only. */
  readonly quizOnlyExternalTools?: unknown;
}

export interface PolicyServiceDependencies {
  readonly settings: SettingsRepository;
  readonly locks: ManagementLocks;
  readonly audit: AuditLog;
  /** The service base URL; video tool links are rewritten to its player route. */
  readonly baseUrl: string;
}

type PolicyChange = { settings: AssessmentSettings; courseDefaults: CourseDefaults | null };

/** The policy fields the trail names when they change; password overrides by name only. */
const POLICY_FIELDS = {
  urlRules: 'urlRules',
  usesCourseDefaults: 'usesCourseDefaults',
  exitPasswordOverride: 'exitPassword',
  startPasswordOverride: 'startPassword',
  externalToolIds: 'externalToolIds',
  quizOnlyTools: 'quizOnlyTools',
} as const;

function override(enabled: boolean | undefined, submitted: string | null | undefined, stored: string | null): string | null {
  if (enabled === undefined) return stored;
  if (!enabled) return null;
  return typeof submitted === 'string' ? submitted : stored;
}

/**
 * Per-assessment policy: the structured save and the reset to course defaults. Neither touches enforcement
 * (`exbRequired`, `enabled`) or the access code, and neither calls the LMS. Both run under the assessment's operation
 * lock and write with the setting's version, so a concurrent writer that bypassed the lock is still detected. Each
 * attempt is recorded in the audit trail with the names of the fields it changed.
 */
export class AssessmentPolicyService {
  constructor(private readonly deps: PolicyServiceDependencies) {}

  saveStructured(by: AuditedBy, ref: AssessmentRef, input: StructuredPolicyInput): Promise<PolicyChange> {
    return this.recorded(by, 'policy.save', ref, () => this.save(ref, input));
  }

  /** Back to the course defaults: URL rules, password overrides and tool selections cleared; enforcement kept. */
  resetToCourseDefaults(by: AuditedBy, ref: AssessmentRef): Promise<PolicyChange> {
    return this.recorded(by, 'policy.reset-defaults', ref, () => this.reset(ref));
  }

  private async recorded(by: AuditedBy, action: string, ref: AssessmentRef, work: () => Promise<PolicyChange & { fields: string[] }>): Promise<PolicyChange> {
    const { settings, courseDefaults } = await audited(
      this.deps.audit,
      by,
      { action, courseId: ref.courseId, contentId: ref.contentId },
      work,
      (change) => ({ fields: change.fields }),
    );
    return { settings, courseDefaults };
  }

  private async save(ref: AssessmentRef, input: StructuredPolicyInput): Promise<PolicyChange & { fields: string[] }> {
    return this.deps.locks.withAssessmentLock(ref.courseId, ref.contentId, async () => {
      const { assessment, courseDefaults } = await this.deps.settings.loadPolicyInputs(ref.courseId, ref.contentId);
      const current = assessment ?? defaultAssessmentSettings(ref.courseId, ref.contentId);
      const catalog = courseDefaults?.externalTools ?? [];
      const externalToolIds =
        input.externalToolIds === undefined
          ? current.externalToolIds
          : policyValue(normalizeToolSelection(input.externalToolIds, catalog, ['externalToolIds']));
      const quizOnlyTools =
        input.quizOnlyExternalTools === undefined
          ? current.quizOnlyTools
          : policyValue(
              normalizeQuizOnlyTools(
                input.quizOnlyExternalTools,
                { baseUrl: this.deps.baseUrl, courseToolIds: catalog.map((tool) => tool.id) },
                ['quizOnlyExternalTools'],
              ),
            );
      const settings = await this.deps.settings.saveAssessmentSettings(ref.courseId, {
        ...current,
        urlRules: input.urlRules ?? current.urlRules,
        usesCourseDefaults: input.usesCourseDefaults ?? current.usesCourseDefaults,
        exitPasswordOverride: override(input.quitPasswordOverride, input.quitPassword, current.exitPasswordOverride),
        startPasswordOverride: override(input.startPasswordOverride, input.startPassword, current.startPasswordOverride),
        externalToolIds,
        quizOnlyTools,
      });
      return { settings, courseDefaults, fields: changedFields(current, settings, POLICY_FIELDS) };
    });
  }

  private async reset(ref: AssessmentRef): Promise<PolicyChange & { fields: string[] }> {
    return this.deps.locks.withAssessmentLock(ref.courseId, ref.contentId, async () => {
      const { assessment, courseDefaults } = await this.deps.settings.loadPolicyInputs(ref.courseId, ref.contentId);
      if (assessment === null) return { settings: defaultAssessmentSettings(ref.courseId, ref.contentId), courseDefaults, fields: [] };
      const cleared = defaultAssessmentSettings(ref.courseId, ref.contentId);
      const settings = await this.deps.settings.saveAssessmentSettings(ref.courseId, {
        ...assessment,
        usesCourseDefaults: cleared.usesCourseDefaults,
        urlRules: cleared.urlRules,
        externalToolIds: cleared.externalToolIds,
        quizOnlyTools: cleared.quizOnlyTools,
        startPasswordOverride: cleared.startPasswordOverride,
        exitPasswordOverride: cleared.exitPasswordOverride,
      });
      return { settings, courseDefaults, fields: changedFields(assessment, settings, POLICY_FIELDS) };
    });
  }
}
