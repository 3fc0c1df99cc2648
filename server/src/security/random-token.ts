import { createHash, randomBytes } from 'node:crypto';

/** 32 random bytes as base64url: the 43-character token form of the contract (grants, proof tokens, states). */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

export function sha256Hex(value: string | Buffer): string {
  return createHash('sha256').update(value).digest('hex');
}
