import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import { isoSeconds } from '../clock.js';

/** A platform signing key. Its `kid` is an ISO timestamp, as the LMS names its keys. */
export interface PlatformKey {
  kid: string;
  privateKey: KeyObject;
  publicJwk: JWK;
  bits: number;
}

export function generatePlatformKey(options: { bits?: number; kid?: string; now?: number } = {}): PlatformKey {
  const bits = options.bits ?? 2048;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: bits, publicExponent: 0x10001 });
  return platformKeyFrom(privateKey, options.kid ?? isoSeconds(options.now ?? Date.now()));
}

export function platformKeyFrom(privateKey: KeyObject, kid: string): PlatformKey {
  if (privateKey.asymmetricKeyType !== 'rsa') throw new Error('Platform keys are RSA keys');
  const exported = createPublicKey(privateKey).export({ format: 'jwk' });
  const bits = privateKey.asymmetricKeyDetails?.modulusLength ?? 0;
  return {
    kid,
    privateKey,
    bits,
    publicJwk: { kty: 'RSA', n: exported.n!, e: exported.e!, alg: 'RS256', use: 'sig', kid },
  };
}

/**
 * The platform's published key set. One key signs; rotation adds a newer key and keeps the older one published so
 * tokens already issued still verify.
 */
export class PlatformKeySet {
  private keys: PlatformKey[] = [];
  private signing!: PlatformKey;

  constructor(private readonly initial: PlatformKey) {
    this.reset();
  }

  reset(): void {
    this.keys = [this.initial];
    this.signing = this.initial;
  }

  get active(): PlatformKey {
    return this.signing;
  }

  published(): readonly PlatformKey[] {
    return this.keys;
  }

  /** `{ keys: [...] }` with public parts only. */
  jwks(): { keys: JWK[] } {
    return { keys: this.keys.map((key) => ({ ...key.publicJwk })) };
  }

  /** Adds a new signing key whose kid is later than every current one. */
  rotate(now: number, bits = 2048): PlatformKey {
    const latest = Math.max(now, ...this.keys.map((key) => Date.parse(key.kid) + 1000).filter(Number.isFinite));
    const key = generatePlatformKey({ bits, now: latest });
    this.publish(key, { activate: true });
    return key;
  }

  publish(key: PlatformKey, options: { activate?: boolean } = {}): void {
    if (this.keys.some((existing) => existing.kid === key.kid)) throw new Error(`A key with kid ${key.kid} is already published`);
    this.keys.push(key);
    if (options.activate) this.signing = key;
  }

  /** Stops publishing a key (its tokens no longer verify). */
  withdraw(kid: string): void {
    if (this.signing.kid === kid) throw new Error('Cannot withdraw the signing key; rotate first');
    this.keys = this.keys.filter((key) => key.kid !== kid);
  }
}
