import type { ExbUrlRule } from '@exb/shared/exb-policy.js';
import { approvedTools, resolveEffectiveSettings, resolveExitPassword } from '../settings/effective-settings.js';
import type { AssessmentSettings, CourseDefaults } from '../settings/model.js';

/**
 * `configValid`: a configuration can be built, which needs an effective exit password (assessment override, course
 * default or managed default); without one a student could never leave the exam browser by its quit rule.
 */
export function isConfigValid(
  settings: Pick<AssessmentSettings, 'exitPasswordOverride'>,
  courseDefaults: Pick<CourseDefaults, 'exitPassword'> | null,
  managedExitPassword: string | null | undefined,
): boolean {
  return resolveExitPassword(settings, courseDefaults, managedExitPassword).source !== 'none';
}

/** Document 2 "Status view": what a configuration of the assessment would allow, without any secret. */
export interface StatusView {
  readonly authenticated: boolean;
  readonly exbEnabled: boolean;
  readonly hasAccessCode: boolean;
  readonly configValid: boolean;
  /** Host of the LMS, allowed in every configuration. */
  readonly lmsDomain: string;
  /** Sign-in hosts the service adds to every configuration; none are configured today. */
  readonly ssoDomains: readonly string[];
  /** Hosts the assessment's approved tools open (launch URLs and resource rules). */
  readonly educationalToolDomains: readonly string[];
  /** Hosts of the assessment's effective URL rules. */
  readonly customDomains: readonly string[];
  readonly externalTools: readonly { id: string; label: string; url: string }[];
}

export interface StatusViewInput {
  readonly settings: AssessmentSettings;
  readonly courseDefaults: CourseDefaults | null;
  readonly managedExitPassword: string | null | undefined;
  readonly lmsUrl: string;
  /** Whether the caller holds a usable LMS grant. */
  readonly authenticated: boolean;
}

function ruleHost(rule: Pick<ExbUrlRule, 'match' | 'value'>): string | null {
  if (rule.match === 'domain') return rule.value;
  try {
    return new URL(rule.value).hostname;
  } catch {
    return null;
  }
}

function hosts(values: Iterable<string | null>): string[] {
  return [...new Set([...values].filter((value): value is string => value !== null))].sort();
}

/**
 * The assessment's effective website rules as they are matched: an exact page stays a page, so the teacher's summary
 * does not read it as the whole site its host would suggest. Only the teacher's view carries them; the contract's
 * status view keeps its host list (`customDomains`).
 */
export function effectiveWebsiteRules(input: Omit<StatusViewInput, 'lmsUrl' | 'authenticated'>): { match: ExbUrlRule['match']; value: string }[] {
  const effective = resolveEffectiveSettings({
    assessment: input.settings,
    courseDefaults: input.courseDefaults,
    managedExitPassword: input.managedExitPassword,
  });
  return effective.urlRules.map((rule) => ({ match: rule.match, value: rule.value }));
}

export function statusView(input: StatusViewInput): StatusView {
  const { settings } = input;
  const effective = resolveEffectiveSettings({
    assessment: settings,
    courseDefaults: input.courseDefaults,
    managedExitPassword: input.managedExitPassword,
  });
  return {
    authenticated: input.authenticated,
    exbEnabled: settings.exbRequired && settings.enabled,
    hasAccessCode: settings.accessCode !== null,
    configValid: isConfigValid(settings, input.courseDefaults, input.managedExitPassword),
    lmsDomain: new URL(input.lmsUrl).hostname,
    ssoDomains: [],
    educationalToolDomains: hosts(
      effective.tools.flatMap((tool) => [ruleHost({ match: 'exact', value: tool.url }), ...tool.resourceRules.map(ruleHost)]),
    ),
    customDomains: hosts(effective.urlRules.map(ruleHost)),
    externalTools: approvedTools(effective),
  };
}
