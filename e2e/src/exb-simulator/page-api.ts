import { configKeyHashForUrl } from '@exb/server/exb/index.js';
import type { OpenedConfiguration } from './open.js';

/**
 * The exam browser's page API, `window.SafeExamBrowser`: per-URL hashes of the Config Key (and optionally of a Browser
 * Exam Key), each `SHA-256(url without fragment + key)`, plus `updateKeys(callback)`. The two client families differ
 * in ways pages must survive, and both are simulated:
 * - `windows`: the hashes are computed once for the URL the frame was loaded with; `updateKeys` just calls back.
 * - `macos`: `updateKeys` recomputes the hashes for the current URL and then evaluates `callback.name + "();"`, so
 *   only a named global function is ever called back.
 */

export type ExamBrowserPlatform = 'windows' | 'macos';

export interface ExamBrowserSecurityApi {
  configKey: string;
  browserExamKey?: string;
  updateKeys(callback: () => void): void;
}

export interface ExamBrowserPageApi {
  version: string;
  security: ExamBrowserSecurityApi;
}

export interface SimulatedExamBrowserOptions {
  /** Lowercase hex Config Key of the opened configuration. */
  configKey: string;
  /** Lowercase hex Browser Exam Key; real ones depend on the browser build, so it is optional. */
  browserExamKey?: string;
  platform?: ExamBrowserPlatform;
  version?: string;
}

/** What a page reads for `url`: the hash the browser reports there. */
export function configKeyHashFor(url: string, configKey: string): string {
  return configKeyHashForUrl(url, configKey);
}

export class SimulatedExamBrowser {
  readonly configKey: string;
  readonly browserExamKey: string | undefined;
  readonly platform: ExamBrowserPlatform;
  readonly version: string;

  constructor(options: SimulatedExamBrowserOptions) {
    for (const [name, key] of [
      ['configKey', options.configKey],
      ['browserExamKey', options.browserExamKey],
    ] as const) {
      if (key !== undefined && !/^[0-9a-f]{64}$/.test(key)) throw new Error(`${name} must be 64 lowercase hex characters`);
    }
    this.configKey = options.configKey;
    this.browserExamKey = options.browserExamKey;
    this.platform = options.platform ?? 'windows';
    this.version = options.version ?? (this.platform === 'macos' ? 'SEB_macOS_3.5_simulator' : 'SEB_Windows_3.10.0_simulator');
  }

  static fromConfiguration(
    configuration: Pick<OpenedConfiguration, 'configKey'>,
    options: Omit<SimulatedExamBrowserOptions, 'configKey'> = {},
  ): SimulatedExamBrowser {
    return new SimulatedExamBrowser({ ...options, configKey: configuration.configKey });
  }

  /** The page API as a page at `pageUrl` sees it. */
  pageApi(pageUrl: string): ExamBrowserPageApi {
    const security: ExamBrowserSecurityApi = {
      configKey: configKeyHashFor(pageUrl, this.configKey),
      updateKeys: (callback) => callback(),
    };
    if (this.browserExamKey !== undefined) security.browserExamKey = configKeyHashFor(pageUrl, this.browserExamKey);
    return { version: this.version, security };
  }

  /** The request headers the browser adds to page requests when the configuration asks it to send its keys. */
  requestHeaders(url: string): Record<string, string> {
    const headers: Record<string, string> = { 'x-safeexambrowser-configkeyhash': configKeyHashFor(url, this.configKey) };
    if (this.browserExamKey !== undefined) {
      headers['x-safeexambrowser-requesthash'] = configKeyHashFor(url, this.browserExamKey);
    }
    return headers;
  }

  /**
   * Script text for `page.addInitScript` (or a context's): defines `window.SafeExamBrowser` in every frame before any
   * page script runs, computing the hashes in the page for the frame's own URL, as the real browser does.
   */
  initScript(): string {
    return pageApiScript(JSON.stringify(this.scriptSettings()));
  }

  /**
   * The name of a frame that shows pages as this browser: pages that run {@link SimulatedExamBrowser.frameNameScript}
   * inside it get this browser's page API. A frame keeps its name across navigations, so every page it loads has it.
   */
  frameName(): string {
    return FRAME_NAME_PREFIX + JSON.stringify(this.scriptSettings());
  }

  /**
   * Script text for the head of pages that may be shown in such a frame (the testbed's simulated exam browser frames
   * the development LMS's pages): the page API of {@link initScript} when the window's name carries a browser's
   * settings, nothing in any other window.
   */
  static frameNameScript(): string {
    return pageApiScript(`(function (name, prefix) {
    if (typeof name !== 'string' || name.indexOf(prefix) !== 0) return null;
    try {
      var parsed = JSON.parse(name.slice(prefix.length));
      return /^[0-9a-f]{64}$/.test(parsed.configKey) ? parsed : null;
    } catch (error) {
      return null;
    }
  })(window.name, ${JSON.stringify(FRAME_NAME_PREFIX)})`);
  }

