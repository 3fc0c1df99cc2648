import { fetchUrlFor } from './schemes.js';

/**
 * Fetches a configuration the way the exam browser does: `seb(s)://` becomes `http(s)://` and any other scheme but
 * http(s) is refused (`schemes.ts`), a fresh client without the user's cookies asks `HEAD` first (falling back to a
 * `GET` when `HEAD` is refused), then `GET`s the data. A `401` or an HTML answer is not a configuration: the real browser
 * opens such a URL as a page instead.
 */

export interface DownloadRequest {
  method: 'HEAD' | 'GET';
  status: number;
}

export interface DownloadedConfiguration {
  /** The http(s) URL actually fetched. */
  url: string;
  /** Every request made, in order, for tests of the one-time download rules. */
  requests: DownloadRequest[];
  headers: Headers;
  bytes: Buffer;
}

export interface DownloadOptions {
  /** Stands in for the global `fetch` (tests with an in-process server). */
  fetch?: typeof fetch;
  userAgent?: string;
}

export class ConfigurationDownloadError extends Error {
  override name = 'ConfigurationDownloadError';

  constructor(
    message: string,
    readonly url: string,
    readonly status: number,
    readonly requests: DownloadRequest[],
    /** True where the real browser would have shown the response as a page rather than failing. */
    readonly openedAsPage: boolean,
  ) {
    super(message);
  }
}

export const SIMULATOR_USER_AGENT = 'SEB/3.10.0 (exam-browser simulator)';

export async function downloadConfiguration(launchUrl: string, options: DownloadOptions = {}): Promise<DownloadedConfiguration> {
  const url = fetchUrlFor(launchUrl);
  const doFetch = options.fetch ?? fetch;
  const headers = { 'user-agent': options.userAgent ?? SIMULATOR_USER_AGENT, accept: '*/*' };
  const requests: DownloadRequest[] = [];
  // Node's fetch keeps no cookie jar, so, like the browser's fresh download client, no request carries cookies.
  const request = async (method: 'HEAD' | 'GET') => {
    const response = await doFetch(url, { method, headers, redirect: 'follow' });
    requests.push({ method, status: response.status });
    return response;
  };

  const head = await request('HEAD').catch(() => undefined);
  if (head !== undefined) await head.body?.cancel();
  if (head === undefined || !(head.ok || head.status === 401)) {
    const check = await request('GET');
    await check.body?.cancel();
    if (!check.ok && check.status !== 401) throw failure(`availability check answered ${check.status}`, url, check.status, requests);
  }

  const response = await request('GET');
  const bytes = Buffer.from(await response.arrayBuffer());
  const contentType = response.headers.get('content-type') ?? '';
  if (response.status === 401 || /^text\/html\b/i.test(contentType)) {
    throw failure('the response is a page, not a configuration', url, response.status, requests, true);
  }
  if (!response.ok) throw failure(`download answered ${response.status}`, url, response.status, requests);
  return { url, requests, headers: response.headers, bytes };
}

function failure(message: string, url: string, status: number, requests: DownloadRequest[], openedAsPage = false) {
  return new ConfigurationDownloadError(`${message}: ${url}`, url, status, [...requests], openedAsPage);
}
