import { describe, expect, it } from 'vitest';
import { LtiError } from '../../src/lti/errors.js';
import { parseKeySet, PlatformKeySet } from '../../src/lti/platform-keys.js';
import { keySetFetch, rsaKey } from './token-fixtures.js';

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof LtiError) return error.code;
    throw error;
  }
  return undefined;
}

describe('platform key set', () => {
  const first = rsaKey('2026-01-01T00:00:00Z');
  const second = rsaKey('2026-02-01T00:00:00Z');

  it('fetches once and serves known keys from the cache', async () => {
    const { fetchImpl, calls } = keySetFetch(() => [first.jwk]);
    const keys = new PlatformKeySet({ jwksUrl: 'https://lms.example.test/jwks', fetch: fetchImpl });
    expect((await keys.resolve(first.kid)).modulusBits).toBe(2048);
    await keys.resolve(first.kid);
    expect(calls.count).toBe(1);
  });

  it('refetches on an unknown kid once the cooldown has passed, and finds a rotated key', async () => {
    let now = 0;
    let published = [first.jwk];
    const { fetchImpl, calls } = keySetFetch(() => published);
    const keys = new PlatformKeySet({ jwksUrl: 'https://lms.example.test/jwks', fetch: fetchImpl, now: () => now });
    await keys.resolve(first.kid);
    published = [first.jwk, second.jwk];
    now = 30_000;
    expect((await keys.resolve(second.kid)).kid).toBe(second.kid);
    expect(calls.count).toBe(2);
  });

  it('fetches at most once per cooldown for made-up kids, and picks up a real rotation after it', async () => {
    let now = 0;
    let published = [first.jwk];
    const { fetchImpl, calls } = keySetFetch(() => published);
    const keys = new PlatformKeySet({ jwksUrl: 'https://lms.example.test/jwks', fetch: fetchImpl, now: () => now, cooldownMs: 30_000 });
    await keys.resolve(first.kid);
    for (let i = 0; i < 30; i += 1) {
      now += 500;
      expect(await codeOf(keys.resolve(`made-up-${i}`))).toBe('LTI_TOKEN_UNKNOWN_KEY');
    }
    // The first launch after the start fetched; the 30 forged ones within 15 s fetched once more at most.
    expect(calls.count).toBeLessThanOrEqual(2);
    expect((await keys.resolve(first.kid)).kid).toBe(first.kid);

    published = [first.jwk, second.jwk];
    now += 30_000;
    expect((await keys.resolve(second.kid)).kid).toBe(second.kid);
    expect(calls.count).toBeLessThanOrEqual(3);
  });

  it('counts concurrent made-up kids as one fetch', async () => {
    let now = 0;
    const { fetchImpl, calls } = keySetFetch(() => [first.jwk]);
    const keys = new PlatformKeySet({ jwksUrl: 'x:', fetch: fetchImpl, now: () => now });
    await keys.resolve(first.kid);
    now = 60_000;
    const codes = await Promise.all(Array.from({ length: 30 }, (_, i) => codeOf(keys.resolve(`made-up-${i}`))));
    expect(new Set(codes)).toEqual(new Set(['LTI_TOKEN_UNKNOWN_KEY']));
    expect(calls.count).toBe(2);
  });

  it('shares one fetch among concurrent misses', async () => {
    const { fetchImpl, calls } = keySetFetch(() => [first.jwk]);
    const keys = new PlatformKeySet({ jwksUrl: 'https://lms.example.test/jwks', fetch: fetchImpl });
    await Promise.all(Array.from({ length: 10 }, () => keys.resolve(first.kid)));
    expect(calls.count).toBe(1);
  });

  it('fetches again once the cache is older than its lifetime', async () => {
    let now = 0;
    const { fetchImpl, calls } = keySetFetch(() => [first.jwk]);
    const keys = new PlatformKeySet({ jwksUrl: 'x:', fetch: fetchImpl, cacheTtlMs: 1000, cooldownMs: 100, now: () => now });
    await keys.resolve(first.kid);
    now = 1500;
    await keys.resolve(first.kid);
    expect(calls.count).toBe(2);
  });

  it('refuses a key under 2048 bits with its own explanation', async () => {
    const weak = rsaKey('weak', 1024);
    const { fetchImpl } = keySetFetch(() => [weak.jwk]);
    const keys = new PlatformKeySet({ jwksUrl: 'x:', fetch: fetchImpl });
    const error = await keys.resolve('weak').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LtiError);
    expect((error as LtiError).code).toBe('LTI_PLATFORM_KEY_TOO_WEAK');
    expect((error as LtiError).message).toContain('1024-bit');
  });

  it('reports an unreachable key set without a cache, and keeps serving a cached one', async () => {
    let now = 0;
    let failing = true;
    let calls = 0;
    const fetchImpl = (async () => {
      calls += 1;
      if (failing) throw new Error('connect ECONNREFUSED');
      return new Response(JSON.stringify({ keys: [first.jwk] }));
    }) as unknown as typeof fetch;
    const keys = new PlatformKeySet({ jwksUrl: 'x:', fetch: fetchImpl, now: () => now, cacheTtlMs: 60_000 });
    expect(await codeOf(keys.resolve(first.kid))).toBe('LTI_PLATFORM_KEYS_UNAVAILABLE');
    // Within the cooldown a failed fetch is not tried again.
    expect(await codeOf(keys.resolve(first.kid))).toBe('LTI_PLATFORM_KEYS_UNAVAILABLE');
    expect(calls).toBe(1);
    failing = false;
    now = 30_000;
    await keys.resolve(first.kid);
    failing = true;
    now = 60_000;
    expect(await codeOf(keys.resolve('other'))).toBe('LTI_TOKEN_UNKNOWN_KEY');
    now = 120_000;
    expect((await keys.resolve(first.kid)).kid).toBe(first.kid);
    expect(calls).toBe(4);
  });

  it('refuses an oversized key set', async () => {
    const fetchImpl = (async () => new Response('x'.repeat(70 * 1024))) as unknown as typeof fetch;
    const keys = new PlatformKeySet({ jwksUrl: 'x:', fetch: fetchImpl });
    expect(await codeOf(keys.resolve(first.kid))).toBe('LTI_PLATFORM_KEYS_UNAVAILABLE');
  });

  it('keeps only RSA signing keys usable with RS256', () => {
    const parsed = parseKeySet({
      keys: [
        first.jwk,
        { ...second.jwk, kid: 'enc', use: 'enc' },
        { ...second.jwk, kid: 'ps', alg: 'PS256' },
        { kty: 'EC', kid: 'ec', crv: 'P-256', x: 'a', y: 'b' },
        { kty: 'RSA', kid: 'broken', n: '!!', e: 'AQAB' },
        'junk',
      ],
    });
    expect([...parsed.keys()]).toEqual([first.kid]);
  });
});
