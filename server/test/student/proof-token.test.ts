import { describe, expect, it } from 'vitest';
import { isBase64UrlToken } from '@exb/shared/base64url-token.js';
import { ProofTokens } from '../../src/domain/exam-browser/proof-token.js';

const binding = { courseId: '101', contentId: 'classicquiz_201', fingerprint: 'a'.repeat(64) };

describe('proof tokens', () => {
  const tokens = new ProofTokens(Buffer.alloc(32, 7));

  it('are 43-character canonical base64url tokens carrying their expiry', () => {
    const token = tokens.issue(binding, 1_800_000_000_123);
    expect(isBase64UrlToken(token)).toBe(true);
    expect(tokens.verify(token, binding)).toEqual({ expiresAt: 1_800_000_000_123, keySeq: null });
    expect(tokens.issue(binding, 1_800_000_000_123)).not.toBe(token);
  });

  it('carry the number of the stored Config Key that proved', () => {
    const token = tokens.issue(binding, 1_800_000_000_123, '281474976710655');
    expect(isBase64UrlToken(token)).toBe(true);
    expect(tokens.verify(token, binding)).toEqual({ expiresAt: 1_800_000_000_123, keySeq: '281474976710655' });
    expect(tokens.verify(tokens.issue(binding, 1_800_000_000_123, '42'), binding)?.keySeq).toBe('42');
    expect(() => tokens.issue(binding, 1_800_000_000_123, '281474976710656')).toThrow(RangeError);
  });

  it('verify only for the course, content and fingerprint, and the key, they were signed for', () => {
    const token = tokens.issue(binding, 1_800_000_000_000);
    expect(tokens.verify(token, { ...binding, courseId: '102' })).toBeNull();
    expect(tokens.verify(token, { ...binding, contentId: 'classicquiz_202' })).toBeNull();
    expect(tokens.verify(token, { ...binding, fingerprint: 'b'.repeat(64) })).toBeNull();
    expect(new ProofTokens(Buffer.alloc(32, 8)).verify(token, binding)).toBeNull();
  });

  it('refuse a changed expiry, key number or nonce and anything that is not a token', () => {
    const bytes = Buffer.from(tokens.issue(binding, 1_800_000_000_000, '7'), 'base64url');
    for (const index of [0, 5, 6, 11, 12, 15, 16, 31]) {
      const changed = Buffer.from(bytes);
      changed[index]! ^= 1;
      expect(tokens.verify(changed.toString('base64url'), binding)).toBeNull();
    }
    expect(tokens.verify('A'.repeat(43), binding)).toBeNull();
    expect(tokens.verify('short', binding)).toBeNull();
  });
});
