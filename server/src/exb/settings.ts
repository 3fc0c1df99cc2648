import { z } from 'zod';
import {
  configuredExactAddress,
  exactUrlExpression,
  isFilterExpressible,
  normalizeHostname,
  normalizeToolUrl,
  normalizeUrlRules,
  type ExbUrlRule,
  type ExternalToolConfig,
  type PolicyPath,
} from '@exb/shared/exb-policy.js';
import { assertPortableConfigKeyInput } from './config-key.js';
import { hashExamBrowserPassword } from './hash.js';
import type { PlistDict, PlistValue } from './plist.js';
import { serializeSettings, stringHoleTemplate, type SerializedSettings, type StringHoleTemplate } from './string-hole-template.js';

/**
 * The settings dictionary of an LMS exam. Only keys an exam needs are emitted, all alphanumeric, no reals or dates, so
 * the Config Key is the same on every client; equal policies give equal dictionaries whatever order the lists came in.
 *
 * URL filter: allow rules only. With the filter on, the clients block every navigation no allow rule matches, so no
 * catch-all block rule is written (a matching block rule would override every allow rule). Expressions use the
 * clients' "simplified" syntax: `scheme://host` also matches subdomains, `scheme://.host` only that host, a path
 * matches with or without a trailing slash, and a missing query matches any query.
 *
 * URL rules and tools arrive in the stored policy shapes of `@exb/shared/exb-policy.js` and are checked with the same
 * validators the instructor and administrator routes use, read as stored (`check: 'stored'`): a policy that was saved
 * is the policy that is written, also when a rule added to the save-time checks since would refuse it today. The one
 * extra check here is whether an exact URL can be spelled as a filter expression at all.
 */

function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

function isHttp(url: URL): boolean {
  return url.protocol === 'https:' || url.protocol === 'http:';
}

// Rules are written as text the clients split at ':' and '/', which an IPv6 literal would confuse.
function hasUsableHost(url: URL): boolean {
  return url.hostname !== '' && !url.hostname.startsWith('[') && !url.hostname.includes('*');
}

/** An http(s) origin such as `https://canvas.example.edu`; http stays allowed for local development. */
const originSchema = z.string().transform((value, ctx) => {
  const url = parseUrl(value);
  if (
    url === null ||
    !isHttp(url) ||
    !hasUsableHost(url) ||
    url.username !== '' ||
    url.password !== '' ||
    url.pathname !== '/' ||
    url.search !== '' ||
    url.href.includes('#')
  ) {
    ctx.addIssue({ code: 'custom', message: 'expected an http(s) origin without path, query or fragment' });
    return z.NEVER;
  }
  return url.origin;
});

/** Absolute http(s) URL in its canonical serialization, which is what the browser compares and hashes. */
const pageUrlSchema = z.string().transform((value, ctx) => {
  const url = parseUrl(value);
  if (url === null || !isHttp(url) || !hasUsableHost(url) || url.username !== '' || url.password !== '' || url.href.includes('#')) {
    ctx.addIssue({ code: 'custom', message: 'expected an absolute http(s) URL without credentials or fragment' });
    return z.NEVER;
  }
  return url.href;
});

/** What the builder needs of a tool: its launch URL and the resource rules it brings. */
export type ExamTool = Pick<ExternalToolConfig, 'url'> & { readonly resourceRules?: readonly ExbUrlRule[] };

const toolSchema = z.object({
  url: z.string(),
  resourceRules: z.array(z.unknown()).default([]),
});

const baseSchema = z.object({
  /** First page: the student's fresh LMS session URL, the assessment page, or the setup-check page. */
  startUrl: pageUrlSchema,
  lmsOrigin: originSchema,
  /** This service: exit pages, the tool player and the setup check are navigations to it. */
  serviceOrigin: originSchema,
  /** SSO and other hosts the LMS sign-in needs; subdomains included. */
  allowedHosts: z.array(z.unknown()).default([]),
  /** Approved tools: their launch URLs and resource rules. */
  tools: z.array(toolSchema).default([]),
  /** Course or assessment URL policy. */
  urlRules: z.array(z.unknown()).default([]),
  /** 32 random bytes; part of the Config Key like every other value. */
  examKeySalt: z.instanceof(Uint8Array).refine((salt) => salt.length === 32, 'examKeySalt must be 32 bytes'),
  /** The effective exit password; null lets the student quit without one. */
  exitPassword: z.string().min(1).nullable(),
  quitUrl: pageUrlSchema.nullable().default(null),
  allowQuit: z.boolean().default(true),
  confirmQuitUrl: z.boolean().default(false),
  allowReload: z.boolean().default(true),
  clearCookiesOnStart: z.boolean().default(true),
});

