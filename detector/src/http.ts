export type FetchFunction = (input: string, init?: RequestInit) => Promise<Response>;

export interface JsonResponse {
  readonly status: number;
  readonly body: unknown;
}

export interface Timers {
  setTimeout(handler: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const REQUEST_TIMEOUT_MS = 15_000;

/**
 * One request with a time limit, answered as status plus parsed JSON (`undefined` when the body is not JSON).
 * Network failures and timeouts give `null`; nothing throws.
 */
export async function requestJson(
  fetchFn: FetchFunction,
  timers: Timers,
  url: string,
  init: RequestInit,
  parse: (text: string) => unknown = JSON.parse,
): Promise<JsonResponse | null> {
  const controller = typeof AbortController === 'function' ? new AbortController() : null;
  const timer = timers.setTimeout(() => controller?.abort(), REQUEST_TIMEOUT_MS);
  try {
    const response = await fetchFn(url, controller === null ? init : { ...init, signal: controller.signal });
    const text = await response.text();
    let body: unknown;
    try {
      body = parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, body };
  } catch {
    return null;
  } finally {
    timers.clearTimeout(timer);
  }
}
