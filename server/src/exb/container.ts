import { constants, privateDecrypt, publicEncrypt, type KeyObject } from 'node:crypto';
import { constants as zlibConstants, gunzipSync, gzipSync } from 'node:zlib';
import type { ExbCertificate } from './certificate.js';
import { hashExamBrowserPassword } from './hash.js';
import { rncryptorDecrypt, rncryptorEncrypt, rncryptorEncryptWithKeys, type RncryptorKeys } from './rncryptor.js';

/**
 * Configuration files. Written in the canonical layout every client reads:
 *   gzip( "plnd" || gzip(xml) )
 *   gzip( "pswd" || RNCryptor(password, gzip(xml)) )
 *   gzip( "pkhs" || SHA-1(PKCS#1 key) || RSA-PKCS#1-v1.5 blocks of the inner "plnd…"/"pswd…" block )
 * Read leniently, as the Windows client does: outer gzip optional, plain XML, gzip(XML), un-gzipped payloads, `pwcc` and
 * `phsk`.
 */

export type ContainerPrefix = 'plnd' | 'pswd' | 'pwcc' | 'pkhs' | 'phsk';
export type ContainerLayer = ContainerPrefix | 'gzip';

export class ContainerError extends Error {
  override name = 'ContainerError';
}

export interface WriteContainerOptions {
  /** Encrypts the settings (`pswd`). ASCII only: the macOS client derives the key from a truncated UTF-8 string otherwise. */
  password?: string;
  /**
   * Instead of `password`: keys already derived from it (`rncryptorPrepareKeys`), so a writer of many files under one
   * password skips the key derivation; each file still gets a fresh IV.
   */
  passwordKeys?: RncryptorKeys;
  /** Wraps the block for this certificate's private key (`pkhs`). */
  certificate?: ExbCertificate;
}

export interface DecryptionIdentity {
  certificate: ExbCertificate;
  privateKey: KeyObject | string;
}

export interface ReadContainerOptions {
  /** For `pswd`; for `pwcc` the admin password, hashed here as the clients do (absent or empty means none). */
  password?: string;
  /** Candidates for `pkhs`/`phsk`, chosen by the key hash in the file. */
  identities?: readonly DecryptionIdentity[];
}

export interface ReadContainerResult {
  xml: Buffer;
  /** Outermost first, e.g. `['gzip', 'pkhs', 'pswd', 'gzip']` for the canonical encrypted layout. */
  layers: ContainerLayer[];
}

const XML_MAGIC = Buffer.from('<?xm', 'latin1');
const GZIP_MAGIC = Buffer.from([0x1f, 0x8b, 0x08]);
const PREFIX_LENGTH = 4;
const KEY_HASH_LENGTH = 20;
// The Windows client's chunking; anything up to k-11 would do for PKCS#1 v1.5.
const RSA_CHUNK_RESERVE = 32;
const PHSK_KEY_LENGTH = 32;
// Configurations are tens of kilobytes; the cap only stops decompression bombs.
const MAX_INFLATED_BYTES = 16 * 1024 * 1024;

export function writeContainer(xml: Uint8Array, options: WriteContainerOptions = {}): Buffer {
  if (!startsWith(xml, XML_MAGIC)) throw new ContainerError('settings must be an XML document starting with "<?xml"');
  const payload = gzipSync(xml);
  let block: Buffer;
  if (options.password !== undefined && options.passwordKeys !== undefined) {
    throw new ContainerError('give either a password or keys derived from one, not both');
  }
  if (options.passwordKeys !== undefined) {
    block = withPrefix('pswd', rncryptorEncryptWithKeys(payload, options.passwordKeys));
  } else if (options.password === undefined) {
    block = withPrefix('plnd', payload);
  } else {
    if (!/^[\x20-\x7e]+$/.test(options.password)) {
      throw new ContainerError('configuration passwords must be non-empty printable ASCII');
    }
    block = withPrefix('pswd', rncryptorEncrypt(payload, options.password));
  }
  if (options.certificate !== undefined) block = publicKeyBlock(block, options.certificate);
  // The outer layer wraps data that is already compressed or encrypted: stored blocks, valid gzip for every reader,
  // without a deflate search that finds nothing.
  return gzipSync(block, { level: zlibConstants.Z_NO_COMPRESSION });
}

function publicKeyBlock(inner: Buffer, certificate: ExbCertificate): Buffer {
  const chunkSize = certificate.modulusBytes - RSA_CHUNK_RESERVE;
  const parts: Buffer[] = [Buffer.from('pkhs', 'latin1'), certificate.pkhsKeyHash];
  for (let offset = 0; offset < inner.length; offset += chunkSize) {
    parts.push(
      publicEncrypt(
        { key: certificate.publicKey, padding: constants.RSA_PKCS1_PADDING },
        inner.subarray(offset, offset + chunkSize),
      ),
    );
  }
  return Buffer.concat(parts);
}

export function readContainer(file: Uint8Array, options: ReadContainerOptions = {}): ReadContainerResult {
  const layers: ContainerLayer[] = [];
  let data = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  if (startsWith(data, GZIP_MAGIC)) {
    data = inflate(data);
    layers.push('gzip');
  }
  return { xml: readBlock(data, options, layers, false), layers };
}