type ExpressionCheck = { ok: true; value: string } | { ok: false; message: string; path: PolicyPath };

/**
 * An exact URL as a filter expression, or why it cannot be one: the faithful form (`exactUrlExpression`: explicit
 * port, path and query spelled as the filter compares them) wherever one means that page, for a rule saved before a
 * save-time refusal through the address its one-click rewrite would store (`configuredExactAddress`, e.g. `?q=a+b` as
 * `?q=a%20b`). A stored rule without one is written as it always was (`scheme://.host/path?query`), which the filter
 * reads as that rule always meant; the teacher's and the administrator's views mark it.
 */
function exactUrlExpressionCheck(href: string, path: PolicyPath): ExpressionCheck {
  if (!isFilterExpressible(href)) {
    return { ok: false, message: 'URL cannot be written as an exact filter rule ("@" or the query ".")', path };
  }
  // A rule the editor accepts is written directly; only a stored one refused since looks for its faithful form.
  const direct = exactUrlExpression(href);
  const faithful = direct.ok ? direct : exactUrlExpression(configuredExactAddress(href));
  if (faithful.ok) return { ok: true, value: faithful.expression };
  const url = new URL(href);
  return { ok: true, value: `${url.protocol}//.${url.host}${url.pathname}${url.search}` };
}

function domainExpression(host: string): string {
  return `https://${host}`;
}

function originExpression(origin: string): string {
  const url = new URL(origin);
  return `${url.protocol}//.${url.host}`;
}

function ruleExpressions(rules: readonly ExbUrlRule[], path: PolicyPath): ExpressionCheck[] {
  return rules.map((rule, index) =>
    rule.match === 'exact' ? exactUrlExpressionCheck(rule.value, [...path, index, 'value']) : { ok: true, value: domainExpression(rule.value) },
  );
}

export const examSettingsInputSchema = baseSchema.transform((input, ctx) => {
  // Only the Windows client adds an allow rule for the start page by itself.
  const startOrigin = new URL(input.startUrl).origin;
  if (startOrigin !== input.lmsOrigin && startOrigin !== input.serviceOrigin) {
    ctx.addIssue({ code: 'custom', path: ['startUrl'], message: 'startUrl must be on the LMS or the service origin' });
    return z.NEVER;
  }
  const problems: { message: string; path: PolicyPath }[] = [];
  const collect = (checks: ExpressionCheck[]): string[] =>
    checks.flatMap((check) => {
      if (check.ok) return [check.value];
      problems.push(check);
      return [];
    });

  const hosts = collect(
    input.allowedHosts.map((host, index): ExpressionCheck => {
      const checked = normalizeHostname(host);
      return checked.ok ? { ok: true, value: domainExpression(checked.value) } : { ok: false, message: checked.message, path: ['allowedHosts', index] };
    }),
  );

  const toolExpressions = collect(
    input.tools.flatMap((tool, index): ExpressionCheck[] => {
      const path: PolicyPath = ['tools', index];
      const url = normalizeToolUrl(tool.url, input.serviceOrigin, [...path, 'url'], 'stored');
      const rules = normalizeUrlRules(tool.resourceRules, [...path, 'resourceRules'], 'stored');
      const checks: ExpressionCheck[] = [];
      checks.push(url.ok ? exactUrlExpressionCheck(url.value, [...path, 'url']) : { ok: false, ...url.error });
      if (rules.ok) checks.push(...ruleExpressions(rules.value, [...path, 'resourceRules']));
      else checks.push({ ok: false, ...rules.error });
      return checks;
    }),
  );

  const policy = normalizeUrlRules(input.urlRules, ['urlRules'], 'stored');
  const policyExpressions = collect(policy.ok ? ruleExpressions(policy.value, ['urlRules']) : [{ ok: false, ...policy.error }]);

  for (const problem of problems) ctx.addIssue({ code: 'custom', message: problem.message, path: problem.path });
  if (problems.length > 0) return z.NEVER;

  const groups = [[originExpression(input.lmsOrigin)], [originExpression(input.serviceOrigin)], hosts, toolExpressions, policyExpressions];
  const unique = new Set<string>();
  for (const group of groups) for (const expression of [...group].sort()) unique.add(expression);
  return {
    startUrl: input.startUrl,
    examKeySalt: input.examKeySalt,
    exitPassword: input.exitPassword,
    quitUrl: input.quitUrl,
    allowQuit: input.allowQuit,
    confirmQuitUrl: input.confirmQuitUrl,
    allowReload: input.allowReload,
    clearCookiesOnStart: input.clearCookiesOnStart,
    allowRuleExpressions: [...unique],
  };
});

