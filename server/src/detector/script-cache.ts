import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { injectDetectorConfig, normalizeServiceBaseUrl, type DetectorConfig } from '@exb/shared/detector-config.js';

/** Where `npm run build -w detector` writes the bundles; resolved from this module so the working directory never matters. */
export const DEFAULT_DETECTOR_DIST_DIR = fileURLToPath(new URL('../../../detector/dist/', import.meta.url));

export const DETECTOR_SCRIPT_NAMES = ['lms-exb-detector', 'lms-exb-theme-loader'] as const;
export type DetectorScriptName = (typeof DETECTOR_SCRIPT_NAMES)[number];

/** The bundle file for a script: the minified build, or the readable one for the debug and diagnostics modes. */
export function detectorBundleFile(name: DetectorScriptName, readable: boolean): string {
  return `${name}${readable ? '.debug' : ''}.js`;
}

export class DetectorBundlesMissingError extends Error {
  constructor(readonly files: string[]) {
    super(`detector bundles not found: ${files.join(', ')}; run \`npm run build\` (or \`npm run build -w detector\`)`);
    this.name = 'DetectorBundlesMissingError';
  }
}

/** What the scripts are built from: the configuration tuple apart from the base URL, which may be per request. */
export interface DetectorScriptSettings {
  /** `BASE_URL`; in production it is always configured (the configuration refuses the http default there). */
  baseUrl: string;
  ltiClientId: string;
  deploymentIds: readonly string[];
  debug: boolean;
  diagnostics: boolean;
  production: boolean;
  /** Only behind a trusted proxy may `X-Forwarded-*` name the origin the LMS loaded the script from. */
  trustProxy: boolean;
}

/** One servable script: its bytes and the complete response headers. */
export interface ServedScript {
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string>>;
  /** Absent for the readable builds: they are never stored, so there is nothing to revalidate. */
  readonly etag: string | undefined;
}

// The script's configuration depends on the origin the LMS page loaded it from when the service sits behind a proxy,
// so shared caches must keep one copy per origin header set.
const VARY = 'Origin, X-Forwarded-Host, X-Forwarded-Proto, X-Forwarded-Port';

const COMMON_HEADERS = {
  'content-type': 'application/javascript; charset=utf-8',
  pragma: 'no-cache',
  expires: '0',
  vary: VARY,
  'x-content-type-options': 'nosniff',
} as const;

/** The contract's cache headers: revalidate every time; never store the readable builds at all. */
export function detectorScriptHeaders(readable: boolean, etag?: string): Record<string, string> {
  return {
    ...COMMON_HEADERS,
    'cache-control': readable ? 'no-cache, no-store, must-revalidate' : 'no-cache, must-revalidate',
    ...(etag === undefined ? {} : { etag }),
  };
}

/**
 * Distinct forwarded origins kept per script. Behind a proxy there are a handful at most; the bound keeps a client
 * that invents `X-Forwarded-Host` values from growing the process.
 */
export const MAX_FORWARDED_ORIGINS = 16;

/**
 * The injected LMS scripts. With caching (production, no debug or diagnostics) each configuration tuple is injected
 * once and the same bytes and headers object is served from then on, so a request costs what a static file costs.
 * Otherwise every request injects afresh. Within one instance only the base URL can vary (behind a trusted proxy);
 * the rest of the tuple is fixed by the configuration it was built from.
 */
export class DetectorScripts {
  readonly readable: boolean;
  readonly cached: boolean;
  readonly baseUrl: string;
  private readonly sources: Readonly<Record<DetectorScriptName, string>>;
  private readonly configured: Readonly<Record<DetectorScriptName, ServedScript>>;
  private readonly forwarded = new Map<string, ServedScript>();

  constructor(
    private readonly settings: DetectorScriptSettings,
    sources: Readonly<Record<DetectorScriptName, string>>,
  ) {
    const baseUrl = normalizeServiceBaseUrl(settings.baseUrl);
    if (baseUrl === null) throw new Error(`BASE_URL cannot be injected into the detector scripts: ${settings.baseUrl}`);
    this.baseUrl = baseUrl;
    this.readable = settings.debug || settings.diagnostics;
    this.cached = settings.production && !this.readable;
    this.sources = sources;
    // Injecting once here, in every mode, turns a configuration the scripts cannot carry into a start-up error.
    this.configured = {
      'lms-exb-detector': this.build('lms-exb-detector', baseUrl),
      'lms-exb-theme-loader': this.build('lms-exb-theme-loader', baseUrl),
    };
  }

