/**
 * Concrete host names, as `domain` rules name them and exact URLs must contain: one public site, never a pattern, an
 * IP address, a reserved name or a public suffix.
 */
import { refuse, type ValueCheck } from './errors.js';
import { EXB_POLICY_LIMITS } from './limits.js';
import { INVISIBLE_OR_CONTROL, parseUrl } from './text.js';

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

/** Checks an already IDNA-processed host (lower-case ASCII) for the shape of one concrete DNS name. */
export function checkAsciiHostname(host: string): ValueCheck<string> {
  if (host.startsWith('[') || IPV4_PATTERN.test(host)) {
    return refuse('host.ipAddress');
  }
  if (host.endsWith('.')) return refuse('host.trailingDot');
  if (host.length > EXB_POLICY_LIMITS.hostnameLength) return refuse('host.tooLong');
  const labels = host.split('.');
  if (labels.length < 2) return refuse('host.notFull');
  for (const label of labels) {
    if (label.length === 0 || label.length > EXB_POLICY_LIMITS.hostnameLabelLength || !LABEL_PATTERN.test(label)) {
      return refuse('host.invalidLabel');
    }
  }
  const tld = labels[labels.length - 1] as string;
  if (!TLD_PATTERN.test(tld)) return refuse('host.invalidTld');
  if (SPECIAL_USE_TLDS.has(tld)) return refuse('host.reserved');
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
  if (typeof value !== 'string') return refuse('host.expected');
  const raw = value.trim();
  if (raw.length === 0 || raw.length > EXB_POLICY_LIMITS.hostnameLength) {
    return refuse('host.length', { max: EXB_POLICY_LIMITS.hostnameLength });
  }
  if (raw.includes('*')) return refuse('host.wildcard');
  if (raw.startsWith('.')) return refuse('host.leadingDot');
  if (INVISIBLE_OR_CONTROL.test(raw) || /[/\\?#@:%[\]^|{}()$+,;=!'"`<>~&]/.test(raw)) {
    return refuse('host.onlyHost');
  }
  const url = parseUrl(`https://${raw}/`);
  if (url === null || url.pathname !== '/' || url.port !== '') return refuse('host.invalid');
  return checkAsciiHostname(url.hostname);
}
