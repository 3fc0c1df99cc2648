import { createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

export interface TestKey {
  kid: string;
  privateKey: KeyObject;
  jwk: Record<string, unknown>;
}

export function rsaKey(kid: string, bits = 2048): TestKey {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: bits });
  const exported = createPublicKey(privateKey).export({ format: 'jwk' });
  return { kid, privateKey, jwk: { kty: 'RSA', n: exported.n, e: exported.e, alg: 'RS256', use: 'sig', kid } };
}

/**
 * Signs a compact JWS directly with node:crypto, so tests can produce what a library would refuse to (1024-bit keys,
 * odd headers).
 */
export function signJwt(payload: Record<string, unknown>, key: KeyObject, header: Record<string, unknown>): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${encode({ typ: 'JWT', ...header })}.${encode(payload)}`;
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

/** A fetch that serves a key set and counts how often it was asked. */
export function keySetFetch(keys: () => Record<string, unknown>[]) {
  const calls = { count: 0 };
  const fetchImpl = (async () => {
    calls.count += 1;
    return new Response(JSON.stringify({ keys: keys() }), { headers: { 'content-type': 'application/json' } });
  }) as unknown as typeof fetch;
  return { fetchImpl, calls };
}
