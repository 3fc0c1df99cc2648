import { isIP } from 'node:net';

/**
 * Which `X-Forwarded-*` hops the service believes (Fastify's `trustProxy`): none, the nearest `hops` proxies, or the
 * proxies at the listed addresses. Never every hop: then any client names its own address (and so escapes every
 * per-address budget) by sending `X-Forwarded-For`.
 */
export type TrustProxy = false | number | string[];

// Names proxy-addr (Fastify's resolver) understands for the usual private ranges.
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const MAX_HOPS = 16;

export const TRUST_PROXY_HINT =
  'give the number of proxies in front of the service (e.g. 1) or their addresses and CIDR ranges (e.g. 10.0.0.5,10.1.0.0/16)';

function isAddressOrRange(entry: string): boolean {
  if (RANGE_NAMES.has(entry) || isIP(entry) !== 0) return true;
  const slash = entry.lastIndexOf('/');
  if (slash < 0) return false;
  const family = isIP(entry.slice(0, slash));
  const prefix = entry.slice(slash + 1);
  if (family === 0 || !/^\d{1,3}$/.test(prefix)) return false;
  // A /0 range is every address: the same as trusting every hop.
  return Number(prefix) >= 1 && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** Reads `TRUST_PROXY`; throws with a message for the operator when the value is not one of the accepted forms. */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const setting = value?.trim().toLowerCase() ?? 'false';
  if (setting === 'false' || setting === '0') return false;
  if (setting === 'true') throw new Error(`"true" would trust X-Forwarded-For from every client; ${TRUST_PROXY_HINT}`);
  if (/^\d+$/.test(setting)) {
    const hops = Number(setting);
    if (hops > MAX_HOPS) throw new Error(`at most ${MAX_HOPS} proxy hops; ${TRUST_PROXY_HINT}`);
    return hops;
  }
  const entries = setting.split(',').map((entry) => entry.trim()).filter(Boolean);
  const invalid = entries.filter((entry) => !isAddressOrRange(entry));
  if (entries.length === 0 || invalid.length > 0) {
    throw new Error(`${invalid.length > 0 ? `"${invalid.join('", "')}" is not an address or CIDR range` : 'no addresses'}; ${TRUST_PROXY_HINT}`);
  }
  return entries;
}

/**
 * The setting as Fastify's `trustProxy` option. Fastify ignores a bare hop count (it cannot check that the nearest
 * peer is a proxy), so a count becomes a trust function over the hop index: the `hops` nearest hops are believed. That
 * is only sound while clients cannot reach the service around those proxies, which docs/operations.md says.
 */
export function fastifyTrustProxy(setting: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting;
  return (_address, hop) => hop < setting;
}
