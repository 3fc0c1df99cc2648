import { createHmac, randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { RncryptorError, rncryptorDecrypt, rncryptorEncrypt, rncryptorKey } from '../../src/exb/rncryptor.js';
import { readFixture } from './fixtures.js';

const hex = (text: string) => Buffer.from(text, 'hex');

// TV-R: RNCryptor-Spec vectors/v3/password
const VECTORS = [
  {
    title: 'One byte',
    password: 'thepassword',
    encryptionSalt: '0001020304050607',
    hmacSalt: '0102030405060708',
    iv: '02030405060708090a0b0c0d0e0f0001',
    plaintext: '01',
    ciphertext:
      '03010001020304050607010203040506070802030405060708090a0b0c0d0e0f0001a1f8730e0bf480eb7b70f690abf21e029514164ad3c474a51b30c7eaa1ca545b7de3de5b010acbad0a9a13857df696a8',
  },
  {
    title: 'More than one block',
    password: 'thepassword',
    encryptionSalt: '0203040506070001',
    hmacSalt: '0304050607080102',
    iv: '0405060708090a0b0c0d0e0f00010203',
    plaintext: '0123456789abcdef01234567',
    ciphertext:
      '0301020304050607000103040506070801020405060708090a0b0c0d0e0f00010203e01bbda5df2ca8adace38f6c588d291e03f951b78d3417bc2816581dc6b767f1a2e57597512b18e1638f21235fa5928c',
  },
  {
    title: 'Multibyte password',
    password: '中文密码',
    encryptionSalt: '0304050607000102',
    hmacSalt: '0405060708010203',
    iv: '05060708090a0b0c0d0e0f0001020304',
    plaintext: '23456789abcdef0123456701',
    ciphertext:
      '03010304050607000102040506070801020305060708090a0b0c0d0e0f00010203048a9e08bdec1c4bfe13e81fb85f009ab3ddb91387e809c4ad86d9e8a6014557716657bd317d4bb6a7644615b3de402341',
  },
];

describe('RNCryptor', () => {
  it('KDF vector "Short password"', () => {
    expect(rncryptorKey('thepassword', hex('0203040506070801')).toString('hex')).toBe(
      '0ea84f5252310dc3e3a7607c33bfd1eb580805fb68293005da21037ccf499626',
    );
  });

  it.each(VECTORS)('encrypts the v3 vector "$title"', (vector) => {
    const encrypted = rncryptorEncrypt(hex(vector.plaintext), vector.password, {
      encryptionSalt: hex(vector.encryptionSalt),
      hmacSalt: hex(vector.hmacSalt),
      iv: hex(vector.iv),
    });
    expect(encrypted.toString('hex')).toBe(vector.ciphertext);
  });

  it.each(VECTORS)('decrypts the v3 vector "$title"', (vector) => {
    expect(rncryptorDecrypt(hex(vector.ciphertext), vector.password).toString('hex')).toBe(vector.plaintext);
  });

  it('round-trips with random salts and IV, including empty input and an empty password', () => {
    for (const [plaintext, password] of [
      [randomBytes(1000), 'secret'],
      [Buffer.alloc(0), 'secret'],
      [Buffer.from('pwcc without admin password'), ''],
    ] as const) {
      const encrypted = rncryptorEncrypt(plaintext, password);
      expect(encrypted.subarray(0, 2)).toEqual(Buffer.from([3, 1]));
      expect(rncryptorDecrypt(encrypted, password)).toEqual(plaintext);
    }
    const a = rncryptorEncrypt(Buffer.from('same'), 'pw');
    const b = rncryptorEncrypt(Buffer.from('same'), 'pw');
    expect(a.equals(b)).toBe(false);
  });

  it('accepts version byte 2 with a valid HMAC', () => {
    const vector = VECTORS[1]!;
    const message = hex(vector.ciphertext);
    message[0] = 2;
    const body = message.subarray(0, message.length - 32);
    createHmac('sha256', rncryptorKey(vector.password, hex(vector.hmacSalt))).update(body).digest().copy(message, body.length);
    expect(rncryptorDecrypt(message, vector.password).toString('hex')).toBe(vector.plaintext);
  });

  it('rejects a flipped bit anywhere in the message', () => {
    const message = hex(VECTORS[1]!.ciphertext);
    for (let index = 0; index < message.length; index++) {
      const tampered = Buffer.from(message);
      tampered[index]! ^= 0x01;
      expect(() => rncryptorDecrypt(tampered, 'thepassword'), `byte ${index}`).toThrow(RncryptorError);
    }
  });

  it('reports an HMAC mismatch for a wrong password or modified ciphertext', () => {
    const message = hex(VECTORS[0]!.ciphertext);
    expect(() => rncryptorDecrypt(message, 'wrongpassword')).toThrow(/HMAC/);
    const tampered = Buffer.from(message);
    tampered[40]! ^= 0x80;
    expect(() => rncryptorDecrypt(tampered, 'thepassword')).toThrow(/HMAC/);
  });

  it('rejects other versions, non-password options and malformed lengths', () => {
    const message = hex(VECTORS[0]!.ciphertext);
    for (const version of [0, 1, 4]) {
      const other = Buffer.from(message);
      other[0] = version;
      expect(() => rncryptorDecrypt(other, 'thepassword')).toThrow(/version/);
    }
    const keyBased = Buffer.from(message);
    keyBased[1] = 0;
    expect(() => rncryptorDecrypt(keyBased, 'thepassword')).toThrow(/password-based/);
    expect(() => rncryptorDecrypt(message.subarray(0, message.length - 1), 'thepassword')).toThrow(/length/);
    expect(() => rncryptorDecrypt(message.subarray(0, 60), 'thepassword')).toThrow(/length/);
    expect(() => rncryptorDecrypt(Buffer.alloc(0), 'thepassword')).toThrow(/length/);
  });

  it('refuses parameters of the wrong size', () => {
    expect(() =>
      rncryptorEncrypt(Buffer.from('x'), 'pw', { encryptionSalt: randomBytes(7), hmacSalt: randomBytes(8), iv: randomBytes(16) }),
    ).toThrow(RncryptorError);
  });

  it.each([
    ['encrypted.seb', 'test', 'eab81673ca127b5a', 'af514e185f8d15fe', '62d4e07d6525e6ec829b4dec6ba1ab83', 2854, 21181],
    ['importTest_123.seb', '123', undefined, undefined, undefined, 3670, 26534],
  ])('TV-F: decrypts the version-2 payload of %s', (name, password, encryptionSalt, hmacSalt, iv, blockLength, xmlLength) => {
    const block = gunzipSync(readFixture(name));
    expect(block).toHaveLength(blockLength);
    expect(block.subarray(0, 4).toString('latin1')).toBe('pswd');
    const message = block.subarray(4);
    expect(message.subarray(0, 2)).toEqual(Buffer.from([2, 1]));
    if (encryptionSalt !== undefined) {
      expect(message.subarray(2, 10).toString('hex')).toBe(encryptionSalt);
      expect(message.subarray(10, 18).toString('hex')).toBe(hmacSalt);
      expect(message.subarray(18, 34).toString('hex')).toBe(iv);
    }
    const xml = gunzipSync(rncryptorDecrypt(message, password));
    expect(xml).toHaveLength(xmlLength);
    expect(xml.subarray(0, 5).toString('latin1')).toBe('<?xml');
    expect(() => rncryptorDecrypt(message, `${password}x`)).toThrow(/HMAC/);
  });
});
