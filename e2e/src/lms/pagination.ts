import { parseNestedParams, toRailsQuery } from './params.js';

export const DEFAULT_PER_PAGE = 10;
export const MAX_PER_PAGE = 100;

export interface Page<T> {
  items: T[];
  /** The `Link` header value. */
  link: string;
}

export interface PageOptions {
  /** False for collections whose total the LMS does not count: no `rel="last"`. */
  countTotal?: boolean;
  /** The path the links use; default the request's. Routes built from a resolved record name it by its number. */
  path?: string;
  defaultPerPage?: number;
}

function positiveInt(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value)) return undefined;
  const parsed = Number(value);
  return parsed >= 1 ? parsed : undefined;
}

/**
 * Slices a collection the way the LMS paginates: `per_page` defaults to 10 and is clamped to 1..100, `page` counts
 * from 1, a page past the end is empty, and the `Link` header lists `current`, `next`, `prev`, `first` and `last`
 * (in that order, comma-joined without spaces). Link URLs keep the request's query minus paging and credentials,
 * re-serialised with sorted keys, then `page` and `per_page`. Some collections do not count their total and
 * therefore omit `last`.
 */
export function paginate<T>(baseUrl: string, url: URL, items: readonly T[], options: PageOptions = {}): Page<T> {
  const countTotal = options.countTotal ?? true;
  const requested = positiveInt(url.searchParams.get('per_page'));
  const perPage = Math.min(MAX_PER_PAGE, Math.max(1, requested ?? options.defaultPerPage ?? DEFAULT_PER_PAGE));
  const page = positiveInt(url.searchParams.get('page')) ?? 1;
  const start = (page - 1) * perPage;
  const pageItems = items.slice(start, start + perPage);
  const lastPage = Math.max(1, Math.ceil(items.length / perPage));

  const kept = [...url.searchParams.entries()].filter(
    ([key]) => !['page', 'per_page', 'access_token', 'api_key'].includes(key),
  );
  const query = toRailsQuery(parseNestedParams(kept));
  const path = options.path ?? url.pathname;
  const linkTo = (n: number) => `${baseUrl}${path}?${query ? `${query}&` : ''}page=${n}&per_page=${perPage}`;

  const links: string[] = [`<${linkTo(page)}>; rel="current"`];
  if (start + perPage < items.length) links.push(`<${linkTo(page + 1)}>; rel="next"`);
  if (page > 1) links.push(`<${linkTo(page - 1)}>; rel="prev"`);
  links.push(`<${linkTo(1)}>; rel="first"`);
  if (countTotal) links.push(`<${linkTo(lastPage)}>; rel="last"`);
  return { items: pageItems, link: links.join(',') };
}

/** Parses a `Link` header into rel → URL (for tests and clients of the mock). */
export function parseLinkHeader(header: string | null): Record<string, string> {
  const links: Record<string, string> = {};
  if (!header) return links;
  for (const part of header.split(',')) {
    const match = /<([^>]*)>;\s*rel="([^"]+)"/.exec(part.trim());
    if (match) links[match[2]!] = match[1]!;
  }
  return links;
}
