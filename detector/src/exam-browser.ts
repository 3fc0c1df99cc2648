/**
 * The exam browser's page API: `SafeExamBrowser.security.configKey` holds the config key hash for this page's URL, and
 * `updateKeys(callback)` refreshes it. One platform runs the callback by evaluating `callback.name + "();"`, so the
 * callback must be a global function whose `name` is its global name, which minification would otherwise rename.
 */
export const KEYS_UPDATED_CALLBACK = '__exbDetectorKeysUpdated';

const KEY_UPDATE_TIMEOUT_MS = 3000;
const CONFIG_KEY_HASH = /^[0-9a-fA-F]{64}$/;

export interface ExamBrowserApi {
  /** The `security` object as found at start; later reads go to this object, not to whatever the global says then. */
  readonly security: { readonly configKey?: unknown };
  readonly initialConfigKey: unknown;
  readonly updateKeys: ((callback: () => void) => void) | null;
}

interface ExamBrowserGlobal {
  SafeExamBrowser?: unknown;
}

/** The page API if this page runs inside the exam browser, else `null`. */
export function captureExamBrowserApi(win: Window): ExamBrowserApi | null {
  try {
    const api = (win as unknown as ExamBrowserGlobal).SafeExamBrowser;
    if (typeof api !== 'object' || api === null) return null;
    const security = (api as { security?: unknown }).security;
    if (typeof security !== 'object' || security === null) return null;
    const updateKeys = (security as { updateKeys?: unknown }).updateKeys;
    return {
      security: security as { configKey?: unknown },
      initialConfigKey: (security as { configKey?: unknown }).configKey,
      updateKeys: typeof updateKeys === 'function' ? (updateKeys as (callback: () => void) => void) : null,
    };
  } catch {
    return null;
  }
}

/** A config key hash as the page API reports it: 64 hex digits, returned in lower case. */
export function normalizeConfigKeyHash(value: unknown): string | null {
  return typeof value === 'string' && CONFIG_KEY_HASH.test(value) ? value.toLowerCase() : null;
}

export interface KeyTimers {
  setTimeout(handler: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * The config key hash for this page. Where `updateKeys` exists it is called first and the refreshed value read once
 * the callback runs; if the callback never comes, the value captured at start is used.
 */
export function readConfigKeyHash(api: ExamBrowserApi, win: Window, timers: KeyTimers): Promise<string | null> {
  const initial = normalizeConfigKeyHash(api.initialConfigKey);
  const updateKeys = api.updateKeys;
  if (updateKeys === null) return Promise.resolve(initial);

  return new Promise((resolve) => {
    const globals = win as unknown as Record<string, unknown>;
    let settled = false;
    const finish = (value: string | null) => {
      if (settled) return;
      settled = true;
      timers.clearTimeout(timer);
      if (globals[KEYS_UPDATED_CALLBACK] === callback) delete globals[KEYS_UPDATED_CALLBACK];
      resolve(value);
    };
    const callback = function keysUpdated() {
      let fresh: string | null = null;
      try {
        fresh = normalizeConfigKeyHash(api.security.configKey);
      } catch {
        fresh = null;
      }
      finish(fresh ?? initial);
    };
    Object.defineProperty(callback, 'name', { value: KEYS_UPDATED_CALLBACK });
    const timer = timers.setTimeout(() => finish(initial), KEY_UPDATE_TIMEOUT_MS);
    globals[KEYS_UPDATED_CALLBACK] = callback;
    try {
      updateKeys.call(api.security, callback);
    } catch {
      finish(initial);
    }
  });
}
