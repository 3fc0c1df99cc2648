/**
 * Headers of every response that carries, or answers a request for, a secret (proof tokens, access codes, exit grants,
 * revealed passwords): never stored by a browser or proxy, never sniffed, never sent on as a referrer.
 */
export const SENSITIVE_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store, max-age=0',
  pragma: 'no-cache',
  expires: '0',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
