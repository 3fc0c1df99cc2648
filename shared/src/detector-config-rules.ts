/**
 * The configuration the server injects into the LMS scripts. The bundles contain the marker identifier exactly once,
 * as an expression; the server replaces it with a JSON object literal. Nothing else configures the scripts, so nothing
 * an LMS page writes can change where they send requests.
 *
 * No dependencies, so the browser bundles validate with this module; the zod schema is in `detector-config.ts`.
 */
import { parseDetectorMessages, type DetectorMessages } from './detector-messages.js';

export const DETECTOR_CONFIG_MARKER = '__EXB_DETECTOR_CONFIG__';

export interface DetectorConfig {
  /** The service base URL, normalized by `normalizeServiceBaseUrl`: no trailing slash, query or fragment. */
  readonly baseUrl: string;
  readonly ltiClientId: string;
  readonly deploymentIds: readonly string[];
  readonly debug: boolean;
  readonly diagnostics: boolean;
  /** The detector's prompts in every supported language; only the detector carries them, never the theme loader. */
  readonly messages?: DetectorMessages;
}

export const DETECTOR_CONFIG_LIMITS = {
  baseUrlLength: 2048,
  identifierLength: 255,
  deploymentIds: 256,
} as const;

const CONFIG_KEYS = ['baseUrl', 'ltiClientId', 'deploymentIds', 'debug', 'diagnostics'] as const;

const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/**
 * The canonical form of the service base URL (`https://exb.example.edu` or `https://example.edu/exb`), or `null` when
 * it is not an absolute HTTP(S) URL or carries credentials, a query or a fragment.
 */
export function normalizeServiceBaseUrl(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > DETECTOR_CONFIG_LIMITS.baseUrlLength) return null;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return null;
  if (parsed.username !== '' || parsed.password !== '' || parsed.search !== '' || parsed.hash !== '') return null;
  if (value.includes('?') || value.includes('#')) return null;
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

/** True for an identifier the scripts may carry: a non-empty bounded string without control characters. */
export function isConfigIdentifier(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= DETECTOR_CONFIG_LIMITS.identifierLength &&
    !CONTROL_CHARACTER.test(value)
  );
}

/**
 * Validates an injected configuration: exactly the five keys (and the detector's `messages`), each well formed, the
 * base URL already normalized.
 */
export function parseDetectorConfig(value: unknown): DetectorConfig | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  const has = (key: string) => Object.prototype.hasOwnProperty.call(record, key);
  const expected = CONFIG_KEYS.length + (has('messages') ? 1 : 0);
  if (Object.keys(record).length !== expected || !CONFIG_KEYS.every(has)) return null;
  const { baseUrl, ltiClientId, deploymentIds, debug, diagnostics } = record;
  if (typeof baseUrl !== 'string' || normalizeServiceBaseUrl(baseUrl) !== baseUrl) return null;
  if (!isConfigIdentifier(ltiClientId)) return null;
  if (!Array.isArray(deploymentIds) || deploymentIds.length > DETECTOR_CONFIG_LIMITS.deploymentIds) return null;
  if (!deploymentIds.every(isConfigIdentifier)) return null;
  if (typeof debug !== 'boolean' || typeof diagnostics !== 'boolean') return null;
  const config = { baseUrl, ltiClientId, deploymentIds: [...deploymentIds], debug, diagnostics };
  if (!has('messages')) return config;
  const messages = parseDetectorMessages(record.messages);
  return messages === null ? null : { ...config, messages };
}

/**
 * The configuration as a JavaScript expression: JSON with `<`, `>`, `&` and the two line separators escaped, so the
 * text stays inert even if a bundle is ever inlined into HTML.
 */
export function serializeDetectorConfig(config: DetectorConfig): string {
  const ordered: DetectorConfig = {
    baseUrl: config.baseUrl,
    ltiClientId: config.ltiClientId,
    deploymentIds: [...config.deploymentIds],
    debug: config.debug,
    diagnostics: config.diagnostics,
    ...(config.messages === undefined ? {} : { messages: config.messages }),
  };
  return JSON.stringify(ordered).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Replaces the single marker in a bundle with the serialized configuration. Throws when the configuration is invalid
 * or the bundle does not contain the marker exactly once, so a broken build is never served.
 */
export function injectDetectorConfig(bundleSource: string, config: DetectorConfig): string {
  const valid = parseDetectorConfig(config);
  if (valid === null) throw new TypeError('invalid detector configuration');
  const parts = bundleSource.split(DETECTOR_CONFIG_MARKER);
  if (parts.length !== 2) throw new Error(`bundle must contain ${DETECTOR_CONFIG_MARKER} exactly once`);
  // Joining avoids String.replace, whose replacement string would interpret `$&` and similar in configured values.
  return parts.join(serializeDetectorConfig(valid));
}
