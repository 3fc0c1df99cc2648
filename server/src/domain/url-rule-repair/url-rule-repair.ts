import { ErrorCodes } from '@exb/shared/error-codes.js';
import { policyMessage, refOf, storedRuleReading, storedRuleReadings, type ExbUrlRule, type StoredRuleReading } from '@exb/shared/exb-policy.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { audited, type AuditedBy } from '../../audit/audited.js';
import { DomainError } from '../../domain-error.js';
import { courseResetInProgressError, type ManagementLocks } from '../locks.js';
import { policyError } from '../policy-errors.js';
import { defaultAssessmentSettings } from '../settings/model.js';
import { SettingsConflictError, type SettingsRepository } from '../settings/settings-repository.js';

/**
 * Stored URL rules the exam browser reads differently than the editor promises (`storedRuleReading`), as the teacher's
 * view and the administrator's course detail show them beside an assessment's verification, and the one-click rewrite
 * of such a rule to its faithful form.
 */

/** Where a rule is stored: the course defaults, or the assessment's own policy. */
export type RuleSource = 'course' | 'assessment';

/** A marked rule of one assessment's policy, as the views show it. */
export interface UrlRuleReadingView {
  readonly source: RuleSource;
  readonly match: ExbUrlRule['match'];
  readonly value: string;
  readonly reason: { readonly message: string; readonly messageKey: string; readonly values?: Readonly<Record<string, unknown>> };
  readonly faithful: string | null;
}

export interface UrlRuleRepairDependencies {
  readonly settings: SettingsRepository;
  readonly locks: ManagementLocks;
  readonly audit: AuditLog;
}

/** Where the rule to rewrite is stored: `contentId` `null` for the course defaults. */
export interface RuleTarget {
  readonly courseId: string;
  readonly contentId: string | null;
}

export interface RewriteResult {
  /** `false` when the rule had been rewritten already (a second click): nothing was written or recorded. */
  readonly rewritten: boolean;
  readonly value: string;
}

function view(source: RuleSource, reading: StoredRuleReading): UrlRuleReadingView {
  return { source, match: reading.match, value: reading.value, reason: reading.reason, faithful: reading.faithful };
}

export class UrlRuleRepairService {
  constructor(private readonly deps: UrlRuleRepairDependencies) {}

  /**
   * The marked rules of every assessment of the course with a stored setting, by content id, and those of the course
   * defaults (which an assessment without a setting of its own uses).
   */
  async readings(courseId: string): Promise<{ course: UrlRuleReadingView[]; assessments: Record<string, UrlRuleReadingView[]> }> {
    const [defaults, settings] = await Promise.all([this.deps.settings.loadCourseDefaults(courseId), this.deps.settings.listAssessmentSettings(courseId)]);
    const course = storedRuleReadings(defaults?.urlRules ?? []).map((reading) => view('course', reading));
    const assessments: Record<string, UrlRuleReadingView[]> = {};
    for (const setting of settings) {
      // The rules a configuration of the assessment is built from (`resolveEffectiveSettings`).
      assessments[setting.contentId] = setting.usesCourseDefaults
        ? course
        : storedRuleReadings(setting.urlRules).map((reading) => view('assessment', reading));
    }
    return { course, assessments };
  }

  /**
   * Rewrites the stored exact rule `value` of `target` to its faithful form, re-validated by the editor's own checks,
   * under the lock of what it writes. The lock is taken before the attempt is entered in the audit trail: a second
   * click while the first runs is refused (409) without an entry, and one after it finds the rule rewritten and
   * answers so, again without an entry. A rule without a faithful form is refused (and entered as refused): the
   * teacher has to change it in the editor.
   */
  rewrite(by: AuditedBy, target: RuleTarget, value: string): Promise<RewriteResult> {
    const { locks } = this.deps;
    const work = () => this.rewriteLocked(by, target, value);
    return target.contentId === null ? locks.withCourseWriteLock(target.courseId, work) : locks.withAssessmentLock(target.courseId, target.contentId, work);
  }

  private async rewriteLocked(by: AuditedBy, target: RuleTarget, value: string): Promise<RewriteResult> {
    const stored = await this.storedRules(target);
    const index = stored.rules.findIndex((rule) => rule.match === 'exact' && rule.value === value);
    if (index < 0) {
      const reading = storedRuleReading({ match: 'exact', value });
      const faithful = reading?.faithful ?? null;
      if (faithful !== null && stored.rules.some((rule) => rule.match === 'exact' && rule.value === faithful)) return { rewritten: false, value: faithful };
      throw new DomainError(ErrorCodes.NOT_FOUND, 'This URL rule is no longer stored; reload the page.');
    }
    const rule = stored.rules[index] as ExbUrlRule;
    return audited(
      this.deps.audit,
      by,
      { action: 'url-rule.rewrite', courseId: target.courseId, contentId: target.contentId, details: { source: target.contentId === null ? 'course' : 'assessment' } },
      async () => {
        const reading = storedRuleReading(rule);
        if (reading === null || reading.faithful === null) {
          const message = reading === null ? policyMessage('rule.readAsPromised') : policyMessage('rule.noFaithfulForm', { reason: refOf(reading.reason) });
          throw policyError({ errorCode: ErrorCodes.INVALID_EXB_URL_POLICY, ...message, path: ['urlRules', index, 'value'] });
        }
        const faithful = reading.faithful;
        // A faithful form another rule already holds would be a duplicate: the rule is dropped instead.
        const duplicate = stored.rules.some((other, at) => at !== index && other.match === 'exact' && other.value === faithful);
        const rules = duplicate ? stored.rules.filter((_, at) => at !== index) : stored.rules.map((other, at) => (at === index ? { ...other, value: faithful } : other));
        await stored.write(rules);
        return { rewritten: true, value: faithful };
      },
      () => ({ fields: ['urlRules'] }),
    );
  }

  private async storedRules(target: RuleTarget): Promise<{ rules: readonly ExbUrlRule[]; write: (rules: ExbUrlRule[]) => Promise<unknown> }> {
    const { settings } = this.deps;
    const { courseId, contentId } = target;
    if (contentId === null) {
      const defaults = await settings.loadCourseDefaults(courseId);
      if (defaults === null) return { rules: [], write: async () => {} };
      return {
        rules: defaults.urlRules,
        write: async (urlRules) => {
          try {
            await settings.saveCourseDefaults(courseId, { ...defaults, urlRules }, { expectedResetGeneration: defaults.resetGeneration });
          } catch (error) {
            if (error instanceof SettingsConflictError) throw courseResetInProgressError();
            throw error;
          }
        },
      };
    }
    const assessment = (await settings.loadAssessmentSettings(courseId, contentId)) ?? defaultAssessmentSettings(courseId, contentId);
    return { rules: assessment.urlRules, write: (urlRules) => settings.saveAssessmentSettings(courseId, { ...assessment, urlRules }) };
  }
}
