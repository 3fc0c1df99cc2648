import type { FetchFunction } from './http.js';

export interface PageLocation {
  /** The URL the page was loaded with, without fragment: the URL the exam browser hashes. */
  readonly href: string;
  readonly origin: string;
  readonly pathname: string;
}

export interface SchedulingTimers {
  setTimeout(handler: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  setInterval(handler: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

/** What the scripts take from the page, read once when they start so later page writes change nothing. */
export interface ScriptEnvironment {
  readonly window: Window;
  readonly document: Document;
  readonly fetch: FetchFunction;
  readonly location: PageLocation;
  readonly timers: SchedulingTimers;
  readonly now: () => number;
  readonly console: Pick<Console, 'debug'> | undefined;
}

export function withoutFragment(href: string): string {
  const hash = href.indexOf('#');
  return hash === -1 ? href : href.slice(0, hash);
}

export function captureScriptEnvironment(win: Window): ScriptEnvironment | null {
  const { fetch, location, document } = win;
  if (typeof fetch !== 'function' || location === undefined || document === undefined) return null;
  const boundFetch = fetch.bind(win);
  const setTimeoutRef = win.setTimeout.bind(win);
  const clearTimeoutRef = win.clearTimeout.bind(win);
  const setIntervalRef = win.setInterval.bind(win);
  const clearIntervalRef = win.clearInterval.bind(win);
  const dateNow = Date.now;
  return {
    window: win,
    document,
    fetch: (input, init) => boundFetch(input, init),
    location: { href: withoutFragment(location.href), origin: location.origin, pathname: location.pathname },
    timers: {
      setTimeout: (handler, ms) => setTimeoutRef(handler, ms),
      clearTimeout: (handle) => clearTimeoutRef(handle as number),
      setInterval: (handler, ms) => setIntervalRef(handler, ms),
      clearInterval: (handle) => clearIntervalRef(handle as number),
    },
    now: () => dateNow(),
    console: consoleOf(win),
  };
}

function consoleOf(win: Window): Pick<Console, 'debug'> | undefined {
  const candidate = (win as unknown as { console?: unknown }).console;
  return typeof candidate === 'object' && candidate !== null && typeof (candidate as Console).debug === 'function'
    ? (candidate as Console)
    : undefined;
}

/** Resolves once the document is parsed; theme scripts usually start after that already. */
export function domReady(doc: Document): Promise<void> {
  if (doc.readyState !== 'loading') return Promise.resolve();
  return new Promise((resolve) => doc.addEventListener('DOMContentLoaded', () => resolve(), { once: true }));
}
