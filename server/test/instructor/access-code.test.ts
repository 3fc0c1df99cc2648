import { describe, expect, it } from 'vitest';
import { ACCESS_CODE_ALPHABET, ACCESS_CODE_LENGTH, generateAccessCode, isGeneratedAccessCode } from '../../src/domain/enforcement/code-generator.js';

describe('access codes', () => {
  it('are 24 characters of a 32-symbol lower-case alphabet (120 bits)', () => {
    expect(ACCESS_CODE_ALPHABET).toHaveLength(32);
    expect(new Set(ACCESS_CODE_ALPHABET).size).toBe(32);
    expect(ACCESS_CODE_LENGTH * Math.log2(ACCESS_CODE_ALPHABET.length)).toBe(120);
    for (let index = 0; index < 200; index += 1) {
      const code = generateAccessCode();
      expect(isGeneratedAccessCode(code)).toBe(true);
      expect(code).toMatch(/^[0-9a-z]{24}$/);
      expect(code).not.toMatch(/[ilou]/);
      // Survives URL and form encoding unchanged.
      expect(encodeURIComponent(code)).toBe(code);
    }
  });

  it('do not repeat and use the whole alphabet evenly', () => {
    const codes = Array.from({ length: 2000 }, generateAccessCode);
    expect(new Set(codes).size).toBe(codes.length);
    const counts = new Map<string, number>();
    for (const character of codes.join('')) counts.set(character, (counts.get(character) ?? 0) + 1);
    expect(counts.size).toBe(32);
    const expected = (2000 * 24) / 32;
    for (const count of counts.values()) expect(Math.abs(count - expected) / expected).toBeLessThan(0.15);
  });
});
