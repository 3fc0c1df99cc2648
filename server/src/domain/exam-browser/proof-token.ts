import { createHmac, randomFillSync, timingSafeEqual } from 'node:crypto';
import { isBase64UrlToken } from '@exb/shared/base64url-token.js';

/**
 * Proof tokens are stateless: 32 bytes, written as the contract's 43-character base64url token, holding the expiry
 * (6 bytes, epoch milliseconds of the service clock), a random nonce (10 bytes) and an HMAC-SHA-256 (first 16 bytes)
 * over both and the course, content id and settings fingerprint the proof was made for. Minting one costs no database
 * write; the redemption verifies the MAC and the expiry in process and then spends the token with one conditional
 * insert of its id (its SHA-256, as for every stored token) in the transaction that issues the exit grant, so exactly
 * one redemption of a token ever succeeds, on any number of instances, and a failed write leaves it usable.
 */

const EXPIRY_BYTES = 6;
const NONCE_BYTES = 10;
const MAC_BYTES = 16;
const BODY_BYTES = EXPIRY_BYTES + NONCE_BYTES;

export interface ProofBinding {
  readonly courseId: string;
  readonly contentId: string;
  readonly fingerprint: string;
}

export class ProofTokens {
  constructor(private readonly key: Buffer) {}

  issue(binding: ProofBinding, expiresAt: number): string {
    const token = Buffer.allocUnsafe(BODY_BYTES + MAC_BYTES);
    token.writeUIntBE(expiresAt, 0, EXPIRY_BYTES);
    randomFillSync(token, EXPIRY_BYTES, NONCE_BYTES);
    this.mac(token.subarray(0, BODY_BYTES), binding).copy(token, BODY_BYTES, 0, MAC_BYTES);
    return token.toString('base64url');
  }

  /** The token's expiry (epoch milliseconds) when it was minted by this service for this binding; `null` otherwise. */
  verify(token: string, binding: ProofBinding): number | null {
    if (!isBase64UrlToken(token)) return null;
    const bytes = Buffer.from(token, 'base64url');
    const expected = this.mac(bytes.subarray(0, BODY_BYTES), binding).subarray(0, MAC_BYTES);
    if (!timingSafeEqual(bytes.subarray(BODY_BYTES), expected)) return null;
    return bytes.readUIntBE(0, EXPIRY_BYTES);
  }

  private mac(body: Buffer, binding: ProofBinding): Buffer {
    return createHmac('sha256', this.key)
      .update(body)
      .update(`\u0000${binding.courseId}\u0000${binding.contentId}\u0000${binding.fingerprint}`, 'utf8')
      .digest();
  }
}
