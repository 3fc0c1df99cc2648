/**
 * The URL that starts the exam browser. The contract calls the exam browser's scheme `exbs://`, a placeholder for the
 * schemes a stock Safe Exam Browser registers with the operating system: `sebs://` for `https://` and `seb://` for
 * `http://` (SEB for Windows `SafeExamBrowser.Configuration/ConfigurationData/DataValues.cs`, `SebUriSchemeSecure`,
 * `SebUriScheme`). Nothing registers `exbs://`, so a link with it would start nothing on a student's computer.
 *
 * Only the scheme is replaced, with host, path and query unchanged: SEB rewrites it back the same way before it fetches
 * (`DataResources/NetworkResourceLoader.cs` `GetSchemeFor`), so the URL the browser fetches is exactly the one the
 * service built. Every launch URL the service hands out is made here.
 */

const LAUNCH_SCHEME: Readonly<Record<string, string>> = { 'https:': 'sebs:', 'http:': 'seb:' };

/** `https://host/path?q` → `sebs://host/path?q`; `http://…` → `seb://…`. */
export function toExbLaunchUrl(httpUrl: string): string {
  const url = new URL(httpUrl);
  const scheme = LAUNCH_SCHEME[url.protocol];
  if (scheme === undefined) throw new Error('only http(s) URLs can be opened in the exam browser');
  return scheme + url.href.slice(url.protocol.length);
}
