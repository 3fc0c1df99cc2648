/**
 * The exam browser is started through its own URL schemes: `exbs://` stands for `https://` and `exb://` for `http://`,
 * with host, path and query unchanged (the same convention as `sebs://`/`seb://`). Only the scheme is replaced, so the
 * URL the browser fetches is exactly the one the service built.
 */

const TO_EXB: Readonly<Record<string, string>> = { 'https:': 'exbs:', 'http:': 'exb:' };
const FROM_EXB: Readonly<Record<string, string>> = { 'exbs:': 'https:', 'exb:': 'http:' };

/** `https://host/path?q` → `exbs://host/path?q`. */
export function toExbLaunchUrl(httpUrl: string): string {
  const url = new URL(httpUrl);
  const scheme = TO_EXB[url.protocol];
  if (scheme === undefined) throw new Error('only http(s) URLs can be opened in the exam browser');
  return scheme + url.href.slice(url.protocol.length);
}

/** `exbs://host/path?q` → `https://host/path?q`; http(s) URLs are returned as they are. */
export function fromExbLaunchUrl(launchUrl: string): string {
  const colon = launchUrl.indexOf(':');
  const scheme = colon < 0 ? undefined : launchUrl.slice(0, colon + 1).toLowerCase();
  const replacement = scheme === undefined ? undefined : FROM_EXB[scheme];
  const href = replacement === undefined ? launchUrl : replacement + launchUrl.slice(colon + 1);
  const url = new URL(href);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('not an exam-browser or http(s) URL');
  return url.href;
}
