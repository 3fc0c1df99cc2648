/**
 * URL and tool policy of exam-browser configurations: the stored shapes (`ExbUrlRule`, `ExternalToolConfig`) and the
 * one set of rules that instructor routes, administrator presets and the server apply to them.
 *
 * Every policy ends up as allow rules in the exam browser's URL filter, where a rule that is broader than intended
 * opens the exam to the web. So values are accepted only in a form that has exactly one meaning there: exact HTTPS URLs
 * and concrete host names, never patterns. Validators return the normalized value or an error carrying the contract's
 * `error_code`, so two spellings of one policy are stored (and fingerprinted) identically.
 *
 * Depends on zod only, so the client can validate with the same rules before it submits.
 */
import { z } from 'zod';
import { normalizeServiceBaseUrl } from './detector-config-rules.js';

export const EXB_POLICY_ERROR_CODES = [
  'INVALID_EXB_URL_POLICY',
  'INVALID_EXB_DOMAIN_POLICY',
  'INVALID_EXB_TOOL_POLICY',
  'INVALID_EXB_TOOL_SELECTION',
  'QUIZ_TOOL_DEFINITIONS_NOT_ALLOWED',
] as const;

export type ExbPolicyErrorCode = (typeof EXB_POLICY_ERROR_CODES)[number];

export type PolicyPath = (string | number)[];

export interface ExbPolicyError {
  readonly errorCode: ExbPolicyErrorCode;
  /** Human-readable and free of the submitted value, so it can be returned as is. */
  readonly message: string;
  /** Where in the submitted body the problem is, e.g. `['externalTools', 2, 'resourceRules', 0, 'value']`. */
  readonly path: PolicyPath;
}

export type PolicyResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ExbPolicyError };

/** Bounds on every list and string, so hostile input costs little to reject and stored policies stay small. */
export const EXB_POLICY_LIMITS = {
  /** Characters of a URL, before and after normalization. */
  urlLength: 2048,
  /** Characters of a host name (DNS limit). */
  hostnameLength: 253,
  hostnameLabelLength: 63,
  /** Characters of a rule or tool id. */
  idLength: 64,
  ruleLabelLength: 120,
  toolLabelLength: 80,
  /** URL rules of one course default or one assessment. */
  urlRules: 100,
  /** Resource rules of one tool. */
  resourceRules: 25,
  /** Tools in a course catalog, school-managed ones included. */
  catalogTools: 50,
  /** Tools defined for a single assessment. */
  quizOnlyTools: 10,
  /** Characters of a start or exit password. */
  passwordLength: 128,
} as const;

const ID_PATTERN = /^[A-Za-z0-9_-]+$/;
const VIDEO_ID_PATTERN = /^[A-Za-z0-9_-]{11}$/;

/** The service route that plays one video inside the exam; `{base_url}/exb/tool/video/<id>`. */
export const VIDEO_TOOL_PATH_PREFIX = '/exb/tool/video/';

// ---------------------------------------------------------------------------------------------------------------------
// Shapes

const idSchema = z.string().min(1).max(EXB_POLICY_LIMITS.idLength).regex(ID_PATTERN, 'Expected letters, digits, _ or -');

/**
 * One allow entry of a URL policy, stored as normalized by {@link normalizeUrlRules}.
 *
 * - `id`: optional client-chosen identifier (1 to 64 of `A-Z a-z 0-9 _ -`), kept so a client can track rows; no meaning
 *   to the exam browser.
 * - `match`: `exact` allows exactly the URL in `value` (path and query as given; the exam browser also accepts a
 *   trailing slash, and a URL without query any query); `domain` allows the host in `value` and every subdomain of it.
 * - `value`: for `exact`, an absolute HTTPS URL (at most 2048 characters), stored in canonical form: lower-case
 *   punycode host, default port dropped, fragment dropped. For `domain`, a concrete host name such as `example.edu`,
 *   stored as lower-case punycode (`bücher.de` becomes `xn--bcher-kva.de`).
 * - `broadDomainConfirmed`: must be `true` on a `domain` rule: the person saving it confirmed that every subdomain is
 *   meant. Absent on `exact` rules once normalized.
 * - `label`: optional display text (at most 120 characters); never part of the configuration.
 */
export const exbUrlRuleSchema = z.object({
  id: idSchema.optional(),
  match: z.enum(['exact', 'domain']),
  value: z.string().min(1).max(EXB_POLICY_LIMITS.urlLength),
  broadDomainConfirmed: z.boolean().optional(),
  label: z.string().max(EXB_POLICY_LIMITS.ruleLabelLength).optional(),
});

export type ExbUrlRule = z.output<typeof exbUrlRuleSchema>;
export type ExbUrlRuleInput = z.input<typeof exbUrlRuleSchema>;

const toolFields = {
  label: z.string().min(1).max(EXB_POLICY_LIMITS.toolLabelLength),
  url: z.string().min(1).max(EXB_POLICY_LIMITS.urlLength),
  resourceRules: z.array(exbUrlRuleSchema).max(EXB_POLICY_LIMITS.resourceRules).default([]),
  managedByAdmin: z.boolean().default(false),
  presetId: z.uuid().optional(),
  enabled: z.boolean().default(true),
};

