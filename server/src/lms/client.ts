import { z } from 'zod';
import { LmsInvalidResponseError } from './errors.js';
import {
  classifyUnauthorized,
  Deadline,
  DEFAULT_BACKOFF,
  errorForResponse,
  parseJsonBody,
  sendWithRetry,
  type BackoffPolicy,
  type FetchLike,
  type RawResponse,
} from './http.js';
import { nextPageUrl, parseLinkHeader } from './pagination.js';

/** Where the client gets the user's bearer token; implemented by the OAuth token service. */
export interface AccessTokenSource {
  /** A usable access token, refreshed first when the stored one has expired. */
  current(operation: string): Promise<string>;
  /** The LMS rejected `rejected`: refresh (or take a refresh another request already made) and return the new token. */
  renew(operation: string, rejected: string): Promise<string>;
}

export interface LmsClientSettings {
  /** The LMS origin; every request and every followed page link stays on it. */
  lmsUrl: string;
  /** Defaults to the global fetch, looked up per request so test interceptors installed later still apply. */
  fetch?: FetchLike;
  /** Deadline of one call, retries included. */
  callDeadlineMs?: number;
  /** Deadline of a whole listing, every page included. */
  listDeadlineMs?: number;
  /** Cap on one response body. */
  maxResponseBytes?: number;
  /** Listings longer than this many pages fail rather than run on. */
  maxPages?: number;
  perPage?: number;
  backoff?: BackoffPolicy;
  /** Runs before every HTTP attempt of every call, retries and pages included (`BoundedRequest.beforeAttempt`). */
  beforeAttempt?: () => Promise<void>;
}

export const LMS_CALL_DEADLINE_MS = 15_000;
export const LMS_LIST_DEADLINE_MS = 45_000;
export const LMS_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
export const LMS_MAX_PAGES = 100;
export const LMS_PER_PAGE = 100;

export type QueryValue = string | number | boolean | readonly (string | number)[] | undefined | null;
export type Query = Record<string, QueryValue>;

export interface CallOptions {
  /** Overrides the configured deadline for this call. */
  deadlineMs?: number;
}

export interface Page<T> {
  items: T[];
  /** The opaque `page` value of the next page, or `null` on the last page. */
  nextPage: string | null;
}

/** Rails-style query: arrays as repeated `name[]=value`. */
function appendQuery(url: URL, query: Query | undefined): void {
  if (!query) return;
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value) url.searchParams.append(`${name}[]`, String(item));
    } else {
      url.searchParams.append(name, String(value));
    }
  }
}

/**
 * The one HTTP client for the LMS REST and new-quiz APIs, bound to one user's token source. Every call has a
 * deadline and a size cap, throttling is retried with backoff inside the deadline, a read the LMS failed once (server
 * error, dropped connection) is sent once more inside it, a rejected token gets exactly one refresh-and-retry, and
 * every failure leaves as a domain error from `errors.ts`.
 */
export class LmsClient {
  private readonly origin: string;
  private readonly settings: Required<Omit<LmsClientSettings, 'fetch' | 'beforeAttempt'>> & Pick<LmsClientSettings, 'fetch' | 'beforeAttempt'>;

  constructor(
    settings: LmsClientSettings,
    private readonly tokens: AccessTokenSource,
  ) {
    this.origin = new URL(settings.lmsUrl).origin;
    this.settings = {
      callDeadlineMs: LMS_CALL_DEADLINE_MS,
      listDeadlineMs: LMS_LIST_DEADLINE_MS,
      maxResponseBytes: LMS_MAX_RESPONSE_BYTES,
      maxPages: LMS_MAX_PAGES,
      perPage: LMS_PER_PAGE,
      backoff: DEFAULT_BACKOFF,
      ...settings,
    };
  }

  get lmsOrigin(): string {
    return this.origin;
  }

  url(path: string, query?: Query): URL {
    if (!path.startsWith('/api/')) throw new Error(`not an LMS API path: ${path}`);
    const url = new URL(path, this.origin);
    appendQuery(url, query);
    return url;
  }

  async get<S extends z.ZodType>(operation: string, path: string, schema: S, query?: Query, options?: CallOptions) {
    const response = await this.exchange(operation, 'GET', this.url(path, query), undefined, this.deadline(options));
    return this.parse(operation, response, schema);
  }

  async send<S extends z.ZodType>(
    operation: string,
    method: 'PUT' | 'PATCH' | 'POST',
    path: string,
    body: unknown,
    schema: S,
    options?: CallOptions,
  ) {
    const response = await this.exchange(operation, method, this.url(path), JSON.stringify(body), this.deadline(options));
    return this.parse(operation, response, schema);
  }

