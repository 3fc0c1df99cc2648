import { describe, expect, it } from 'vitest';
import { httpUrl, optional, z } from '../src/lib/zod';

describe('httpUrl', () => {
  it('accepts absolute http and https addresses', () => {
    for (const url of ['https://a.example/path?q=1', 'http://127.0.0.1:3001/']) expect(httpUrl.safeParse(url).success, url).toBe(true);
  });

  it('refuses every other scheme, relative addresses and what is no text', () => {
    for (const url of ['javascript:alert(1)', 'data:text/html,x', 'ftp://a.example/', '/relative', '//a.example/', '', 42, null]) {
      expect(httpUrl.safeParse(url).success, String(url)).toBe(false);
    }
  });
});

describe('optional', () => {
  const schema = z.object({ name: optional(z.string().min(1)) });

  it('reads null and a missing field alike, as undefined', () => {
    expect(schema.parse({ name: null })).toEqual({ name: undefined });
    expect(schema.parse({})).toEqual({ name: undefined });
    expect(schema.parse({ name: 'x' })).toEqual({ name: 'x' });
  });

  it('still checks a value that is there', () => {
    expect(schema.safeParse({ name: '' }).success).toBe(false);
    expect(schema.safeParse({ name: 3 }).success).toBe(false);
  });
});