export type ExamSettingsInput = Omit<z.input<typeof baseSchema>, 'tools' | 'urlRules' | 'allowedHosts'> & {
  readonly tools?: readonly ExamTool[];
  readonly urlRules?: readonly ExbUrlRule[];
  readonly allowedHosts?: readonly string[];
};
type ExamSettings = z.output<typeof examSettingsInputSchema>;

/** `browserWindowWebView` "prefer modern": the macOS/iOS engine that delivers the Config Key to page scripts. */
const WEB_VIEW_PREFER_MODERN = 3;
const CONFIG_PURPOSE_START_EXAM = 0;
const RULE_ALLOW = 1;

export function buildExamSettings(input: ExamSettingsInput): PlistDict {
  return toDictionary(examSettingsInputSchema.parse(input));
}

/** Settings validated once for many files that differ only in where they start. */
export interface PreparedExamSettings {
  /** A fresh dictionary starting at `startUrl`. */
  build(startUrl: string): PlistDict;
  /** The XML and Config Key of {@link build}'s dictionary, from a template cut once (`string-hole-template.ts`). */
  serialize(startUrl: string): SerializedSettings;
}

// Where the template's start URL goes, and a URL that proves the template against a full build (it has characters
// the XML escapes). Both are on the LMS origin, as every start URL must be.
const START_URL_HOLE = '/exb-start-url-hole-5c2e9a17d4';
const START_URL_PROBE = '/login/session_token?session_token=probe&return_to=%2Fcourses%2F1%2Fquizzes%2F2%2Ftake';

/**
 * Validates everything but the start URL once, for configurations that differ only in where they start (each student's
 * own LMS session URL): `build` and `serialize` check the start URL, no policy validation repeated.
 */
export function prepareExamSettings(input: ExamSettingsInput): PreparedExamSettings {
  const settings = examSettingsInputSchema.parse(input);
  const lmsOrigin = new URL(input.lmsOrigin).origin;
  const allowedStartOrigins = new Set([lmsOrigin, new URL(input.serviceOrigin).origin]);
  const checkedStartUrl = (startUrl: string): string => {
    const parsed = pageUrlSchema.safeParse(startUrl);
    if (!parsed.success || !allowedStartOrigins.has(new URL(parsed.data).origin)) {
      throw new Error('startUrl must be an absolute URL on the LMS or the service origin');
    }
    return parsed.data;
  };
  const build = (startUrl: string): PlistDict => toDictionary({ ...settings, startUrl: checkedStartUrl(startUrl) });
  let template: StringHoleTemplate | null | undefined;
  return {
    build,
    serialize(startUrl) {
      const checked = checkedStartUrl(startUrl);
      // Cut on first use: the deterministic configuration never needs it.
      template ??= stringHoleTemplate(build, `${lmsOrigin}${START_URL_HOLE}`, `${lmsOrigin}${START_URL_PROBE}`);
      return template === null ? serializeSettings(build(checked)) : template.fill(checked);
    },
  };
}

function toDictionary(settings: ExamSettings): PlistDict {
  // Inserted in Config Key order so the written XML reads like the hashed JSON.
  const dict: PlistDict = new Map();
  dict.set('allowPreferencesWindow', false);
  dict.set('allowQuit', settings.allowQuit);
  dict.set('browserWindowAllowReload', settings.allowReload);
  dict.set('browserWindowWebView', WEB_VIEW_PREFER_MODERN);
  dict.set('examKeySalt', new Uint8Array(settings.examKeySalt));
  dict.set('examSessionClearCookiesOnStart', settings.clearCookiesOnStart);
  if (settings.exitPassword !== null) dict.set('hashedQuitPassword', hashExamBrowserPassword(settings.exitPassword));
  if (settings.quitUrl !== null) {
    dict.set('quitURL', settings.quitUrl);
    dict.set('quitURLConfirm', settings.confirmQuitUrl);
  }
  dict.set('sebConfigPurpose', CONFIG_PURPOSE_START_EXAM);
  dict.set('sendBrowserExamKey', true);
  dict.set('startURL', settings.startUrl);
  dict.set('URLFilterEnable', true);
  // Content filtering would force the classic engine on macOS, which cannot give pages the Config Key.
  dict.set('URLFilterEnableContentFilter', false);
  dict.set('URLFilterRules', settings.allowRuleExpressions.map(allowRule));
  assertPortableConfigKeyInput(dict);
  return dict;
}

function allowRule(expression: string): PlistDict {
  return new Map<string, PlistValue>([
    ['action', RULE_ALLOW],
    ['active', true],
    ['expression', expression],
    ['regex', false],
  ]);
}