  /** Reads the built bundles the settings need; throws {@link DetectorBundlesMissingError} naming every missing file. */
  static load(settings: DetectorScriptSettings, distDir: string = DEFAULT_DETECTOR_DIST_DIR): DetectorScripts {
    const readable = settings.debug || settings.diagnostics;
    const missing: string[] = [];
    const read = (name: DetectorScriptName): string => {
      const file = path.join(distDir, detectorBundleFile(name, readable));
      try {
        return readFileSync(file, 'utf8');
      } catch {
        missing.push(file);
        return '';
      }
    };
    const sources = { 'lms-exb-detector': read('lms-exb-detector'), 'lms-exb-theme-loader': read('lms-exb-theme-loader') };
    if (missing.length > 0) throw new DetectorBundlesMissingError(missing);
    return new DetectorScripts(settings, sources);
  }

  /** The configuration the scripts carry for a base URL. */
  config(baseUrl: string = this.baseUrl): DetectorConfig {
    return {
      baseUrl,
      ltiClientId: this.settings.ltiClientId,
      deploymentIds: this.settings.deploymentIds,
      debug: this.settings.debug,
      diagnostics: this.settings.diagnostics,
    };
  }

  /**
   * The base URL to inject for a request: the configured one, unless the service trusts its proxy and the proxy
   * forwarded a well-formed origin that does not downgrade the configured scheme.
   */
  baseUrlFor(headers: IncomingHttpHeaders): string {
    if (!this.settings.trustProxy) return this.baseUrl;
    return forwardedBaseUrl(headers, this.baseUrl) ?? this.baseUrl;
  }

  script(name: DetectorScriptName, baseUrl: string = this.baseUrl): ServedScript {
    if (baseUrl === this.baseUrl) return this.cached ? this.configured[name] : this.build(name, baseUrl);
    if (!this.cached) return this.build(name, baseUrl);
    const key = `${name} ${baseUrl}`;
    const hit = this.forwarded.get(key);
    if (hit !== undefined) return hit;
    const built = this.build(name, baseUrl);
    if (this.forwarded.size >= MAX_FORWARDED_ORIGINS * DETECTOR_SCRIPT_NAMES.length) {
      const oldest = this.forwarded.keys().next();
      if (!oldest.done) this.forwarded.delete(oldest.value);
    }
    this.forwarded.set(key, built);
    return built;
  }

  private build(name: DetectorScriptName, baseUrl: string): ServedScript {
    const body = Buffer.from(injectDetectorConfig(this.sources[name], this.config(baseUrl)), 'utf8');
    const etag = this.readable ? undefined : strongEtag(body);
    return { body, etag, headers: Object.freeze(detectorScriptHeaders(this.readable, etag)) };
  }
}

function strongEtag(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/**
 * True when a revalidation may be answered `304`: `If-None-Match` lists the script's entity tag (weak comparison, as
 * RFC 9110 prescribes for this header) or is `*`.
 */
export function isNotModified(script: ServedScript, ifNoneMatch: string | undefined): boolean {
  if (script.etag === undefined || ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag === script.etag || tag === `W/${script.etag}`;
  });
}

// A DNS name or IPv4 address, or a bracketed IPv6 address, each with an optional port.
const FORWARDED_HOST =
  /^(?:(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;
const PORT = /^\d{1,5}$/;

/** The entry the nearest proxy added: proxies append, so the first entries are whatever the client sent. */
function lastEntry(value: string | string[] | undefined): string | undefined {
  const joined = Array.isArray(value) ? value.join(',') : value;
  if (joined === undefined) return undefined;
  const entry = joined.split(',').pop()?.trim();
  return entry === '' ? undefined : entry;
}

/**
 * The service base URL as the proxy forwarded it (`X-Forwarded-Host`, optionally `-Proto` and `-Port`), keeping the
 * configured path; `null` when no host was forwarded or anything is malformed, or the scheme would drop from https.
 */
export function forwardedBaseUrl(headers: IncomingHttpHeaders, configuredBaseUrl: string): string | null {
  const host = lastEntry(headers['x-forwarded-host']);
  if (host === undefined || host.length > 260 || !FORWARDED_HOST.test(host)) return null;
  const configured = new URL(configuredBaseUrl);
  const proto = lastEntry(headers['x-forwarded-proto'])?.toLowerCase() ?? configured.protocol.slice(0, -1);
  if (proto !== 'https' && proto !== 'http') return null;
  if (configured.protocol === 'https:' && proto !== 'https') return null;
  let url: URL;
  try {
    url = new URL(`${proto}://${host}`);
  } catch {
    return null;
  }
  const port = lastEntry(headers['x-forwarded-port']);
  if (port !== undefined) {
    if (!PORT.test(port) || Number(port) < 1 || Number(port) > 65535) return null;
    if (!/:\d+$/.test(host)) url.port = port;
  }
  return normalizeServiceBaseUrl(`${url.origin}${configured.pathname}`);
}
