import { createPublicKey, type KeyObject } from 'node:crypto';
import { LtiError, tokenError, type RefusalText } from './errors.js';

/** RS256 with a modulus under 2048 bits is refused (RFC 7518 §3.3, and the contract). */
export const MIN_RSA_MODULUS_BITS = 2048;

export interface PlatformKey {
  kid: string;
  key: KeyObject;
  modulusBits: number;
}

export interface PlatformKeySetOptions {
  jwksUrl: string;
  /** How long a fetched key set is used before it is fetched again. */
  cacheTtlMs?: number;
  /** The least time between two fetches, whatever asks for one (an unknown `kid`, an expired set). */
  cooldownMs?: number;
  timeoutMs?: number;
  /** A key set is a few kilobytes; a larger answer is refused unread. */
  maxBytes?: number;
  fetch?: typeof fetch;
  now?: () => number;
}

interface CachedKeys {
  keys: Map<string, PlatformKey>;
  fetchedAt: number;
}

const DEFAULT_CACHE_TTL_MS = 10 * 60 * 1000;
const DEFAULT_COOLDOWN_MS = 30 * 1000;
const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_MAX_BYTES = 64 * 1024;

/**
 * The LMS's id_token signing keys, fetched from its key set URL and cached. A token naming an unknown `kid` triggers a
 * refetch (the LMS rotates keys), shared by all requests waiting at that moment, but at most one fetch starts per
 * cooldown: tokens with made-up key ids (each launch is one login away) cannot make the service hammer the LMS, and a
 * real rotation is picked up by the first launch after the cooldown. Only RSA signing keys usable with RS256 are kept;
 * a key under 2048 bits is kept only to explain why tokens signed with it are refused.
 *
 * Hand-written rather than jose's remote key set, which neither bounds the size of the answer nor keeps the weak keys
 * whose refusal the launch explains.
 */
export class PlatformKeySet {
  private cached: CachedKeys | undefined;
  private inFlight: Promise<CachedKeys> | undefined;
  private lastFetchStartedAt: number | undefined;
  private readonly cacheTtlMs: number;
  private readonly cooldownMs: number;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly fetchImpl: typeof fetch;
  private readonly now: () => number;

  constructor(private readonly options: PlatformKeySetOptions) {
    this.cacheTtlMs = options.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS;
    this.cooldownMs = options.cooldownMs ?? DEFAULT_COOLDOWN_MS;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.now = options.now ?? Date.now;
  }

  /** The usable key for `kid`; throws an {@link LtiError} when there is none or it is too weak. */
  async resolve(kid: string): Promise<PlatformKey> {
    const fresh = this.cached !== undefined && this.now() - this.cached.fetchedAt < this.cacheTtlMs;
    let key = (fresh ? this.cached! : await this.refresh()).keys.get(kid);
    // Unknown in a fresh set: the LMS may have rotated its key. Ask again, unless it was asked moments ago.
    if (!key && fresh) key = (await this.refresh()).keys.get(kid);
    if (!key) {
      throw tokenError('LTI_TOKEN_UNKNOWN_KEY', 'tokenKeyUnknown');
    }
    if (key.modulusBits < MIN_RSA_MODULUS_BITS) {
      throw new LtiError('LTI_PLATFORM_KEY_TOO_WEAK', 'weakPlatformKey', {
        key: 'weakPlatformKey',
        values: { bits: key.modulusBits, minimum: MIN_RSA_MODULUS_BITS },
      });
    }
    return key;
  }

  /** Forgets the cached set (tests, and operators after an LMS key incident). */
  clear(): void {
    this.cached = undefined;
  }

  private mayFetch(): boolean {
    return this.lastFetchStartedAt === undefined || this.now() - this.lastFetchStartedAt >= this.cooldownMs;
  }

  /** A fresh set when the cooldown allows a fetch (or one is under way); otherwise the cached one, however old. */
  private refresh(): Promise<CachedKeys> {
    if (this.inFlight === undefined && !this.mayFetch()) {
      if (this.cached) return Promise.resolve(this.cached);
      return Promise.reject(keysUnavailable({ detail: 'keySetCooldown' }));
    }
    // Requests that miss at the same moment share one fetch.
    this.inFlight ??= this.fetchKeys().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async fetchKeys(): Promise<CachedKeys> {
    this.lastFetchStartedAt = this.now();
    let body: unknown;
    try {
      const response = await this.fetchImpl(this.options.jwksUrl, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!response.ok) throw new Error(`key set answered ${response.status}`);
      body = JSON.parse(await readLimited(response, this.maxBytes));
    } catch (error) {
      // A stale set is better than none while the LMS is briefly unreachable; a rotated key will still be unknown.
      if (this.cached) return this.cached;
      throw keysUnavailable({ detail: 'keySetFailed', values: { reason: error instanceof Error ? error.message : 'fetch failed' } });
    }
    const keys = parseKeySet(body);
    this.cached = { keys, fetchedAt: this.now() };
    return this.cached;
  }
}

function keysUnavailable(detail: RefusalText): LtiError {
  return new LtiError('LTI_PLATFORM_KEYS_UNAVAILABLE', 'launchNotVerified', { key: 'keysUnavailable' }, [detail]);
}

function isBase64url(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{1,2048}$/.test(value);
}

async function readLimited(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) throw new Error('key set too large');
  if (!response.body) return '';
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > maxBytes) throw new Error('key set too large');
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The RS256-capable public RSA keys of a JWKS document, by `kid`. Other keys and malformed entries are skipped. */
export function parseKeySet(body: unknown): Map<string, PlatformKey> {
  const keys = new Map<string, PlatformKey>();
  const entries = body && typeof body === 'object' && Array.isArray((body as { keys?: unknown }).keys)
    ? ((body as { keys: unknown[] }).keys)
    : [];
  for (const entry of entries) {
    if (!entry || typeof entry !== 'object') continue;
    const jwk = entry as Record<string, unknown>;
    if (jwk.kty !== 'RSA' || typeof jwk.kid !== 'string' || !isBase64url(jwk.n) || !isBase64url(jwk.e)) continue;
    if (jwk.use !== undefined && jwk.use !== 'sig') continue;
    if (jwk.alg !== undefined && jwk.alg !== 'RS256') continue;
    try {
      // Only the public members are imported; a set that leaks `d` still yields a public key.
      const key = createPublicKey({ key: { kty: 'RSA', n: jwk.n, e: jwk.e }, format: 'jwk' });
      keys.set(jwk.kid, { kid: jwk.kid, key, modulusBits: key.asymmetricKeyDetails?.modulusLength ?? 0 });
    } catch {
      continue;
    }
  }
  return keys;
}
