import { createHash } from 'node:crypto';

export function sha256(data: string | Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export function sha1(data: Uint8Array): Buffer {
  return createHash('sha1').update(data).digest();
}

/**
 * The exam browser's password hash (`hashedQuitPassword`, `hashedAdminPassword`, the `pwcc` key): lowercase hex SHA-256
 * of the UTF-8 password. NFC first, because the macOS client normalizes typed input that way before hashing; for ASCII
 * passwords this changes nothing.
 */
export function hashExamBrowserPassword(password: string): string {
  return sha256Hex(password.normalize('NFC'));
}
