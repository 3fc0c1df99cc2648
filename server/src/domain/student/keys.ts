import { hkdfSync } from 'node:crypto';
import { deriveKey } from '../../security/derived-keys.js';

export type StudentKeyInfo = 'token-payload' | 'config-key' | 'exam-key-salt' | 'start-password-salt';

/**
 * Sub-keys of the `exb-grant` purpose key, one per use, so sealing token payloads, sealing stored Config Keys and
 * deriving configuration salts never share a key.
 */
export function deriveStudentKey(appSecret: Buffer, info: StudentKeyInfo): Buffer {
  const root = deriveKey(appSecret, 'exb-grant');
  return Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), `exb-student/${info}`, 32));
}
