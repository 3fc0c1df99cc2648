import { createCipheriv, createDecipheriv, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * RNCryptor password format (v3 written; v2 read as well, it differs only in the version byte):
 * version(1) options(1)=0x01 encryptionSalt(8) hmacSalt(8) iv(16) AES-256-CBC/PKCS#7 ciphertext, then
 * HMAC-SHA256 over everything before it. Keys are PBKDF2-HMAC-SHA1, 10 000 rounds, 32 bytes, from the UTF-8 password.
 */

const WRITE_VERSION = 3;
const READABLE_VERSIONS = new Set([2, 3]);
const OPTION_PASSWORD = 0x01;
const SALT_LENGTH = 8;
const IV_LENGTH = 16;
const HEADER_LENGTH = 2 + 2 * SALT_LENGTH + IV_LENGTH;
const HMAC_LENGTH = 32;
const AES_BLOCK = 16;
const PBKDF2_ROUNDS = 10_000;
const KEY_LENGTH = 32;

export class RncryptorError extends Error {
  override name = 'RncryptorError';
}

export interface RncryptorParameters {
  encryptionSalt: Uint8Array;
  hmacSalt: Uint8Array;
  iv: Uint8Array;
}

/**
 * The key derivation. An empty password is allowed although the RNCryptor spec forbids it: the exam browser uses one for
 * `pwcc` files without an admin password.
 */
export function rncryptorKey(password: string, salt: Uint8Array): Buffer {
  return pbkdf2Sync(Buffer.from(password, 'utf8'), salt, PBKDF2_ROUNDS, KEY_LENGTH, 'sha1');
}

/**
 * Salts and the two keys derived from a password. Deriving costs two PBKDF2 runs of 10 000 rounds, so a writer that
 * encrypts many files under one password derives once and varies only the IV per file.
 */
export interface RncryptorKeys {
  readonly encryptionSalt: Buffer;
  readonly hmacSalt: Buffer;
  readonly encryptionKey: Buffer;
  readonly hmacKey: Buffer;
}

export function rncryptorPrepareKeys(
  password: string,
  salts?: Pick<RncryptorParameters, 'encryptionSalt' | 'hmacSalt'>,
): RncryptorKeys {
  const encryptionSalt = Buffer.from(salts?.encryptionSalt ?? randomBytes(SALT_LENGTH));
  const hmacSalt = Buffer.from(salts?.hmacSalt ?? randomBytes(SALT_LENGTH));
  if (encryptionSalt.length !== SALT_LENGTH || hmacSalt.length !== SALT_LENGTH) {
    throw new RncryptorError('salts must be 8 bytes and the IV 16 bytes');
  }
  return {
    encryptionSalt,
    hmacSalt,
    encryptionKey: rncryptorKey(password, encryptionSalt),
    hmacKey: rncryptorKey(password, hmacSalt),
  };
}

/** Fixed parameters exist for the published test vectors; production calls leave them random. */
export function rncryptorEncrypt(plaintext: Uint8Array, password: string, parameters?: RncryptorParameters): Buffer {
  return rncryptorEncryptWithKeys(plaintext, rncryptorPrepareKeys(password, parameters), parameters?.iv);
}

/** Encrypts with keys derived beforehand; the IV is fresh for every message unless a test vector fixes it. */
export function rncryptorEncryptWithKeys(plaintext: Uint8Array, keys: RncryptorKeys, fixedIv?: Uint8Array): Buffer {
  const iv = fixedIv ?? randomBytes(IV_LENGTH);
  if (iv.length !== IV_LENGTH) throw new RncryptorError('salts must be 8 bytes and the IV 16 bytes');
  const cipher = createCipheriv('aes-256-cbc', keys.encryptionKey, iv);
  const body = Buffer.concat([
    Uint8Array.of(WRITE_VERSION, OPTION_PASSWORD),
    keys.encryptionSalt,
    keys.hmacSalt,
    iv,
    cipher.update(plaintext),
    cipher.final(),
  ]);
  return Buffer.concat([body, hmac(keys.hmacKey, body)]);
}

/** Authenticates before decrypting, so a wrong password and a modified message fail the same way. */
export function rncryptorDecrypt(message: Uint8Array, password: string): Buffer {
  const data = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  const ciphertextLength = data.length - HEADER_LENGTH - HMAC_LENGTH;
  if (ciphertextLength < AES_BLOCK || ciphertextLength % AES_BLOCK !== 0) {
    throw new RncryptorError('message length is not that of an RNCryptor message');
  }
  const version = data[0]!;
  if (!READABLE_VERSIONS.has(version)) throw new RncryptorError(`unsupported RNCryptor version ${version}`);
  if (data[1] !== OPTION_PASSWORD) throw new RncryptorError('not a password-based RNCryptor message');

  const encryptionSalt = data.subarray(2, 2 + SALT_LENGTH);
  const hmacSalt = data.subarray(2 + SALT_LENGTH, 2 + 2 * SALT_LENGTH);
  const iv = data.subarray(2 + 2 * SALT_LENGTH, HEADER_LENGTH);
  const body = data.subarray(0, data.length - HMAC_LENGTH);
  const expected = hmac(rncryptorKey(password, hmacSalt), body);
  if (!timingSafeEqual(expected, data.subarray(data.length - HMAC_LENGTH))) {
    throw new RncryptorError('HMAC mismatch: wrong password or modified data');
  }
  try {
    const decipher = createDecipheriv('aes-256-cbc', rncryptorKey(password, encryptionSalt), iv);
    return Buffer.concat([decipher.update(data.subarray(HEADER_LENGTH, data.length - HMAC_LENGTH)), decipher.final()]);
  } catch (cause) {
    throw new RncryptorError('invalid padding', { cause });
  }
}

function hmac(key: Buffer, data: Uint8Array): Buffer {
  return createHmac('sha256', key).update(data).digest();
}
