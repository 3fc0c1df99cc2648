import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { injectDetectorConfig, normalizeServiceBaseUrl, type DetectorConfig, type DetectorMessages } from '@exb/shared/detector-config.js';
import { CATALOGUES } from '@exb/shared/i18n/catalogues.js';

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

/** What the scripts are built from: the configuration tuple. */
export interface DetectorScriptSettings {
  /**
   * `BASE_URL`, the only base URL ever injected: request headers (`Host`, `X-Forwarded-*`) never choose where the
   * scripts send the exam browser's proofs.
   */
  baseUrl: string;
  ltiClientId: string;
  deploymentIds: readonly string[];
  debug: boolean;
  diagnostics: boolean;
  production: boolean;
}

/** One servable script: its bytes and the complete response headers. */
export interface ServedScript {
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string>>;
  /** Absent for the readable builds: they are never stored, so there is nothing to revalidate. */
  readonly etag: string | undefined;
}

// The contract's `vary` header (Document 3), kept although the scripts no longer differ by these headers.
const VARY = 'Origin, X-Forwarded-Host, X-Forwarded-Proto, X-Forwarded-Port';

const COMMON_HEADERS = {
  'content-type': 'application/javascript; charset=utf-8',
  pragma: 'no-cache',
  expires: '0',
  vary: VARY,
  'x-content-type-options': 'nosniff',
} as const;

/**
 * The detector's prompts in every language, from the `detector` catalogue. Both are small, so the one cached script per
 * configuration tuple carries both and the detector picks the LMS page's language; no request chooses or builds text.
 */
export const DETECTOR_MESSAGES: DetectorMessages = { en: CATALOGUES.en.detector, de: CATALOGUES.de.detector };

/** The contract's cache headers: revalidate every time; never store the readable builds at all. */
export function detectorScriptHeaders(readable: boolean, etag?: string): Record<string, string> {
  return {
    ...COMMON_HEADERS,
    'cache-control': readable ? 'no-cache, no-store, must-revalidate' : 'no-cache, must-revalidate',
    ...(etag === undefined ? {} : { etag }),
  };
}

/**
 * The injected LMS scripts. With caching (production, no debug or diagnostics) each script is injected once and the
 * same bytes and headers object is served from then on, so a request costs what a static file costs. Otherwise every
 * request injects afresh.
 */
export class DetectorScripts {
  readonly readable: boolean;
  readonly cached: boolean;
  readonly baseUrl: string;
  private readonly sources: Readonly<Record<DetectorScriptName, string>>;
  private readonly configured: Readonly<Record<DetectorScriptName, ServedScript>>;

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
      'lms-exb-detector': this.build('lms-exb-detector'),
      'lms-exb-theme-loader': this.build('lms-exb-theme-loader'),
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

  /** The configuration a script carries: the theme loader shows no text, so only the detector gets the prompts. */
  config(name: DetectorScriptName): DetectorConfig {
    return {
      baseUrl: this.baseUrl,
      ltiClientId: this.settings.ltiClientId,
      deploymentIds: this.settings.deploymentIds,
      debug: this.settings.debug,
      diagnostics: this.settings.diagnostics,
      ...(name === 'lms-exb-detector' ? { messages: DETECTOR_MESSAGES } : {}),
    };
  }

  script(name: DetectorScriptName): ServedScript {
    return this.cached ? this.configured[name] : this.build(name);
  }

  private build(name: DetectorScriptName): ServedScript {
    const body = Buffer.from(injectDetectorConfig(this.sources[name], this.config(name)), 'utf8');
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
