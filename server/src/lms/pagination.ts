/**
 * `Link` header handling (note §4.1). Entries are `<URL>; rel="name"` joined by commas; URLs are opaque (the page may
 * be a number or a bookmark) and are followed as given, after checking they stay on the same LMS endpoint.
 */
export function parseLinkHeader(header: string | null | undefined): Map<string, string> {
  const links = new Map<string, string>();
  if (!header) return links;
  // A URL may itself contain commas (bookmarks, encoded arrays), so entries are found by their `<...>` shape.
  const entry = /<([^>]*)>((?:\s*;\s*[^;,<]+)*)/g;
  for (const match of header.matchAll(entry)) {
    const url = match[1]!.trim();
    const params = match[2] ?? '';
    const rel = /(?:^|;)\s*rel\s*=\s*"?([^";]+)"?/i.exec(params)?.[1];
    if (!rel) continue;
    for (const name of rel.trim().toLowerCase().split(/\s+/)) {
      if (!links.has(name)) links.set(name, url);
    }
  }
  return links;
}

/**
 * The `next` page URL when it is safe to follow: absolute, on the LMS origin and the same path as the request. A
 * link to anywhere else would carry the user's bearer token there, so it ends the listing with an error instead.
 */
export function nextPageUrl(header: string | null | undefined, current: URL): URL | null | 'unsafe' {
  const next = parseLinkHeader(header).get('next');
  if (next === undefined) return null;
  let url: URL;
  try {
    url = new URL(next);
  } catch {
    return 'unsafe';
  }
  if (url.origin !== current.origin || url.pathname !== current.pathname || url.username || url.password) {
    return 'unsafe';
  }
  url.hash = '';
  return url;
}
