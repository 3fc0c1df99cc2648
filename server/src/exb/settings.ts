import { z } from 'zod';
import { assertPortableConfigKeyInput } from './config-key.js';
import { hashExamBrowserPassword } from './hash.js';
import type { PlistDict, PlistValue } from './plist.js';

/**
 * The settings dictionary of an LMS exam. Only keys an exam needs are emitted, all alphanumeric, no reals or dates, so
 * the Config Key is the same on every client; equal policies give equal dictionaries whatever order the lists came in.
 *
 * URL filter: allow rules only. With the filter on, the clients block every navigation no allow rule matches, so no
 * catch-all block rule is written (a matching block rule would override every allow rule). Expressions use the
 * clients' "simplified" syntax: `scheme://host` also matches subdomains, `scheme://.host` only that host, a path
 * matches with or without a trailing slash, and a missing query matches any query.
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

/**
 * An exact HTTPS URL. The fragment plays no role in filtering and is dropped. Refused because the filter syntax would
 * misread them: `*` (a wildcard), `@` (the clients take what precedes it for user info) and the query `.` ("no query").
 */
const exactHttpsUrlSchema = z.string().transform((value, ctx) => {
  const url = parseUrl(value);
  if (url === null || url.protocol !== 'https:' || !hasUsableHost(url) || url.username !== '' || url.password !== '') {
    ctx.addIssue({ code: 'custom', message: 'expected an exact https URL without credentials' });
    return z.NEVER;
  }
  url.hash = '';
  if (/[*@]/.test(url.href) || url.search === '?.') {
    ctx.addIssue({ code: 'custom', message: 'URL cannot be written as an exact filter rule (wildcard or "@")' });
    return z.NEVER;
  }
  return url.href;
});

/** A concrete host name (IDN allowed, written as punycode), no wildcard, port, path or scheme. */
const hostnameSchema = z.string().transform((value, ctx) => {
  const url = /^[^/?#@:*\s]+$/.test(value) ? parseUrl(`https://${value}`) : null;
  if (url === null || !hasUsableHost(url) || url.port !== '' || url.pathname !== '/' || url.hostname.endsWith('.')) {
    ctx.addIssue({ code: 'custom', message: 'expected a concrete host name' });
    return z.NEVER;
  }
  return url.hostname;
});

const urlRuleSchema = z.discriminatedUnion('match', [
  z.object({ match: z.literal('url'), url: exactHttpsUrlSchema }),
  z.object({ match: z.literal('domain'), host: hostnameSchema }),
]);

export const examSettingsInputSchema = z
  .object({
    /** First page: the student's fresh LMS session URL, or the setup-check page. */
    startUrl: pageUrlSchema,
    lmsOrigin: originSchema,
    /** This service: exit pages, the tool player and the setup check are navigations to it. */
    serviceOrigin: originSchema,
    /** SSO and other hosts the LMS sign-in needs; subdomains included. */
    allowedHosts: z.array(hostnameSchema).default([]),
    /** Launch URLs of the approved tools. */
    toolUrls: z.array(exactHttpsUrlSchema).default([]),
    /** Course or assessment URL policy: exact HTTPS URLs, or domains with their subdomains. */
    urlRules: z.array(urlRuleSchema).default([]),
    /** 32 random bytes; part of the Config Key like every other value. */
    examKeySalt: z.instanceof(Uint8Array).refine((salt) => salt.length === 32, 'examKeySalt must be 32 bytes'),
    /** The effective exit password; null lets the student quit without one. */
    exitPassword: z.string().min(1).nullable(),
    quitUrl: pageUrlSchema.nullable().default(null),
    allowQuit: z.boolean().default(true),
    confirmQuitUrl: z.boolean().default(false),
    allowReload: z.boolean().default(true),
    clearCookiesOnStart: z.boolean().default(true),
  })
  .superRefine((input, ctx) => {
    // Only the Windows client adds an allow rule for the start page by itself.
    const startOrigin = new URL(input.startUrl).origin;
    if (startOrigin !== input.lmsOrigin && startOrigin !== input.serviceOrigin) {
      ctx.addIssue({ code: 'custom', path: ['startUrl'], message: 'startUrl must be on the LMS or the service origin' });
    }
  });

export type ExamSettingsInput = z.input<typeof examSettingsInputSchema>;
type ExamSettings = z.output<typeof examSettingsInputSchema>;

/** `browserWindowWebView` "prefer modern": the macOS/iOS engine that delivers the Config Key to page scripts. */
const WEB_VIEW_PREFER_MODERN = 3;
const CONFIG_PURPOSE_START_EXAM = 0;
const RULE_ALLOW = 1;

export function buildExamSettings(input: ExamSettingsInput): PlistDict {
  const settings = examSettingsInputSchema.parse(input);
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
  dict.set('URLFilterRules', allowRuleExpressions(settings).map(allowRule));
  assertPortableConfigKeyInput(dict);
  return dict;
}

function allowRuleExpressions(settings: ExamSettings): string[] {
  const groups = [
    [originExpression(settings.lmsOrigin)],
    [originExpression(settings.serviceOrigin)],
    settings.allowedHosts.map(domainExpression),
    settings.toolUrls.map(exactUrlExpression),
    settings.urlRules.map((rule) => (rule.match === 'url' ? exactUrlExpression(rule.url) : domainExpression(rule.host))),
  ];
  const unique = new Set<string>();
  for (const group of groups) for (const expression of [...group].sort()) unique.add(expression);
  return [...unique];
}

function originExpression(origin: string): string {
  const url = new URL(origin);
  return `${url.protocol}//.${url.host}`;
}

function domainExpression(host: string): string {
  return `https://${host}`;
}

function exactUrlExpression(href: string): string {
  const url = new URL(href);
  return `${url.protocol}//.${url.host}${url.pathname}${url.search}`;
}

function allowRule(expression: string): PlistDict {
  return new Map<string, PlistValue>([
    ['action', RULE_ALLOW],
    ['active', true],
    ['expression', expression],
    ['regex', false],
  ]);
}
