import { timingSafeEqual } from 'node:crypto';
import { sha256, sha256Hex } from './hash.js';
import { PlistDate, PlistReal, type PlistDict, type PlistValue } from './plist.js';

// Metadata every client leaves out of the key.
const EXCLUDED_KEY = 'originatorVersion';

/**
 * The exam browser's "SEB-JSON": keys sorted case-insensitively, `originatorVersion` and empty dicts dropped, no
 * whitespace and deliberately no escaping (clients hash raw string contents), data as padded base64, reals in .NET G15.
 * Dates have no platform-independent form and are rejected.
 */
export function configKeyJson(dict: PlistDict): string {
  return serialize(dict);
}

/** Lowercase hex SHA-256 of the UTF-8 SEB-JSON of exactly the dictionary in the file. */
export function computeConfigKey(dict: PlistDict): string {
  return configKeyOfJson(configKeyJson(dict));
}

/** The Config Key of a dictionary already serialized by {@link configKeyJson}. */
export function configKeyOfJson(json: string): string {
  return sha256Hex(json);
}

/** What the browser reports per page: SHA-256 of the URL without its fragment, followed by the Config Key. */
export function configKeyHashForUrl(url: string, configKey: string): string {
  return sha256Hex(withoutFragment(url) + configKey);
}

/** Compares a browser-reported per-URL hash with the expected one without revealing where they differ. */
export function configKeyHashMatches(reportedHash: string, url: string, configKey: string): boolean {
  if (!/^[0-9a-fA-F]{64}$/.test(reportedHash)) return false;
  return timingSafeEqual(Buffer.from(reportedHash, 'hex'), sha256(withoutFragment(url) + configKey));
}

/**
 * Throws unless the dictionary yields the same Config Key on every client: keys only `[A-Za-z0-9]+` and unique ignoring
 * case (the clients' sort orders agree only then), no `originatorVersion` and no empty dict (the Windows client leaves a
 * trailing comma for those), no reals and no dates.
 */
export function assertPortableConfigKeyInput(dict: PlistDict): void {
  const problems: string[] = [];
  checkPortable(dict, '', problems);
  if (problems.length > 0) throw new Error(`settings would not give a portable Config Key: ${problems.join('; ')}`);
}

function checkPortable(value: PlistValue, path: string, problems: string[]): void {
  if (value instanceof PlistReal || value instanceof PlistDate) {
    problems.push(`${path}: ${value instanceof PlistReal ? 'real' : 'date'} value`);
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => checkPortable(item, `${path}[${index}]`, problems));
  } else if (value instanceof Map) {
    const seen = new Set<string>();
    for (const [key, item] of value) {
      const at = path === '' ? key : `${path}.${key}`;
      if (!/^[A-Za-z0-9]+$/.test(key)) problems.push(`${at}: key is not alphanumeric`);
      if (key === EXCLUDED_KEY) problems.push(`${at}: excluded key`);
      if (seen.has(key.toLowerCase())) problems.push(`${at}: key differs from another only by case`);
      seen.add(key.toLowerCase());
      if (item instanceof Map && item.size === 0) problems.push(`${at}: empty dict`);
      checkPortable(item, at, problems);
    }
  }
}

function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}

function serialize(value: PlistValue): string {
  if (typeof value === 'string') return `"${value}"`;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
    return String(value);
  }
  if (value instanceof Uint8Array) return `"${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')}"`;
  if (value instanceof PlistReal) return formatDotNetReal(value.value);
  if (value instanceof PlistDate) throw new Error('date values have no portable Config Key serialization');
  if (Array.isArray(value)) return `[${value.map(serialize).join(',')}]`;
  const keys = [...value.keys()]
    .filter((key) => {
      const item = value.get(key);
      return key !== EXCLUDED_KEY && !(item instanceof Map && item.size === 0);
    })
    .sort(compareKeys);
  return `{${keys.map((key) => `"${key}":${serialize(value.get(key)!)}`).join(',')}}`;
}

/** Case-insensitive by UTF-16 code unit; on a tie the lowercase spelling first, as the clients' collations do. */
function compareKeys(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x !== y) return x < y ? -1 : 1;
  return a === b ? 0 : a > b ? -1 : 1;
}

/**
 * .NET Framework `double.ToString()` ("G15"): 15 significant digits, trailing zeros removed, fixed notation for decimal
 * exponents from -5 (exclusive) to 15 (exclusive), otherwise `1E-05` / `1E+20`; negative zero prints as `0`.
 */
export function formatDotNetReal(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`not a finite real: ${value}`);
  if (value === 0) return '0';
  const [mantissa = '', exponentText = ''] = Math.abs(value).toExponential(14).split('e');
  const exponent = Number(exponentText);
  const digits = mantissa.replace('.', '').replace(/0+$/, '');
  const sign = value < 0 ? '-' : '';
  if (exponent > -5 && exponent < 15) {
    if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
    const integer = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
    const fraction = digits.slice(exponent + 1);
    return `${sign}${integer}${fraction === '' ? '' : `.${fraction}`}`;
  }
  const fraction = digits.slice(1);
  const exponentDigits = String(Math.abs(exponent)).padStart(2, '0');
  return `${sign}${digits[0]}${fraction === '' ? '' : `.${fraction}`}E${exponent < 0 ? '-' : '+'}${exponentDigits}`;
}
