import { hkdfSync } from 'node:crypto';
import { deriveKey } from './derived-keys.js';

export type ExamBrowserKeyInfo = 'token-payload' | 'config-key' | 'exam-key-salt' | 'start-password-salt' | 'proof-token';

/**
 * Sub-keys of the `exb-grant` purpose key, one per use, so sealing token payloads, sealing stored Config Keys,
 * deriving configuration salts and signing proof tokens never share a key.
 */
export function deriveExamBrowserKey(appSecret: Buffer, info: ExamBrowserKeyInfo): Buffer {
  const root = deriveKey(appSecret, 'exb-grant');
  return Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), `exb-student/${info}`, 32));
}
