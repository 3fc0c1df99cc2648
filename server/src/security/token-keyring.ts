import { open, seal } from './aead.js';

/** One key of `TOKEN_ENCRYPTION_KEYS`: its id, stored with every ciphertext it seals, and 32 bytes of AES-256 key. */
export interface TokenEncryptionKey {
  kid: string;
  key: Buffer;
}

export interface SealedValue {
  kid: string;
  ciphertext: Buffer;
}

/**
 * The keyring for LMS OAuth tokens (`TOKEN_ENCRYPTION_KEYS`), independent of APP_SECRET so tokens can be rotated or
 * revoked without touching sessions, and a leaked APP_SECRET does not expose LMS access. The first key seals; every key
 * opens, so rows written under an older key stay readable until `migrate-tokens` re-seals them.
 */
export class TokenKeyring {
  private readonly byKid: ReadonlyMap<string, Buffer>;
  readonly activeKid: string;

  constructor(keys: readonly TokenEncryptionKey[]) {
    const first = keys[0];
    if (!first) throw new Error('the token keyring needs at least one key');
    for (const { kid, key } of keys) {
      if (key.length !== 32) throw new Error(`token key "${kid}" must be 32 bytes`);
    }
    this.byKid = new Map(keys.map(({ kid, key }) => [kid, key]));
    if (this.byKid.size !== keys.length) throw new Error('token key ids must be unique');
    this.activeKid = first.kid;
  }

  has(kid: string): boolean {
    return this.byKid.has(kid);
  }

  /** Seals under the active key with a fresh nonce; the associated data must be given again to open. */
  seal(plaintext: string, associatedData: string): SealedValue {
    const key = this.byKid.get(this.activeKid)!;
    return { kid: this.activeKid, ciphertext: seal(key, Buffer.from(plaintext, 'utf8'), associatedData) };
  }

  /** The plaintext, or `null` for an unknown key id, a tampered ciphertext or different associated data. */
  open(kid: string, ciphertext: Buffer, associatedData: string): string | null {
    const key = this.byKid.get(kid);
    if (!key) return null;
    return open(key, ciphertext, associatedData)?.toString('utf8') ?? null;
  }
}
