/** Lists of allow rules (exact pages and whole sites), as URL policies and tools' resource rules hold them. */
import { fail, firstZodIssue, type ExbPolicyErrorCode, type PolicyPath, type PolicyResult } from './errors.js';
import { exactRuleRefusal, type PolicyCheck } from './exact-rule-filter.js';
import { normalizeExactHttpsUrl } from './exact-urls.js';
import { isPublicSuffix, normalizeHostname } from './hostnames.js';
import { EXB_POLICY_LIMITS } from './limits.js';
import { exbUrlRuleSchema, type ExbUrlRule } from './schemas.js';
import { normalizeLabel } from './text.js';
import { policyMessage, refOf } from './messages.js';
import { wholeSiteConfirmationMessage } from './whole-site.js';
import { ErrorCodes } from '../error-codes.js';

/** Identity of a rule for the exam browser: what it allows, ignoring id and label. */
export function urlRuleKey(rule: Pick<ExbUrlRule, 'match' | 'value'>): string {
  return `${rule.match} ${rule.value}`;
}

interface RuleErrorCodes {
  readonly url: ExbPolicyErrorCode;
  readonly domain: ExbPolicyErrorCode;
}

const POLICY_RULE_CODES: RuleErrorCodes = { url: ErrorCodes.INVALID_EXB_URL_POLICY, domain: ErrorCodes.INVALID_EXB_DOMAIN_POLICY };
export const TOOL_RULE_CODES: RuleErrorCodes = { url: ErrorCodes.INVALID_EXB_TOOL_POLICY, domain: ErrorCodes.INVALID_EXB_TOOL_POLICY };

function normalizeRule(input: unknown, codes: RuleErrorCodes, path: PolicyPath, check: PolicyCheck): PolicyResult<ExbUrlRule> {
  const parsed = exbUrlRuleSchema.safeParse(input);
  if (!parsed.success) return firstZodIssue(parsed.error, codes.url, path);
  const rule = parsed.data;
  let value: string;
  if (rule.match === 'exact') {
    const url = normalizeExactHttpsUrl(rule.value);
    if (!url.ok) return fail(codes.url, url, [...path, 'value']);
    const refusal = exactRuleRefusal(url.value, check);
    if (refusal !== null) return fail(codes.url, refusal, [...path, 'value']);
    value = url.value;
  } else {
    const host = normalizeHostname(rule.value);
    if (!host.ok) return fail(codes.domain, host, [...path, 'value']);
    if (isPublicSuffix(host.value)) return fail(codes.domain, policyMessage('rule.publicSuffix'), [...path, 'value']);
    if (rule.broadDomainConfirmed !== true) {
      const confirmation = refOf(wholeSiteConfirmationMessage(host.value));
      return fail(codes.domain, policyMessage('rule.confirmWholeSite', { confirmation }), [...path, 'broadDomainConfirmed']);
    }
    value = host.value;
  }
  let label: string | undefined;
  if (rule.label !== undefined) {
    const checked = normalizeLabel(rule.label, EXB_POLICY_LIMITS.ruleLabelLength);
    if (!checked.ok) return fail(codes.url, checked, [...path, 'label']);
    label = checked.value === '' ? undefined : checked.value;
  }
  return {
    ok: true,
    value: {
      ...(rule.id !== undefined ? { id: rule.id } : {}),
      match: rule.match,
      value,
      ...(rule.match === 'domain' ? { broadDomainConfirmed: true } : {}),
      ...(label !== undefined ? { label } : {}),
    },
  };
}

export function normalizeRuleList(
  input: unknown,
  maxRules: number,
  codes: RuleErrorCodes,
  path: PolicyPath,
  check: PolicyCheck,
): PolicyResult<ExbUrlRule[]> {
  if (!Array.isArray(input)) return fail(codes.url, policyMessage('rule.listExpected'), path);
  if (input.length > maxRules) return fail(codes.url, policyMessage('rule.tooMany', { max: maxRules }), path);
  const rules: ExbUrlRule[] = [];
  const seen = new Set<string>();
  for (const [index, item] of input.entries()) {
    const rule = normalizeRule(item, codes, [...path, index], check);
    if (!rule.ok) return rule;
    // A repeated rule allows nothing more; keeping the first keeps the stored list free of noise.
    const key = urlRuleKey(rule.value);
    if (seen.has(key)) continue;
    seen.add(key);
    rules.push(rule.value);
  }
  return { ok: true, value: rules };
}

/**
 * A course's or an assessment's URL policy. Exact rules failing the URL rules, or (at save time) read differently by
 * the exam browser's filter, give `INVALID_EXB_URL_POLICY`; domain rules that are not concrete host names, are public
 * suffixes or lack `broadDomainConfirmed: true` give `INVALID_EXB_DOMAIN_POLICY`. Duplicates (same match and value) are
 * dropped.
 */
export function normalizeUrlRules(input: unknown, path: PolicyPath = [], check: PolicyCheck = 'save'): PolicyResult<ExbUrlRule[]> {
  return normalizeRuleList(input, EXB_POLICY_LIMITS.urlRules, POLICY_RULE_CODES, path, check);
}
