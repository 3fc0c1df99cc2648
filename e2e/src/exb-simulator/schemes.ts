/**
 * The URL schemes the exam browser knows, as Safe Exam Browser for Windows defines them. The simulator keeps its own
 * copy of the rule rather than the service's, so a launch URL the service gets wrong fails here as it would on a
 * student's computer.
 *
 * - The operating system hands the browser only the schemes it registers: `seb` and `sebs`
 *   (`SafeExamBrowser.Configuration/ConfigurationData/DataValues.cs`, `SebUriScheme`, `SebUriSchemeSecure`).
 * - Its resource loader fetches `seb`, `sebs`, `http` and `https` URLs and nothing else, replacing `seb` by `http` and
 *   `sebs` by `https` with host, path and query unchanged (`DataResources/NetworkResourceLoader.cs`, `SupportedSchemes`,
 *   `GetSchemeFor`).
 */

const REGISTERED: Readonly<Record<string, string>> = { 'seb:': 'http:', 'sebs:': 'https:' };

/** Whether the operating system would start the exam browser for this link (a `seb://` or `sebs://` URL). */
export function isRegisteredLaunchUrl(url: string): boolean {
  return REGISTERED[schemeOf(url) ?? ''] !== undefined;
}

/**
 * The http(s) URL the exam browser fetches for a `seb(s)://` or `http(s)://` URL; any other scheme (`exbs://` among
 * them) is refused, as the resource loader refuses it.
 */
export function fetchUrlFor(url: string): string {
  const scheme = schemeOf(url);
  const replacement = scheme === undefined ? undefined : REGISTERED[scheme];
  const href = replacement === undefined ? url : replacement + url.slice(scheme!.length);
  const parsed = new URL(href);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new Error(`the exam browser does not load ${parsed.protocol}// URLs (it knows seb, sebs, http and https)`);
  }
  return parsed.href;
}

function schemeOf(url: string): string | undefined {
  const colon = url.indexOf(':');
  return colon < 0 ? undefined : url.slice(0, colon + 1).toLowerCase();
}
