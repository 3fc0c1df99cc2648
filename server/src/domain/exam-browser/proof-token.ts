import { createHmac, randomFillSync, timingSafeEqual } from 'node:crypto';
import { isBase64UrlToken } from '@exb/shared/base64url-token.js';

/**
 * Proof tokens are stateless: 32 bytes, written as the contract's 43-character base64url token, holding the expiry
 * (6 bytes, epoch milliseconds of the service clock), the sequence number of the stored Config Key that proved (6
 * bytes, 0 for the configuration that is the same for everyone), a random nonce (4 bytes) and an HMAC-SHA-256 (first
 * 16 bytes) over all three and the course, content id and settings fingerprint the proof was made for. The key's
 * number lets the redemption name the student whose download proved, and refuse a proof whose download was voided
 * since (a re-admission). Minting one costs no database
 * write; the redemption verifies the MAC and the expiry in process and then spends the token with one conditional
 * insert of its id (its SHA-256, as for every stored token) in the transaction that issues the exit grant, so exactly
 * one redemption of a token ever succeeds, on any number of instances, and a failed write leaves it usable.
 */

const EXPIRY_BYTES = 6;
const KEY_SEQ_BYTES = 6;
const NONCE_BYTES = 4;
const MAC_BYTES = 16;
const BODY_BYTES = EXPIRY_BYTES + KEY_SEQ_BYTES + NONCE_BYTES;
/** The largest key number a token can carry; a sequence that ever passes it proves through the shared path only. */
const MAX_KEY_SEQ = 2 ** (8 * KEY_SEQ_BYTES) - 1;

/** What a verified token says: its expiry (epoch milliseconds) and the stored Config Key that proved, if one did. */
export interface VerifiedProof {
  readonly expiresAt: number;
  /** `config_key_seq` of the key that proved, as text; `null` for the configuration that is the same for everyone. */
  readonly keySeq: string | null;
}

export interface ProofBinding {
  readonly courseId: string;
  readonly contentId: string;
  readonly fingerprint: string;
}

export class ProofTokens {
  constructor(private readonly key: Buffer) {}

  issue(binding: ProofBinding, expiresAt: number, keySeq: string | null = null): string {
    const seq = keySeq === null ? 0 : Number(keySeq);
    if (!Number.isSafeInteger(seq) || seq < 0 || seq > MAX_KEY_SEQ) throw new RangeError('Config Key number out of range');
    const token = Buffer.allocUnsafe(BODY_BYTES + MAC_BYTES);
    token.writeUIntBE(expiresAt, 0, EXPIRY_BYTES);
    token.writeUIntBE(seq, EXPIRY_BYTES, KEY_SEQ_BYTES);
    randomFillSync(token, EXPIRY_BYTES + KEY_SEQ_BYTES, NONCE_BYTES);
    this.mac(token.subarray(0, BODY_BYTES), binding).copy(token, BODY_BYTES, 0, MAC_BYTES);
    return token.toString('base64url');
  }

  /** What the token says when it was minted by this service for this binding; `null` otherwise. */
  verify(token: string, binding: ProofBinding): VerifiedProof | null {
    if (!isBase64UrlToken(token)) return null;
    const bytes = Buffer.from(token, 'base64url');
    const expected = this.mac(bytes.subarray(0, BODY_BYTES), binding).subarray(0, MAC_BYTES);
    if (!timingSafeEqual(bytes.subarray(BODY_BYTES), expected)) return null;
    const seq = bytes.readUIntBE(EXPIRY_BYTES, KEY_SEQ_BYTES);
    return { expiresAt: bytes.readUIntBE(0, EXPIRY_BYTES), keySeq: seq === 0 ? null : String(seq) };
  }

  private mac(body: Buffer, binding: ProofBinding): Buffer {
    return createHmac('sha256', this.key)
      .update(body)
      .update(`\u0000${binding.courseId}\u0000${binding.contentId}\u0000${binding.fingerprint}`, 'utf8')
      .digest();
  }
}