/**
 * An approved tool students may open during the exam, stored as normalized by {@link normalizeExternalTool}.
 *
 * - `id`: stable identifier (1 to 64 of `A-Z a-z 0-9 _ -`, a UUID fits), unique within a course catalog; assessments
 *   select course tools by it (`externalToolIds`) and students see it in the approved tool list.
 * - `label`: the name shown to students, 1 to 80 characters after trimming, no control or bidirectional-override
 *   characters.
 * - `url`: the exact HTTPS launch URL, canonical as for `exact` rules. Video links (watch, share, Shorts, embed) are
 *   stored as the service's own player route `{base_url}/exb/tool/video/<id>`.
 * - `resourceRules`: further URLs or domains the tool needs (at most 25), with the same rules as a URL policy.
 * - `managedByAdmin`: `true` for a school-managed tool rolled out from an administrator preset; instructors may switch
 *   it on or off but not change it. Defaults to `false`.
 * - `presetId`: UUID of the administrator preset a school-managed tool came from.
 * - `enabled`: `false` keeps the definition but leaves the tool out of configurations. Defaults to `true`.
 */
export const externalToolConfigSchema = z.object({ id: idSchema, ...toolFields });

/** A tool as submitted: the id may be missing on a new tool, and the server assigns one. */
export const externalToolInputSchema = z.object({ id: idSchema.optional(), ...toolFields });

export type ExternalToolConfig = z.output<typeof externalToolConfigSchema>;
export type ExternalToolConfigInput = z.input<typeof externalToolInputSchema>;

/**
 * A start or exit password as saved by an instructor or administrator: printable ASCII only, because the exam browser
 * clients hash typed non-ASCII input differently (the macOS client normalizes it first).
 */
export const exbPasswordSchema = z
  .string()
  .min(1)
  .max(EXB_POLICY_LIMITS.passwordLength)
  .regex(/^[\x20-\x7e]+$/, 'Use printable ASCII characters only');

// ---------------------------------------------------------------------------------------------------------------------
// Results

/** Outcome of a single value check, before a caller attaches the error code and path of its context. */
export type ValueCheck<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

function fail(errorCode: ExbPolicyErrorCode, message: string, path: PolicyPath): { ok: false; error: ExbPolicyError } {
  return { ok: false, error: { errorCode, message, path } };
}

function firstZodIssue(error: z.ZodError, errorCode: ExbPolicyErrorCode, path: PolicyPath) {
  const issue = error.issues[0];
  return fail(errorCode, issue?.message ?? 'Invalid value', [...path, ...((issue?.path ?? []) as PolicyPath)]);
}

// ---------------------------------------------------------------------------------------------------------------------
// Host names

/**
 * Multi-label public suffixes (and hosting platforms that hand out subdomains to anyone) that a `domain` rule must not
 * cover alone: `domain: co.uk` would allow every British company. Single-label suffixes such as `com` already fail the
 * two-label rule. This is a conservative excerpt of the Public Suffix List, not all of it.
 */