function readBlock(data: Buffer, options: ReadContainerOptions, layers: ContainerLayer[], insidePublicKey: boolean): Buffer {
  if (startsWith(data, XML_MAGIC)) return data;
  const prefix = data.subarray(0, PREFIX_LENGTH).toString('latin1');
  const body = data.subarray(PREFIX_LENGTH);
  switch (prefix) {
    case 'plnd':
      layers.push(prefix);
      return readPayload(body, layers);
    case 'pswd':
    case 'pwcc':
      layers.push(prefix);
      return readPayload(decryptPassword(body, passwordFor(prefix, options)), layers);
    case 'pkhs':
    case 'phsk': {
      if (insidePublicKey) throw new ContainerError('nested public-key blocks');
      layers.push(prefix);
      const inner = prefix === 'pkhs' ? decryptPkhs(body, options) : decryptPhsk(body, options);
      return readBlock(inner, options, layers, true);
    }
    default:
      throw new ContainerError('not a configuration file: unknown prefix');
  }
}

/** The Windows client takes an un-gzipped payload as XML; the macOS client always inflates. Both are read here. */
function readPayload(payload: Buffer, layers: ContainerLayer[]): Buffer {
  let xml = payload;
  if (startsWith(payload, GZIP_MAGIC)) {
    xml = inflate(payload);
    layers.push('gzip');
  }
  if (!startsWith(xml, XML_MAGIC)) throw new ContainerError('payload is not an XML property list');
  return xml;
}

function passwordFor(prefix: 'pswd' | 'pwcc', options: ReadContainerOptions): string {
  if (prefix === 'pwcc') {
    return options.password === undefined || options.password === '' ? '' : hashExamBrowserPassword(options.password);
  }
  if (options.password === undefined) throw new ContainerError('the configuration is password-protected');
  return options.password;
}

function decryptPassword(body: Buffer, password: string): Buffer {
  try {
    return rncryptorDecrypt(body, password);
  } catch (cause) {
    throw new ContainerError('could not decrypt the configuration', { cause });
  }
}

function identityFor(body: Buffer, options: ReadContainerOptions): DecryptionIdentity {
  if (body.length < KEY_HASH_LENGTH) throw new ContainerError('truncated public-key block');
  const keyHash = body.subarray(0, KEY_HASH_LENGTH);
  const identity = options.identities?.find((candidate) => candidate.certificate.pkhsKeyHash.equals(keyHash));
  if (identity === undefined) {
    throw new ContainerError(`no certificate matches the key hash ${keyHash.toString('hex')}`);
  }
  return identity;
}

function rsaDecrypt(identity: DecryptionIdentity, ciphertext: Buffer): Buffer {
  try {
    return privateDecrypt({ key: identity.privateKey, padding: constants.RSA_PKCS1_PADDING }, ciphertext);
  } catch (cause) {
    throw new ContainerError('RSA decryption failed', { cause });
  }
}

function decryptPkhs(body: Buffer, options: ReadContainerOptions): Buffer {
  const identity = identityFor(body, options);
  const blockSize = identity.certificate.modulusBytes;
  const ciphertext = body.subarray(KEY_HASH_LENGTH);
  if (ciphertext.length === 0 || ciphertext.length % blockSize !== 0) {
    throw new ContainerError('pkhs ciphertext is not a whole number of RSA blocks');
  }
  const parts: Buffer[] = [];
  for (let offset = 0; offset < ciphertext.length; offset += blockSize) {
    parts.push(rsaDecrypt(identity, ciphertext.subarray(offset, offset + blockSize)));
  }
  return Buffer.concat(parts);
}

/** `phsk`: key hash, little-endian int32 length, RSA-wrapped 32-byte key, RNCryptor keyed with base64 of that key. */
function decryptPhsk(body: Buffer, options: ReadContainerOptions): Buffer {
  const identity = identityFor(body, options);
  const lengthEnd = KEY_HASH_LENGTH + 4;
  if (body.length < lengthEnd) throw new ContainerError('truncated phsk block');
  const keyLength = body.readInt32LE(KEY_HASH_LENGTH);
  if (keyLength <= 0 || lengthEnd + keyLength > body.length) throw new ContainerError('invalid phsk key length');
  const key = rsaDecrypt(identity, body.subarray(lengthEnd, lengthEnd + keyLength));
  // With implicit rejection a wrong key decrypts to random bytes rather than failing; the length and the HMAC catch it.
  if (key.length !== PHSK_KEY_LENGTH) throw new ContainerError('invalid phsk symmetric key');
  return decryptPassword(body.subarray(lengthEnd + keyLength), key.toString('base64'));
}

function inflate(data: Buffer): Buffer {
  try {
    return gunzipSync(data, { maxOutputLength: MAX_INFLATED_BYTES });
  } catch (cause) {
    throw new ContainerError('invalid or oversized gzip data', { cause });
  }
}

function withPrefix(prefix: ContainerPrefix, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from(prefix, 'latin1'), payload]);
}

function startsWith(data: Uint8Array, magic: Buffer): boolean {
  return data.length >= magic.length && magic.every((byte, index) => data[index] === byte);
}
