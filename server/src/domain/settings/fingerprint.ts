import { createHash } from 'node:crypto';
import { urlRuleKey, type ExbUrlRule } from '@exb/shared/exb-policy.js';
import type { EffectiveSettings } from './effective-settings.js';

/**
 * The settings fingerprint: grants and proofs are bound to it, and a configuration downloaded under another
 * fingerprint is stale. It must change whenever the exam-browser configuration of an assessment changes, and only
 * then, so students re-download exactly when they have to.
 *
 * Covered, and why:
 * - course id, content id, LMS origin: they make the start URL and the LMS allow rule.
 * - service origin: exit pages, the video player and the quit URL live there.
 * - quit URL: the configuration-bound quit URL, which is derived from the current access code; a regenerated code
 *   changes the configuration through it. It must not contain per-student values.
 * - additional allowed hosts: server-wide hosts (sign-in, LMS asset hosts) the builder adds to every filter.
 * - effective URL rules, as a set of `match value` pairs.
 * - effective tools, as a set of (launch URL, set of resource rules).
 * - effective start and exit passwords, as SHA-256 digests: the configuration carries the exit password only as a
 *   hash, and a fingerprint that ends up in a log or token must not carry a password either.
 *
 * Left out, because the exam browser never sees them: titles, tool and rule labels and ids, where a tool comes from
 * (course or assessment, managed or not), where a password comes from (assessment, course or managed default),
 * `exbRequired`, `enabled`, `setupCompleted`, `verificationStatus`, versions and timestamps, and the order of rules
 * and tools (the builder emits allow rules as a sorted set, and the filter's verdict does not depend on order).
 * Per-download values (the student's session URL, salts) are bound to the grant instead.
 *
 * Two rules moved between tools change the fingerprint although the filter stays the same: a needless re-download
 * is the safe side of that trade.
 *
 * The preimage starts with a version line. Changing what is covered, or changing the fixed settings the builder
 * writes, means bumping it, so every fingerprint issued before changes too.
 */
export const SETTINGS_FINGERPRINT_VERSION = 'exb-settings-fingerprint/v1';

export interface FingerprintContext {
  /** The configured LMS URL; only its origin counts. */
  readonly lmsOrigin: string;
  /** The service base URL; only its origin counts. */
  readonly serviceOrigin: string;
  /** The configuration-bound quit URL for the current access code, or `null` when the configuration has none. */
  readonly quitUrl: string | null;
  /** Hosts the builder allows in every configuration besides the LMS and the service. */
  readonly additionalAllowedHosts?: readonly string[];
}

export type FingerprintInput = Pick<EffectiveSettings, 'courseId' | 'contentId' | 'urlRules' | 'tools'> & {
  readonly startPassword: { readonly value: string | null };
  readonly exitPassword: { readonly value: string | null };
};

function canonicalOrigin(value: string, name: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`${name} is not an absolute URL`);
  }
  if (url.origin === 'null') throw new TypeError(`${name} has no origin`);
  return url.origin;
}

/** Code-unit order, so the result never depends on the process locale. */
function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function ruleSet(rules: readonly ExbUrlRule[]): string[] {
  return sortedUnique(rules.map(urlRuleKey));
}

function passwordDigest(password: string | null): string | null {
  if (password === null || password === '') return null;
  return createHash('sha256').update(`exb-settings-password\u0000${password}`, 'utf8').digest('hex');
}

/**
 * The exact text that is hashed: the version line, then a JSON array of named fields in fixed order. Exposed for
 * tests and diagnostics; it contains password digests, so it is not for logs.
 */
export function settingsFingerprintPreimage(settings: FingerprintInput, context: FingerprintContext): string {
  const tools = sortedUnique(settings.tools.map((tool) => JSON.stringify([tool.url, ruleSet(tool.resourceRules)])));
  const fields: [string, unknown][] = [
    ['courseId', settings.courseId],
    ['contentId', settings.contentId],
    ['lmsOrigin', canonicalOrigin(context.lmsOrigin, 'lmsOrigin')],
    ['serviceOrigin', canonicalOrigin(context.serviceOrigin, 'serviceOrigin')],
    ['quitUrl', context.quitUrl],
    ['additionalAllowedHosts', sortedUnique((context.additionalAllowedHosts ?? []).map((host) => host.toLowerCase()))],
    ['urlRules', ruleSet(settings.urlRules)],
    ['tools', tools.map((tool) => JSON.parse(tool) as unknown)],
    ['startPassword', passwordDigest(settings.startPassword.value)],
    ['exitPassword', passwordDigest(settings.exitPassword.value)],
  ];
  return `${SETTINGS_FINGERPRINT_VERSION}\n${JSON.stringify(fields)}`;
}

/** Lowercase hex SHA-256 of {@link settingsFingerprintPreimage}. */
export function settingsFingerprint(settings: FingerprintInput, context: FingerprintContext): string {
  return createHash('sha256').update(settingsFingerprintPreimage(settings, context), 'utf8').digest('hex');
}

