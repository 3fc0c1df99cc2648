import { memoryBudget, type AdmissionBudget } from '../security/admission-budget.js';

/** The contract's diagnostics budget: 120 events per 60 seconds per origin. */
export const TRACE_BUDGET = { points: 120, durationSeconds: 60 } as const;

/** A detector event is a handful of short fields; anything near this size is not one. */
export const TRACE_BODY_LIMIT_BYTES = 16 * 1024;

/** Bounds of the recorded copy, so a log line stays small whatever a page posts. */
export const TRACE_LIMITS = {
  depth: 4,
  keysPerObject: 32,
  itemsPerArray: 32,
  stringLength: 256,
  keyLength: 64,
  /** Values recorded in total; the rest of the event is cut. */
  values: 256,
} as const;

export const REDACTED = '[redacted]';
export const TRUNCATED = '[truncated]';

export interface TraceSettings {
  debug: boolean;
  diagnostics: boolean;
  testbed: boolean;
  /** The configured LMS origin, the only page origin whose events are recorded. */
  lmsOrigin: string;
}

export type TraceAdmission =
  | { outcome: 'disabled' }
  | { outcome: 'limited'; retryAfterSeconds: number }
  | { outcome: 'accepted'; origin: string };

export interface TraceClient {
  userAgent?: string | undefined;
  referer?: string | undefined;
}

/**
 * The diagnostics sink the detector posts to. It only records on a testbed with debug or diagnostics on, and only for
 * the LMS origin; everything else is answered as disabled without a trace in the log.
 */
export class DetectorTraces {
  readonly recording: boolean;
  private readonly budget: AdmissionBudget;

  constructor(private readonly settings: TraceSettings) {
    this.recording = (settings.debug || settings.diagnostics) && settings.testbed;
    this.budget = memoryBudget({ name: 'lms-detector-trace', points: TRACE_BUDGET.points, durationSeconds: TRACE_BUDGET.durationSeconds });
  }

  /**
   * Decides whether an event is recorded. The budget is charged only for the LMS origin once recording is on, so
   * requests that are refused anyway never create counters.
   */
  async admit(origin: string | undefined): Promise<TraceAdmission> {
    if (!this.recording || origin === undefined || origin !== this.settings.lmsOrigin) return { outcome: 'disabled' };
    const decision = await this.budget.consume(origin);
    return decision.allowed ? { outcome: 'accepted', origin } : { outcome: 'limited', retryAfterSeconds: decision.retryAfterSeconds };
  }

  /** The log entry for an accepted event: a sanitized copy, with request details when diagnostics is on. */
  entry(origin: string, event: unknown, client: TraceClient): Record<string, unknown> {
    return {
      detectorTrace: {
        origin,
        event: sanitizeTraceValue(event),
        ...(this.settings.diagnostics
          ? {
              client: {
                userAgent: client.userAgent === undefined ? undefined : sanitizeTraceValue(client.userAgent),
                referer: client.referer === undefined ? undefined : sanitizeReferer(client.referer),
              },
            }
          : {}),
      },
    };
  }
}

// Key words whose values are secrets wherever they appear: `accessCode`, `proof_token`, `x-exb-configkeyhash`, ...
const SECRET_WORDS = new Set([
  'token',
  'code',
  'proof',
  'grant',
  'hash',
  'key',
  'password',
  'passwd',
  'secret',
  'authorization',
  'auth',
  'cookie',
  'signature',
  'jwt',
  'nonce',
  'credential',
  'credentials',
]);
// The same words run together without separators (`accesscode`, `configkeyhash`), where word splitting sees one word.
const SECRET_FRAGMENTS = ['token', 'accesscode', 'passcode', 'proof', 'grant', 'configkey', 'keyhash', 'hash', 'password', 'passwd', 'secret', 'authorization', 'cookie', 'apikey', 'privatekey', 'signature', 'credential', 'jwt'];
// Error and status codes are the contract's public codes (`INVALID_EXB_CONFIG_PROOF`), the point of a trace.
const PUBLIC_CODE_KEYS = new Set(['errorcode', 'statuscode']);

/** True for a key whose value must never be recorded. */
export function isSecretKey(key: string): boolean {
  const compact = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (PUBLIC_CODE_KEYS.has(compact)) return false;
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return words.some((word) => SECRET_WORDS.has(word)) || SECRET_FRAGMENTS.some((fragment) => compact.includes(fragment));
}

// Service tokens are 43 base64url characters and key hashes 64 hex digits; shorter runs are ordinary words and ids.
const LONG_OPAQUE_RUN = /[A-Za-z0-9_-]{32,}={0,2}/g;

/** Replaces every long base64url or hex run (tokens, hashes, JWT parts) in free text. */
export function redactOpaqueRuns(text: string): string {
  return text.replace(LONG_OPAQUE_RUN, REDACTED);
}

function boundedString(text: string, length: number): string {
  const redacted = redactOpaqueRuns(text);
  return redacted.length > length ? `${redacted.slice(0, length)}…` : redacted;
}

/**
 * A copy of any JSON value that is safe and small enough to log: secret-named keys lose their values, opaque runs are
 * redacted everywhere (keys included), and depth, keys, items, string lengths and the total number of values are
 * bounded.
 */
export function sanitizeTraceValue(value: unknown): unknown {
  let remaining: number = TRACE_LIMITS.values;

  const visit = (node: unknown, depth: number): unknown => {
    if (remaining <= 0) return TRUNCATED;
    remaining -= 1;
    if (node === null || typeof node === 'boolean') return node;
    if (typeof node === 'number') return Number.isFinite(node) ? node : null;
    if (typeof node === 'string') return boundedString(node, TRACE_LIMITS.stringLength);
    if (typeof node !== 'object') return null;
    if (depth >= TRACE_LIMITS.depth) return TRUNCATED;
    if (Array.isArray(node)) {
      const items = node.slice(0, TRACE_LIMITS.itemsPerArray).map((item) => visit(item, depth + 1));
      if (node.length > TRACE_LIMITS.itemsPerArray) items.push(`${TRUNCATED} ${node.length - TRACE_LIMITS.itemsPerArray} more`);
      return items;
    }
    const entries = Object.entries(node as Record<string, unknown>);
    const copy: Record<string, unknown> = {};
    for (const [key, item] of entries.slice(0, TRACE_LIMITS.keysPerObject)) {
      const safeKey = boundedString(key, TRACE_LIMITS.keyLength);
      // A prototype-shaped key stays a plain data property of the copy.
      Object.defineProperty(copy, safeKey, {
        value: isSecretKey(key) ? REDACTED : visit(item, depth + 1),
        enumerable: true,
        configurable: true,
        writable: true,
      });
    }
    if (entries.length > TRACE_LIMITS.keysPerObject) copy[TRUNCATED] = entries.length - TRACE_LIMITS.keysPerObject;
    return copy;
  };

  return visit(value, 0);
}

/** The LMS page a diagnostic came from: origin and path, query values and opaque path segments redacted. */
function sanitizeReferer(referer: string): string | undefined {
  let url: URL;
  try {
    url = new URL(referer);
  } catch {
    return undefined;
  }
  const query = [...url.searchParams.keys()].map((key) => `${encodeURIComponent(key)}=${REDACTED}`).join('&');
  return boundedString(`${url.origin}${url.pathname}${query ? `?${query}` : ''}`, TRACE_LIMITS.stringLength);
}
