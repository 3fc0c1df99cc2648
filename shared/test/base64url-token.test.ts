import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BASE64URL_TOKEN_LENGTH, isBase64UrlToken } from '../src/base64url-token.js';
import { base64UrlTokenSchema } from '../src/base64url-token-schema.js';

describe('base64url tokens', () => {
  it('accepts every encoding of 32 random bytes', () => {
    for (let i = 0; i < 500; i += 1) {
      const token = randomBytes(32).toString('base64url');
      expect(token).toHaveLength(BASE64URL_TOKEN_LENGTH);
      expect(isBase64UrlToken(token), token).toBe(true);
      expect(base64UrlTokenSchema.safeParse(token).success).toBe(true);
    }
  });

  it('accepts the extreme canonical tokens', () => {
    expect(isBase64UrlToken('A'.repeat(43))).toBe(true);
    expect(isBase64UrlToken(`${'_'.repeat(42)}w`)).toBe(true);
    expect(isBase64UrlToken(Buffer.alloc(32, 0xff).toString('base64url'))).toBe(true);
  });

  it('rejects a non-canonical last character that decodes to the same bytes', () => {
    const token = Buffer.alloc(32, 0).toString('base64url');
    const alias = `${token.slice(0, 42)}B`;
    expect(Buffer.from(alias, 'base64url').equals(Buffer.from(token, 'base64url'))).toBe(true);
    expect(isBase64UrlToken(alias)).toBe(false);
    expect(base64UrlTokenSchema.safeParse(alias).success).toBe(false);
  });

  it('rejects wrong lengths, padding, standard base64 and other characters', () => {
    const good = 'A'.repeat(43);
    const bad = [
      '',
      'A'.repeat(42),
      'A'.repeat(44),
      `${good}=`,
      `${'A'.repeat(42)}=`,
      `${'+'.repeat(42)}A`,
      `${'/'.repeat(42)}A`,
      `${'A'.repeat(41)} A`,
      `${'A'.repeat(42)}\n`,
      `${'Ａ'.repeat(42)}A`,
      `${'A'.repeat(41)}.A`,
      `${'A'.repeat(41)}%A`,
    ];
    for (const value of bad) {
      expect(isBase64UrlToken(value), JSON.stringify(value)).toBe(false);
      expect(base64UrlTokenSchema.safeParse(value).success, JSON.stringify(value)).toBe(false);
    }
  });

  it('rejects values that are not strings', () => {
    for (const value of [null, undefined, 43, ['A'.repeat(43)], { toString: () => 'A'.repeat(43) }]) {
      expect(isBase64UrlToken(value)).toBe(false);
      expect(base64UrlTokenSchema.safeParse(value).success).toBe(false);
    }
  });
});
