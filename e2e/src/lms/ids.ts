import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export function sha1Hex(value: string): string {
  return createHash('sha1').update(value).digest('hex');
}

/** The 40-hex opaque identifiers the LMS uses for contexts and users in LTI messages. */
export function opaqueId(kind: string, id: number | string): string {
  return sha1Hex(`${kind}:${id}`);
}

/** A stable UUID-shaped id derived from a name, so seeded data gets the same LTI ids on every run. */
export function stableUuid(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  const variant = ((parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(18, 20)}-${hex.slice(20, 32)}`;
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Token strings look like the LMS's: a shard prefix, a tilde and a long opaque string. */
export function lmsTokenString(): string {
  return `1~${randomBytes(48).toString('base64url')}`;
}

export function hmac(secret: Uint8Array, value: string): string {
  return createHmac('sha256', secret).update(value).digest('base64url');
}

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