  private scriptSettings(): ScriptSettings {
    return {
      configKey: this.configKey,
      browserExamKey: this.browserExamKey ?? null,
      platform: this.platform,
      version: this.version,
    };
  }
}

/** What the in-page script needs; JSON, so it can travel in a script's text or in a window's name. */
interface ScriptSettings {
  configKey: string;
  browserExamKey: string | null;
  platform: ExamBrowserPlatform;
  version: string;
}

const FRAME_NAME_PREFIX = 'exb-simulated-exam-browser:';

/** The page API script over the settings `settingsSource` evaluates to; a `null` there leaves the page alone. */
function pageApiScript(settingsSource: string): string {
  return `(function () {
  'use strict';
  var settings = ${settingsSource};
  if (!settings) return;
  var K = ${JSON.stringify(SHA256_ROUND_CONSTANTS)};
  var INITIAL = ${JSON.stringify(SHA256_INITIAL_HASH)};
  ${IN_PAGE_SHA256}
  function currentUrl() {
    var href = String(window.location.href);
    var hash = href.indexOf('#');
    return hash < 0 ? href : href.slice(0, hash);
  }
  var security = {};
  function computeKeys() {
    var url = currentUrl();
    security.configKey = sha256Hex(url + settings.configKey);
    if (settings.browserExamKey !== null) security.browserExamKey = sha256Hex(url + settings.browserExamKey);
  }
  computeKeys();
  security.updateKeys = function (callback) {
    if (settings.platform !== 'macos') {
      if (typeof callback === 'function') callback();
      return;
    }
    computeKeys();
    var name = callback && typeof callback.name === 'string' ? callback.name : '';
    setTimeout(function () {
      var target = name === '' ? undefined : window[name];
      if (typeof target === 'function') target();
      else console.error('SafeExamBrowser.updateKeys: the callback must be a named global function');
    }, 0);
  };
  Object.defineProperty(window, 'SafeExamBrowser', {
    value: { version: settings.version, security: security },
    writable: false,
    configurable: false,
    enumerable: false,
  });
})();
`;
}

/**
 * Synchronous SHA-256 over the UTF-8 bytes of a string. Pages read the keys as plain properties, so they must exist
 * before any page script runs; the asynchronous Web Crypto API cannot provide that.
 */
const IN_PAGE_SHA256 = `
  function rotr(x, n) { return (x >>> n) | (x << (32 - n)); }
  function sha256Hex(text) {
    var bytes = new TextEncoder().encode(text);
    var length = bytes.length;
    var padded = new Uint8Array((((length + 8) >> 6) + 1) << 6);
    padded.set(bytes);
    padded[length] = 0x80;
    var view = new DataView(padded.buffer);
    view.setUint32(padded.length - 8, Math.floor(length / 0x20000000));
    view.setUint32(padded.length - 4, (length << 3) >>> 0);
    var h = INITIAL.slice();
    var w = new Int32Array(64);
    for (var offset = 0; offset < padded.length; offset += 64) {
      var i;
      for (i = 0; i < 16; i++) w[i] = view.getInt32(offset + i * 4);
      for (i = 16; i < 64; i++) {
        var x = w[i - 15], y = w[i - 2];
        var s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3);
        var s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10);
        w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
      }
      var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
      for (i = 0; i < 64; i++) {
        var t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
        var t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        k = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      h[0] = (h[0] + a) | 0; h[1] = (h[1] + b) | 0; h[2] = (h[2] + c) | 0; h[3] = (h[3] + d) | 0;
      h[4] = (h[4] + e) | 0; h[5] = (h[5] + f) | 0; h[6] = (h[6] + g) | 0; h[7] = (h[7] + k) | 0;
    }
    var out = '';
    for (var j = 0; j < 8; j++) out += ('00000000' + (h[j] >>> 0).toString(16)).slice(-8);
    return out;
  }`;

/** The first 32 fraction bits of the `root`-th roots of the first primes, exactly (FIPS 180-4 §4.2.2, §5.3.3). */
function fractionBitsOfRoots(count: number, root: 2n | 3n): number[] {
  const primes: bigint[] = [];
  for (let candidate = 2n; primes.length < count; candidate++) {
    if (primes.every((prime) => candidate % prime !== 0n)) primes.push(candidate);
  }
  return primes.map((prime) => {
    // floor(root-th root of (p * 2^(32*root))) = floor(p^(1/root) * 2^32); its low 32 bits are the fraction bits.
    const target = prime << (32n * root);
    let low = 0n;
    let high = 1n << 64n;
    while (low < high) {
      const middle = (low + high + 1n) >> 1n;
      if (middle ** root <= target) low = middle;
      else high = middle - 1n;
    }
    return Number(low & 0xffffffffn) | 0;
  });
}

const SHA256_ROUND_CONSTANTS = fractionBitsOfRoots(64, 3n);
const SHA256_INITIAL_HASH = fractionBitsOfRoots(8, 2n);