const MULTI_LABEL_PUBLIC_SUFFIXES: ReadonlySet<string> = new Set([
  // Second-level registries
  ...['ac', 'co', 'gov', 'ltd', 'me', 'net', 'nhs', 'org', 'plc', 'police', 'sch'].map((l) => `${l}.uk`),
  ...['asn', 'com', 'edu', 'gov', 'id', 'net', 'org'].map((l) => `${l}.au`),
  ...['ac', 'co', 'govt', 'net', 'org', 'school'].map((l) => `${l}.nz`),
  ...['ac', 'co', 'ed', 'go', 'lg', 'ne', 'or'].map((l) => `${l}.jp`),
  ...['ac', 'co', 'go', 'ne', 'or'].map((l) => `${l}.kr`),
  ...['com', 'edu', 'gov', 'net', 'org'].map((l) => `${l}.br`),
  ...['ac', 'com', 'edu', 'gov', 'net', 'org'].map((l) => `${l}.cn`),
  ...['com', 'edu', 'gob', 'net', 'org'].map((l) => `${l}.mx`),
  ...['ac', 'co', 'edu', 'gov', 'net', 'org', 'res'].map((l) => `${l}.in`),
  ...['ac', 'co', 'edu', 'gov', 'org'].map((l) => `${l}.za`),
  ...['com', 'edu', 'gov', 'net', 'org'].map((l) => `${l}.sg`),
  ...['com', 'edu', 'gov', 'net', 'org'].map((l) => `${l}.hk`),
  ...['com', 'edu', 'gov', 'net', 'org'].map((l) => `${l}.tw`),
  ...['com', 'edu', 'gov', 'net', 'org'].map((l) => `${l}.tr`),
  ...['ac', 'co', 'gov', 'org'].map((l) => `${l}.il`),
  ...['ac', 'co', 'gv', 'or'].map((l) => `${l}.at`),
  ...['com', 'edu', 'gob', 'org'].map((l) => `${l}.ar`),
  ...['com', 'edu', 'gov', 'org'].map((l) => `${l}.co`),
  ...['com', 'edu', 'gov', 'net', 'org'].map((l) => `${l}.pl`),
  ...['com', 'edu', 'gov', 'net', 'org'].map((l) => `${l}.my`),
  ...['com', 'edu', 'gov', 'net', 'org'].map((l) => `${l}.ph`),
  ...['ac', 'co', 'or'].map((l) => `${l}.id`),
  ...['ac', 'co', 'go', 'or'].map((l) => `${l}.th`),
  ...['com', 'edu', 'gov', 'net', 'org'].map((l) => `${l}.vn`),
  ...['com', 'edu', 'gov', 'net', 'org'].map((l) => `${l}.eg`),
  ...['com', 'edu', 'gov', 'net', 'org'].map((l) => `${l}.sa`),
  ...['ac', 'co', 'gov', 'org'].map((l) => `${l}.ke`),
  ...['com', 'edu', 'gov', 'net', 'org'].map((l) => `${l}.ng`),
  ...['com', 'edu', 'gov', 'net', 'org'].map((l) => `${l}.pk`),
  ...['com', 'edu', 'gov', 'net', 'org'].map((l) => `${l}.ua`),
  ...['com', 'edu', 'net', 'org'].map((l) => `${l}.ru`),
  ...['ac', 'co', 'com', 'gov', 'net', 'org'].map((l) => `${l}.ir`),
  'edu.es', 'com.es', 'gob.es', 'org.es', 'nom.es',
  'com.pt', 'edu.pt', 'gov.pt', 'org.pt',
  'ac.be', 'qc.ca', 'on.ca', 'bc.ca', 'ab.ca',
  'k12.ca.us', 'k12.ny.us', 'k12.tx.us', 'state.ca.us',
  // Platforms where anyone can obtain a subdomain
  'github.io', 'githubusercontent.com', 'gitlab.io', 'pages.dev', 'workers.dev', 'web.app', 'firebaseapp.com',
  'appspot.com', 'blogspot.com', 'herokuapp.com', 'netlify.app', 'vercel.app', 'onrender.com', 'fly.dev',
  'glitch.me', 'repl.co', 'replit.app', 'ngrok.io', 'ngrok-free.app', 'ngrok.app', 'trycloudflare.com',
  'azurewebsites.net', 'azurestaticapps.net', 'azureedge.net', 'cloudfront.net', 's3.amazonaws.com',
  'elasticbeanstalk.com', 'amplifyapp.com', 'wixsite.com', 'weebly.com', 'wordpress.com', 'squarespace.com',
  'carrd.co', 'notion.site', 'duckdns.org', 'no-ip.org', 'ddns.net', 'dyndns.org',
]);

/**
 * Top-level names that never denote one public site: loopback, link-local multicast DNS, private networks, onion
 * services, reverse DNS and test names. A rule allowing them could reach a server on the student's own machine or
 * network.
 */
const SPECIAL_USE_TLDS: ReadonlySet<string> = new Set(['localhost', 'local', 'internal', 'arpa', 'invalid', 'onion', 'alt', 'test']);