  /** The `Link` header of the first page of a listing (for the ids the LMS writes into its own page links). */
  async pageLinks(operation: string, path: string, query?: Query, options?: CallOptions): Promise<Map<string, string>> {
    const response = await this.exchange(operation, 'GET', this.url(path, { ...query, per_page: 1 }), undefined, this.deadline(options));
    parseJsonBody(operation, response);
    return parseLinkHeader(response.headers.get('link'));
  }

  /** Every page of a listing, following `Link: rel="next"` under one deadline. */
  async list<S extends z.ZodType>(
    operation: string,
    path: string,
    itemSchema: S,
    query?: Query,
    options: CallOptions & { unwrap?: (body: unknown) => unknown } = {},
  ): Promise<z.output<S>[]> {
    const deadline = new Deadline(options.deadlineMs ?? this.settings.listDeadlineMs);
    const pageSchema = z.array(itemSchema);
    const items: z.output<S>[] = [];
    let url: URL | null = this.url(path, { ...query, per_page: this.settings.perPage });
    const seen = new Set<string>();
    for (let pages = 0; url; pages += 1) {
      if (pages >= this.settings.maxPages) throw new LmsInvalidResponseError(operation, `more than ${this.settings.maxPages} pages`);
      if (seen.has(url.href)) throw new LmsInvalidResponseError(operation, 'pagination loops');
      seen.add(url.href);
      const response = await this.exchange(operation, 'GET', url, undefined, deadline);
      const body = parseJsonBody(operation, response);
      items.push(...this.validate(operation, response, options.unwrap ? options.unwrap(body) : body, pageSchema));
      url = this.followNext(operation, response, url);
    }
    return items;
  }

  /** One page of a listing; `page` is the opaque value a previous page returned as `nextPage`. */
  async listPage<S extends z.ZodType>(
    operation: string,
    path: string,
    itemSchema: S,
    query: Query | undefined,
    page: { page?: string; perPage: number },
    options?: CallOptions,
  ): Promise<Page<z.output<S>>> {
    const url = this.url(path, { ...query, per_page: page.perPage, page: page.page });
    const response = await this.exchange(operation, 'GET', url, undefined, this.deadline(options));
    const items = this.validate(operation, response, parseJsonBody(operation, response), z.array(itemSchema));
    const next = this.followNext(operation, response, url);
    return { items, nextPage: next?.searchParams.get('page') ?? null };
  }

  private followNext(operation: string, response: RawResponse, current: URL): URL | null {
    const next = nextPageUrl(response.headers.get('link'), current);
    if (next === 'unsafe') throw new LmsInvalidResponseError(operation, 'page link leaves the LMS endpoint');
    return next;
  }

  private deadline(options: CallOptions | undefined): Deadline {
    return new Deadline(options?.deadlineMs ?? this.settings.callDeadlineMs);
  }

  private async exchange(
    operation: string,
    method: 'GET' | 'PUT' | 'PATCH' | 'POST',
    url: URL,
    body: string | undefined,
    deadline: Deadline,
  ): Promise<RawResponse> {
    let token = await this.tokens.current(operation);
    for (let renewed = false; ; renewed = true) {
      const headers: Record<string, string> = {
        authorization: `Bearer ${token}`,
        // String ids keep large ids exact; numbers are accepted too when an LMS ignores the preference.
        accept: 'application/json+canvas-string-ids, application/json',
      };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await sendWithRetry(
        this.settings.fetch ?? globalThis.fetch,
        {
          operation,
          method,
          url,
          headers,
          ...(body === undefined ? {} : { body }),
          deadline,
          maxBytes: this.settings.maxResponseBytes,
          ...(this.settings.beforeAttempt ? { beforeAttempt: this.settings.beforeAttempt } : {}),
        },
        this.settings.backoff,
      );
      if (response.status >= 200 && response.status < 300) return response;
      if (response.status === 401 && !renewed && classifyUnauthorized(response) === 'token') {
        token = await this.tokens.renew(operation, token);
        continue;
      }
      throw errorForResponse(operation, response);
    }
  }

  private parse<S extends z.ZodType>(operation: string, response: RawResponse, schema: S): z.output<S> {
    return this.validate(operation, response, parseJsonBody(operation, response), schema);
  }

  private validate<S extends z.ZodType>(operation: string, response: RawResponse, body: unknown, schema: S): z.output<S> {
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      const where = parsed.error.issues[0]?.path.join('.') || 'body';
      throw new LmsInvalidResponseError(operation, `unexpected shape at ${where}`, response.status);
    }
    return parsed.data;
  }
}
