import { hkdfSync } from 'node:crypto';

/**
 * Every purpose-specific key comes from APP_SECRET through HKDF-SHA256 with the purpose as `info`, so one leaked
 * sub-key never reveals another and no purpose ever reuses a key.
 */
export const KEY_PURPOSES = [
  'session-cookie',
  'one-time-store',
  'action-token',
  'transaction-binding',
  'exb-quit-hmac',
  'exb-grant',
  'settings-secrets',
  'course-reset-journal',
  'session-token',
] as const;

export type KeyPurpose = (typeof KEY_PURPOSES)[number];

export function deriveKey(appSecret: Buffer, purpose: KeyPurpose, length = 32): Buffer {
  return Buffer.from(hkdfSync('sha256', appSecret, Buffer.alloc(0), `exam-enforcement/${purpose}`, length));
}