const LABEL_PATTERN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const TLD_PATTERN = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;
const IPV4_PATTERN = /^\d+\.\d+\.\d+\.\d+$/;
// Whitespace, controls, and the bidirectional and zero-width formatting characters that make text read differently.
const INVISIBLE_OR_CONTROL = /[\s\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/u;

function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/** Checks an already IDNA-processed host (lower-case ASCII) for the shape of one concrete DNS name. */
function checkAsciiHostname(host: string): ValueCheck<string> {
  if (host.startsWith('[') || IPV4_PATTERN.test(host)) {
    return { ok: false, message: 'IP addresses are not allowed; use a host name' };
  }
  if (host.endsWith('.')) return { ok: false, message: 'Remove the trailing dot from the host name' };
  if (host.length > EXB_POLICY_LIMITS.hostnameLength) return { ok: false, message: 'Host name is too long' };
  const labels = host.split('.');
  if (labels.length < 2) return { ok: false, message: 'Use a full host name such as example.edu' };
  for (const label of labels) {
    if (label.length === 0 || label.length > EXB_POLICY_LIMITS.hostnameLabelLength || !LABEL_PATTERN.test(label)) {
      return { ok: false, message: 'Host name has an invalid label' };
    }
  }
  const tld = labels[labels.length - 1] as string;
  if (!TLD_PATTERN.test(tld)) return { ok: false, message: 'Host name has an invalid top-level domain' };
  if (SPECIAL_USE_TLDS.has(tld)) return { ok: false, message: 'Local, private and reserved host names are not allowed' };
  return { ok: true, value: host };
}

/** True when `host` (lower-case ASCII) is a public suffix, so a `domain` rule on it would cover unrelated sites. */
export function isPublicSuffix(host: string): boolean {
  return !host.includes('.') || MULTI_LABEL_PUBLIC_SUFFIXES.has(host);
}

/**
 * The canonical form of a concrete host name (`Example.EDU` → `example.edu`, `bücher.de` → `xn--bcher-kva.de`), or why
 * it is not one: wildcards, leading dots, schemes, ports, paths, IP addresses, single labels, invalid labels and
 * reserved names are refused.
 */
export function normalizeHostname(value: unknown): ValueCheck<string> {
  if (typeof value !== 'string') return { ok: false, message: 'Expected a host name' };
  const raw = value.trim();
  if (raw.length === 0 || raw.length > EXB_POLICY_LIMITS.hostnameLength) {
    return { ok: false, message: 'Expected a host name of at most 253 characters' };
  }
  if (raw.includes('*')) return { ok: false, message: 'Wildcards are not allowed; enter a concrete host name' };
  if (raw.startsWith('.')) return { ok: false, message: 'Enter the host name without a leading dot' };
  if (INVISIBLE_OR_CONTROL.test(raw) || /[/\\?#@:%[\]^|{}()$+,;=!'"`<>~&]/.test(raw)) {
    return { ok: false, message: 'Enter only a host name such as example.edu, without scheme, port or path' };
  }
  const url = parseUrl(`https://${raw}/`);
  if (url === null || url.pathname !== '/' || url.port !== '') return { ok: false, message: 'Not a valid host name' };
  return checkAsciiHostname(url.hostname);
}

// ---------------------------------------------------------------------------------------------------------------------
// URLs

/**
 * Characters that only make sense as pattern syntax in a URL rule: wildcard, regular-expression anchors, classes,
 * alternation, quantifier braces and escapes. A literal one in a real URL can be percent-encoded.
 */
const PATTERN_SYNTAX = /[*\\^|{}[\]]|\(\?|\$$/;

/**
 * The canonical form of an exact HTTPS URL, or why it is not one. Accepted: `https://` followed by a concrete host
 * name, an optional non-default port, path and query. Refused: other schemes (`http:`, `javascript:`, `data:` ...),
 * credentials, IP addresses, reserved host names, pattern syntax, whitespace and control characters, and the spellings
 * browsers repair silently (`https:host`, backslashes, percent-encoded hosts), so what was reviewed is what is allowed.
 * The fragment is dropped: browsers never send it, so it cannot narrow a rule.
 */
/**
 * Whether an exact URL can be written as an exam-browser URL filter rule. The filter syntax reads whatever precedes an
 * `@` as user info and the query `.` as "no query", so such URLs would allow something other than what was entered.
 */
export function isFilterExpressible(href: string): boolean {
  return !href.includes('@') && new URL(href).search !== '?.';
}

export function normalizeExactHttpsUrl(value: unknown): ValueCheck<string> {
  if (typeof value !== 'string') return { ok: false, message: 'Expected an https:// URL' };
  const raw = value.trim();
  if (raw.length === 0 || raw.length > EXB_POLICY_LIMITS.urlLength) {
    return { ok: false, message: 'Expected an https:// URL of at most 2048 characters' };
  }
  if (!/^https:\/\//i.test(raw)) return { ok: false, message: 'Only exact https:// URLs are allowed' };
  if (INVISIBLE_OR_CONTROL.test(raw)) return { ok: false, message: 'URL contains spaces or control characters' };
  if (PATTERN_SYNTAX.test(raw)) {
    return { ok: false, message: 'Wildcards and regular expressions are not allowed; enter an exact URL' };
  }
  const authority = raw.slice('https://'.length).split(/[/?#]/, 1)[0] as string;
  if (authority.includes('@')) return { ok: false, message: 'URLs with user names or passwords are not allowed' };
  if (authority.includes('%')) return { ok: false, message: 'Percent-encoded host names are not allowed' };
  if (authority.startsWith('.')) return { ok: false, message: 'Enter the host name without a leading dot' };
  const url = parseUrl(raw);
  if (url === null || url.protocol !== 'https:') return { ok: false, message: 'Not a valid https:// URL' };
  if (url.port === '0') return { ok: false, message: 'Not a valid port' };
  const host = checkAsciiHostname(url.hostname);
  if (!host.ok) return host;
  url.hash = '';
  const normalized = url.href;
  if (normalized.length > EXB_POLICY_LIMITS.urlLength) return { ok: false, message: 'URL is too long' };
  if (!isFilterExpressible(normalized)) {
    return { ok: false, message: 'The exam browser cannot allow exactly this URL ("@" in the address or the query ".")' };
  }
  return { ok: true, value: normalized };
}

// ---------------------------------------------------------------------------------------------------------------------
// Video links

const WATCH_HOSTS = new Set(['youtube.com', 'www.youtube.com', 'm.youtube.com']);
const EMBED_HOSTS = new Set([...WATCH_HOSTS, 'youtube-nocookie.com', 'www.youtube-nocookie.com']);

/**
 * The 11-character video id of a video link, or `null`. Recognized: `youtube.com/watch?v=ID`, `youtu.be/ID` (share),
 * `youtube.com/shorts/ID`, `youtube.com/embed/ID` and `youtube-nocookie.com/embed/ID`, on `www.` and `m.` hosts too,
 * over http or https, with any further query (timestamps, share tracking), which the player route drops.
 */
export function parseVideoId(url: unknown): string | null {
  if (typeof url !== 'string' || url.length > EXB_POLICY_LIMITS.urlLength) return null;
  const raw = url.trim();
  if (!/^https?:\/\//i.test(raw) || INVISIBLE_OR_CONTROL.test(raw) || raw.includes('\\')) return null;
  const parsed = parseUrl(raw);
  if (parsed === null || parsed.username !== '' || parsed.password !== '' || parsed.port !== '') return null;
  const host = parsed.hostname;
  const segments = parsed.pathname.replace(/\/$/, '').split('/').slice(1);
  let id: string | undefined;
  if (host === 'youtu.be' && segments.length === 1) {
    id = segments[0];
  } else if (WATCH_HOSTS.has(host) && segments.length === 1 && segments[0] === 'watch') {
    const values = parsed.searchParams.getAll('v');
    id = values.length === 1 ? values[0] : undefined;
  } else if (WATCH_HOSTS.has(host) && segments.length === 2 && segments[0] === 'shorts') {
    id = segments[1];
  } else if (EMBED_HOSTS.has(host) && segments.length === 2 && segments[0] === 'embed') {
    id = segments[1];
  }
  return id !== undefined && VIDEO_ID_PATTERN.test(id) ? id : null;
}

/** True for the id the video player route accepts. */
export function isVideoId(value: unknown): value is string {
  return typeof value === 'string' && VIDEO_ID_PATTERN.test(value);
}

function serviceBase(baseUrl: string): string {
  const base = normalizeServiceBaseUrl(baseUrl);
  if (base === null) throw new TypeError('baseUrl must be an absolute http(s) URL without query or fragment');
  return base;
}

/** `{base_url}/exb/tool/video/<id>`. */
export function videoToolUrl(baseUrl: string, videoId: string): string {
  if (!isVideoId(videoId)) throw new RangeError('not a video id');
  return `${serviceBase(baseUrl)}${VIDEO_TOOL_PATH_PREFIX}${videoId}`;
}

/**
 * The canonical launch URL of a tool: a video link becomes the service's player route with the canonical id, the
 * player route itself stays as is (also on a plain-HTTP development base URL), anything else must be an exact HTTPS
 * URL. Errors carry `INVALID_EXB_TOOL_POLICY`.
 */
export function normalizeToolUrl(url: unknown, baseUrl: string, path: PolicyPath = []): PolicyResult<string> {
  const base = serviceBase(baseUrl);
  const videoId = parseVideoId(url);
  if (videoId !== null) return { ok: true, value: `${base}${VIDEO_TOOL_PATH_PREFIX}${videoId}` };
  if (typeof url === 'string') {
    const routePrefix = `${base}${VIDEO_TOOL_PATH_PREFIX}`;
    const trimmed = url.trim();
    if (trimmed.startsWith(routePrefix) && isVideoId(trimmed.slice(routePrefix.length))) {
      return { ok: true, value: trimmed };
    }
  }
  const exact = normalizeExactHttpsUrl(url);
  if (!exact.ok) return fail('INVALID_EXB_TOOL_POLICY', `Tool launch URL: ${exact.message}`, path);
  return exact;
}

// ---------------------------------------------------------------------------------------------------------------------
// Labels

function normalizeLabel(value: string, maxLength: number): ValueCheck<string> {
  const label = value.normalize('NFC').trim();
  if (label.length > maxLength) return { ok: false, message: `Label is longer than ${maxLength} characters` };
  if (/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u.test(label)) {
    return { ok: false, message: 'Label contains control or text-direction characters' };
  }
  return { ok: true, value: label };
}

// ---------------------------------------------------------------------------------------------------------------------
// URL rules

/** Identity of a rule for the exam browser: what it allows, ignoring id and label. */
export function urlRuleKey(rule: Pick<ExbUrlRule, 'match' | 'value'>): string {
  return `${rule.match} ${rule.value}`;
}

interface RuleErrorCodes {
  readonly url: ExbPolicyErrorCode;
  readonly domain: ExbPolicyErrorCode;
}

const POLICY_RULE_CODES: RuleErrorCodes = { url: 'INVALID_EXB_URL_POLICY', domain: 'INVALID_EXB_DOMAIN_POLICY' };
const TOOL_RULE_CODES: RuleErrorCodes = { url: 'INVALID_EXB_TOOL_POLICY', domain: 'INVALID_EXB_TOOL_POLICY' };

function normalizeRule(input: unknown, codes: RuleErrorCodes, path: PolicyPath): PolicyResult<ExbUrlRule> {
  const parsed = exbUrlRuleSchema.safeParse(input);
  if (!parsed.success) return firstZodIssue(parsed.error, codes.url, path);
  const rule = parsed.data;
  let value: string;
  if (rule.match === 'exact') {
    const url = normalizeExactHttpsUrl(rule.value);
    if (!url.ok) return fail(codes.url, url.message, [...path, 'value']);
    value = url.value;
  } else {
    const host = normalizeHostname(rule.value);
    if (!host.ok) return fail(codes.domain, host.message, [...path, 'value']);
    if (isPublicSuffix(host.value)) {
      return fail(codes.domain, 'A domain rule must name one site, not a public suffix', [...path, 'value']);
    }
    if (rule.broadDomainConfirmed !== true) {
      return fail(
        codes.domain,
        'A domain rule allows every subdomain; confirm it with broadDomainConfirmed',
        [...path, 'broadDomainConfirmed'],
      );
    }
    value = host.value;
  }
  let label: string | undefined;
  if (rule.label !== undefined) {
    const checked = normalizeLabel(rule.label, EXB_POLICY_LIMITS.ruleLabelLength);
    if (!checked.ok) return fail(codes.url, checked.message, [...path, 'label']);
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

function normalizeRuleList(
  input: unknown,
  maxRules: number,
  codes: RuleErrorCodes,
  path: PolicyPath,
): PolicyResult<ExbUrlRule[]> {
  if (!Array.isArray(input)) return fail(codes.url, 'Expected a list of URL rules', path);
  if (input.length > maxRules) return fail(codes.url, `At most ${maxRules} URL rules are allowed`, path);
  const rules: ExbUrlRule[] = [];
  const seen = new Set<string>();
  for (const [index, item] of input.entries()) {
    const rule = normalizeRule(item, codes, [...path, index]);
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
 * A course's or an assessment's URL policy. Exact rules failing the URL rules give `INVALID_EXB_URL_POLICY`; domain
 * rules that are not concrete host names, are public suffixes or lack `broadDomainConfirmed: true` give
 * `INVALID_EXB_DOMAIN_POLICY`. Duplicates (same match and value) are dropped.
 */
export function normalizeUrlRules(input: unknown, path: PolicyPath = []): PolicyResult<ExbUrlRule[]> {
  return normalizeRuleList(input, EXB_POLICY_LIMITS.urlRules, POLICY_RULE_CODES, path);
}

// ---------------------------------------------------------------------------------------------------------------------
// Tools

export interface ToolNormalizationOptions {
  /** The service base URL; video links are rewritten to its player route. */
  readonly baseUrl: string;
  /** Id for a submitted tool without one; defaults to a random UUID. */
  readonly assignId?: () => string;
}

function defaultAssignId(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * One tool definition in canonical form; every error is `INVALID_EXB_TOOL_POLICY`. Keeps `managedByAdmin` and
 * `presetId` as given: callers acting for an instructor use {@link mergeInstructorToolCatalog} or
 * {@link normalizeQuizOnlyTools}, which decide who may set them.
 */
export function normalizeExternalTool(
  input: unknown,
  options: ToolNormalizationOptions,
  path: PolicyPath = [],
): PolicyResult<ExternalToolConfig> {
  const parsed = externalToolInputSchema.safeParse(input);
  if (!parsed.success) return firstZodIssue(parsed.error, 'INVALID_EXB_TOOL_POLICY', path);
  const tool = parsed.data;
  const label = normalizeLabel(tool.label, EXB_POLICY_LIMITS.toolLabelLength);
  if (!label.ok) return fail('INVALID_EXB_TOOL_POLICY', label.message, [...path, 'label']);
  if (label.value === '') return fail('INVALID_EXB_TOOL_POLICY', 'Tool label is empty', [...path, 'label']);
  const url = normalizeToolUrl(tool.url, options.baseUrl, [...path, 'url']);
  if (!url.ok) return url;
  const rules = normalizeRuleList(tool.resourceRules, EXB_POLICY_LIMITS.resourceRules, TOOL_RULE_CODES, [
    ...path,
    'resourceRules',
  ]);
  if (!rules.ok) return rules;
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

function toolList(input: unknown, max: number, path: PolicyPath): PolicyResult<unknown[]> {
  if (!Array.isArray(input)) return fail('INVALID_EXB_TOOL_POLICY', 'Expected a list of tools', path);
  if (input.length > max) return fail('INVALID_EXB_TOOL_POLICY', `At most ${max} tools are allowed`, path);
  return { ok: true, value: input };
}

function duplicateId(path: PolicyPath) {
  return fail('INVALID_EXB_TOOL_POLICY', 'Two tools have the same id', [...path, 'id']);
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

const managedEditSchema = z.object({
  id: idSchema,
  enabled: z.boolean().optional(),
  managedByAdmin: z.boolean().optional(),
  presetId: z.string().max(64).optional(),
  label: z.unknown().optional(),
  url: z.unknown().optional(),
  resourceRules: z.unknown().optional(),
});

const MANAGED_TOOL_LOCKED = 'This school-managed tool can only be switched on or off';

/**
 * Applies an instructor's replacement catalog (`PUT .../defaults` with `externalTools`) to the stored one.
 *
 * - School-managed tools (`managedByAdmin: true` in `existing`) keep their definition. The submission may switch one
 *   on or off by id; any other field it sends must equal the stored value after normalization, else
 *   `INVALID_EXB_TOOL_POLICY`. A school-managed tool left out of the submission is kept unchanged: only the
 *   administrator who rolled it out removes it.
 * - Every other submitted tool becomes an instructor tool: `managedByAdmin: false`, no `presetId`. Claiming
 *   `managedByAdmin: true` for an id that is not a stored school-managed tool is refused.
 * - Ids must be unique and the result holds at most 50 tools.
 */
export function mergeInstructorToolCatalog(
  existing: readonly ExternalToolConfig[],
  submitted: unknown,
  options: ToolNormalizationOptions,
  path: PolicyPath = [],
): PolicyResult<ExternalToolConfig[]> {
  const list = toolList(submitted, EXB_POLICY_LIMITS.catalogTools, path);
  if (!list.ok) return list;
  const managed = new Map(existing.filter((tool) => tool.managedByAdmin).map((tool) => [tool.id, tool]));
  const result: ExternalToolConfig[] = [];
  const ids = new Set<string>();
  for (const [index, item] of list.value.entries()) {
    const itemPath = [...path, index];
    const itemId = typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : undefined;
    const stored = typeof itemId === 'string' ? managed.get(itemId) : undefined;
    let tool: ExternalToolConfig;
    if (stored !== undefined) {
      const edit = applyManagedToolEdit(stored, item, options, itemPath);
      if (!edit.ok) return edit;
      tool = edit.value;
    } else {
      if (typeof item === 'object' && item !== null && (item as { managedByAdmin?: unknown }).managedByAdmin === true) {
        return fail('INVALID_EXB_TOOL_POLICY', 'Only administrators can add school-managed tools', [
          ...itemPath,
          'managedByAdmin',
        ]);
      }
      const normalized = normalizeExternalTool(item, options, itemPath);
      if (!normalized.ok) return normalized;
      const { presetId: _ignored, ...rest } = normalized.value;
      tool = { ...rest, managedByAdmin: false };
    }
    if (ids.has(tool.id)) return duplicateId(itemPath);
    ids.add(tool.id);
    result.push(tool);
  }
  for (const tool of existing) {
    if (tool.managedByAdmin && !ids.has(tool.id)) result.push(tool);
  }
  if (result.length > EXB_POLICY_LIMITS.catalogTools) {
    return fail('INVALID_EXB_TOOL_POLICY', `At most ${EXB_POLICY_LIMITS.catalogTools} tools are allowed`, path);
  }
  return { ok: true, value: result };
}

function applyManagedToolEdit(
  stored: ExternalToolConfig,
  input: unknown,
  options: ToolNormalizationOptions,
  path: PolicyPath,
): PolicyResult<ExternalToolConfig> {
  const parsed = managedEditSchema.safeParse(input);
  if (!parsed.success) return firstZodIssue(parsed.error, 'INVALID_EXB_TOOL_POLICY', path);
  const edit = parsed.data;
  if (edit.managedByAdmin === false) return fail('INVALID_EXB_TOOL_POLICY', MANAGED_TOOL_LOCKED, [...path, 'managedByAdmin']);
  if (edit.presetId !== undefined && edit.presetId.toLowerCase() !== stored.presetId) {
    return fail('INVALID_EXB_TOOL_POLICY', MANAGED_TOOL_LOCKED, [...path, 'presetId']);
  }
  if (edit.label !== undefined || edit.url !== undefined || edit.resourceRules !== undefined) {
    // Normalizing the submitted fields over the stored ones compares in canonical form, so echoing back what the
    // server returned always passes.
    const candidate = normalizeExternalTool(
      {
        id: stored.id,
        label: edit.label ?? stored.label,
        url: edit.url ?? stored.url,
        resourceRules: edit.resourceRules ?? stored.resourceRules,
      },
      options,
      path,
    );
    if (!candidate.ok) return fail('INVALID_EXB_TOOL_POLICY', MANAGED_TOOL_LOCKED, candidate.error.path);
    const sameRules =
      candidate.value.resourceRules.length === stored.resourceRules.length &&
      candidate.value.resourceRules.every((rule, index) => sameRule(rule, stored.resourceRules[index]));
    if (candidate.value.label !== stored.label) return fail('INVALID_EXB_TOOL_POLICY', MANAGED_TOOL_LOCKED, [...path, 'label']);
    if (candidate.value.url !== stored.url) return fail('INVALID_EXB_TOOL_POLICY', MANAGED_TOOL_LOCKED, [...path, 'url']);
    if (!sameRules) return fail('INVALID_EXB_TOOL_POLICY', MANAGED_TOOL_LOCKED, [...path, 'resourceRules']);
  }
  return { ok: true, value: { ...stored, enabled: edit.enabled ?? stored.enabled } };
}

function sameRule(a: ExbUrlRule, b: ExbUrlRule | undefined): boolean {
  return (
    b !== undefined &&
    a.match === b.match &&
    a.value === b.value &&
    a.id === b.id &&
    a.label === b.label &&
    a.broadDomainConfirmed === b.broadDomainConfirmed
  );
}

/**
 * Tools defined for one assessment (`quizOnlyExternalTools`): at most 10, never school-managed (`managedByAdmin: true`
 * is refused, `presetId` dropped), ids unique and distinct from the course catalog's ids so a selection and an
 * approved-tool list stay unambiguous. Errors are `INVALID_EXB_TOOL_POLICY`.
 */
export function normalizeQuizOnlyTools(
  input: unknown,
  options: ToolNormalizationOptions & { readonly courseToolIds?: Iterable<string> },
  path: PolicyPath = [],
): PolicyResult<ExternalToolConfig[]> {
  const list = toolList(input, EXB_POLICY_LIMITS.quizOnlyTools, path);
  if (!list.ok) return list;
  const courseIds = new Set(options.courseToolIds ?? []);
  const ids = new Set<string>();
  const tools: ExternalToolConfig[] = [];
  for (const [index, item] of list.value.entries()) {
    const itemPath = [...path, index];
    const normalized = normalizeExternalTool(item, options, itemPath);
    if (!normalized.ok) return normalized;
    if (normalized.value.managedByAdmin) {
      return fail('INVALID_EXB_TOOL_POLICY', 'Assessment tools cannot be school-managed', [...itemPath, 'managedByAdmin']);
    }
    const { presetId: _ignored, ...tool } = normalized.value;
    if (ids.has(tool.id)) return duplicateId(itemPath);
    if (courseIds.has(tool.id)) {
      return fail('INVALID_EXB_TOOL_POLICY', 'An assessment tool cannot reuse a course tool id', [...itemPath, 'id']);
    }
    ids.add(tool.id);
    tools.push(tool);
  }
  return { ok: true, value: tools };
}

/**
 * An assessment's course tool selection (`externalToolIds`): `null` inherits the whole course catalog; otherwise a
 * list of ids of tools in `catalog` (switched-off ones included; they stay out of configurations until switched on).
 * Duplicates are dropped. Anything else gives `INVALID_EXB_TOOL_SELECTION`.
 */
export function normalizeToolSelection(
  input: unknown,
  catalog: readonly Pick<ExternalToolConfig, 'id'>[],
  path: PolicyPath = [],
): PolicyResult<string[] | null> {
  if (input === null) return { ok: true, value: null };
  if (!Array.isArray(input)) {
    return fail('INVALID_EXB_TOOL_SELECTION', 'externalToolIds must be a list of course tool ids or null', path);
  }
  if (input.length > EXB_POLICY_LIMITS.catalogTools) {
    return fail('INVALID_EXB_TOOL_SELECTION', 'externalToolIds lists more tools than a course can have', path);
  }
  const known = new Set(catalog.map((tool) => tool.id));
  const selected: string[] = [];
  for (const [index, id] of input.entries()) {
    if (typeof id !== 'string' || !known.has(id)) {
      return fail('INVALID_EXB_TOOL_SELECTION', 'externalToolIds contains an id that is not a course tool', [...path, index]);
    }
    if (!selected.includes(id)) selected.push(id);
  }
  return { ok: true, value: selected };
}

/**
 * The structured per-assessment endpoint takes tool selections and assessment tools only; course tool definitions go
 * through the course defaults. Returns `QUIZ_TOOL_DEFINITIONS_NOT_ALLOWED` when the body carries `externalTools`.
 */
export function checkNoQuizToolDefinitions(body: unknown): ExbPolicyError | null {
  if (typeof body === 'object' && body !== null && Object.prototype.hasOwnProperty.call(body, 'externalTools')) {
    return {
      errorCode: 'QUIZ_TOOL_DEFINITIONS_NOT_ALLOWED',
      message: 'Define course tools in the course defaults; send externalToolIds or quizOnlyExternalTools here',
      path: ['externalTools'],
    };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------------
// zod adapters

/**
 * Turns a validator into a zod schema for route inputs. A failure becomes one custom issue whose `params.errorCode`
 * carries the contract code; {@link policyErrorFromZod} reads it back.
 */
export function policySchema<T>(validate: (input: unknown) => PolicyResult<T>) {
  return z.unknown().transform((input, ctx): T => {
    const result = validate(input);
    if (result.ok) return result.value;
    ctx.addIssue({
      code: 'custom',
      message: result.error.message,
      path: result.error.path,
      params: { errorCode: result.error.errorCode },
    });
    return z.NEVER;
  });
}

/** The policy error behind a zod error raised by a {@link policySchema}, or `null` for any other failure. */
export function policyErrorFromZod(error: z.ZodError): ExbPolicyError | null {
  for (const issue of error.issues) {
    const code = issue.code === 'custom' ? (issue.params as { errorCode?: unknown } | undefined)?.errorCode : undefined;
    if (typeof code === 'string' && (EXB_POLICY_ERROR_CODES as readonly string[]).includes(code)) {
      return { errorCode: code as ExbPolicyErrorCode, message: issue.message, path: issue.path as PolicyPath };
    }
  }
  return null;
}
