/** One tool definition in canonical form, and a whole catalog as an administrator process writes it. */
import { fail, firstZodIssue, type PolicyPath, type PolicyResult } from './errors.js';
import {
  domainRuleCovers,
  exactRuleMismatch,
  LAUNCH_WHOLE_HOST_MESSAGE,
  type PolicyCheck,
} from './exact-rule-filter.js';
import { EXB_POLICY_LIMITS } from './limits.js';
import { policyMessage } from './messages.js';
import { externalToolInputSchema, ID_PATTERN, TOOL_LABEL_MISSING, type ExternalToolConfig } from './schemas.js';
import { normalizeLabel } from './text.js';
import { normalizeToolUrl } from './tool-urls.js';
import { normalizeRuleList, TOOL_RULE_CODES, urlRuleKey } from './url-rules.js';
import { ErrorCodes } from '../error-codes.js';

export interface ToolNormalizationOptions {
  /** The service base URL; video links are rewritten to its player route. */
  readonly baseUrl: string;
  /** Id for a submitted tool without one; defaults to a random UUID. */
  readonly assignId?: () => string;
  /** `save` unless a stored definition is re-read. */
  readonly check?: PolicyCheck;
}

function defaultAssignId(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * One tool definition in canonical form; every error is `INVALID_EXB_TOOL_POLICY`. Keeps `managedByAdmin` and
 * `presetId` as given: callers acting for an instructor use {@link mergeInstructorToolCatalog} or
 * {@link normalizeQuizOnlyTools}, which decide who may set them.
 *
 * The launch URL becomes an exact filter rule too. At the site root it allows the whole host (see
 * {@link exactRuleMismatch}), so at save time it is accepted there only when one of the tool's own domain rules
 * already allows that host, which says the breadth out loud.
 */
export function normalizeExternalTool(
  input: unknown,
  options: ToolNormalizationOptions,
  path: PolicyPath = [],
): PolicyResult<ExternalToolConfig> {
  const parsed = externalToolInputSchema.safeParse(input);
  if (!parsed.success) return firstZodIssue(parsed.error, ErrorCodes.INVALID_EXB_TOOL_POLICY, path);
  const tool = parsed.data;
  const label = normalizeLabel(tool.label, EXB_POLICY_LIMITS.toolLabelLength);
  if (!label.ok) return fail(ErrorCodes.INVALID_EXB_TOOL_POLICY, label, [...path, 'label']);
  if (label.value === '') return fail(ErrorCodes.INVALID_EXB_TOOL_POLICY, TOOL_LABEL_MISSING, [...path, 'label']);
  const check = options.check ?? 'save';
  const url = normalizeToolUrl(tool.url, options.baseUrl, [...path, 'url'], check);
  if (!url.ok) return url;
  const rules = normalizeRuleList(tool.resourceRules, EXB_POLICY_LIMITS.resourceRules, TOOL_RULE_CODES, [...path, 'resourceRules'], check);
  if (!rules.ok) return rules;
  if (check === 'save' && exactRuleMismatch(url.value) === 'whole-host' && !domainRuleCovers(rules.value, new URL(url.value).hostname)) {
    return fail(ErrorCodes.INVALID_EXB_TOOL_POLICY, LAUNCH_WHOLE_HOST_MESSAGE, [...path, 'url']);
  }
  const id = tool.id ?? (options.assignId ?? defaultAssignId)();
  if (!ID_PATTERN.test(id) || id.length > EXB_POLICY_LIMITS.idLength) throw new RangeError('assigned tool id is invalid');
  return {
    ok: true,
    value: {
      id,
      label: label.value,
      url: url.value,
      resourceRules: rules.value,
      managedByAdmin: tool.managedByAdmin,
      ...(tool.presetId !== undefined ? { presetId: tool.presetId.toLowerCase() } : {}),
      enabled: tool.enabled,
    },
  };
}

/** Same tool for the exam browser: same launch URL and the same set of resource rules (ids, labels, order aside). */
export function isEquivalentTool(
  a: Pick<ExternalToolConfig, 'url' | 'resourceRules'>,
  b: Pick<ExternalToolConfig, 'url' | 'resourceRules'>,
): boolean {
  if (a.url !== b.url) return false;
  const keys = (tool: Pick<ExternalToolConfig, 'resourceRules'>) => [...new Set(tool.resourceRules.map(urlRuleKey))].sort();
  const left = keys(a);
  const right = keys(b);
  return left.length === right.length && left.every((key, index) => key === right[index]);
}

export function toolList(input: unknown, max: number, path: PolicyPath): PolicyResult<unknown[]> {
  if (!Array.isArray(input)) return fail(ErrorCodes.INVALID_EXB_TOOL_POLICY, policyMessage('tool.listExpected'), path);
  if (input.length > max) return fail(ErrorCodes.INVALID_EXB_TOOL_POLICY, policyMessage('tool.tooMany', { max }), path);
  return { ok: true, value: input };
}

export function duplicateId(path: PolicyPath) {
  return fail(ErrorCodes.INVALID_EXB_TOOL_POLICY, policyMessage('tool.duplicateId'), [...path, 'id']);
}

/**
 * A whole course catalog as an administrator process writes it (preset rollout): every tool normalized, ids unique,
 * at most 50 tools. `managedByAdmin` and `presetId` are kept as given.
 */
export function normalizeToolCatalog(
  input: unknown,
  options: ToolNormalizationOptions,
  path: PolicyPath = [],
): PolicyResult<ExternalToolConfig[]> {
  const list = toolList(input, EXB_POLICY_LIMITS.catalogTools, path);
  if (!list.ok) return list;
  const tools: ExternalToolConfig[] = [];
  const ids = new Set<string>();
  for (const [index, item] of list.value.entries()) {
    const tool = normalizeExternalTool(item, options, [...path, index]);
    if (!tool.ok) return tool;
    if (ids.has(tool.value.id)) return duplicateId([...path, index]);
    ids.add(tool.value.id);
    tools.push(tool.value);
  }
  return { ok: true, value: tools };
}
