import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TokenKeyring } from '../../src/security/token-keyring.js';

const key = (kid: string) => ({ kid, key: randomBytes(32) });

describe('TokenKeyring', () => {
  it('seals under the first key with a fresh nonce and opens with the same associated data', () => {
    const keyring = new TokenKeyring([key('k2'), key('k1')]);
    const a = keyring.seal('1~access', 'ad');
    const b = keyring.seal('1~access', 'ad');
    expect(a.kid).toBe('k2');
    expect(a.ciphertext.equals(b.ciphertext)).toBe(false);
    expect(a.ciphertext.includes(Buffer.from('1~access'))).toBe(false);
    expect(keyring.open(a.kid, a.ciphertext, 'ad')).toBe('1~access');
  });

  it('fails on other associated data, an unknown key id or a flipped bit', () => {
    const keyring = new TokenKeyring([key('k1')]);
    const sealed = keyring.seal('1~access', 'record-1|user-2');
    expect(keyring.open('k1', sealed.ciphertext, 'record-1|user-3')).toBeNull();
    expect(keyring.open('k9', sealed.ciphertext, 'record-1|user-2')).toBeNull();
    const tampered = Buffer.from(sealed.ciphertext);
    tampered[tampered.length - 1]! ^= 1;
    expect(keyring.open('k1', tampered, 'record-1|user-2')).toBeNull();
  });

  it('opens values sealed under an older key after rotation', () => {
    const old = key('old');
    const sealed = new TokenKeyring([old]).seal('1~refresh', 'ad');
    const rotated = new TokenKeyring([key('new'), old]);
    expect(rotated.activeKid).toBe('new');
    expect(rotated.open(sealed.kid, sealed.ciphertext, 'ad')).toBe('1~refresh');
  });

  it('refuses an empty keyring, a wrong key length and duplicate ids', () => {
    expect(() => new TokenKeyring([])).toThrow();
    expect(() => new TokenKeyring([{ kid: 'a', key: randomBytes(16) }])).toThrow();
    expect(() => new TokenKeyring([key('a'), key('a')])).toThrow();
  });
});
