import { describe, expect, it } from 'vitest';
import { KEYS_UPDATED_CALLBACK, captureExamBrowserApi, normalizeConfigKeyHash, readConfigKeyHash } from '../src/exam-browser.js';
import { KEY_HASH, LMS, asDomWindow, createWindow, manualTimers } from './support.js';

function withApi(security: unknown) {
  const win = createWindow(`${LMS}/courses/1/quizzes/2/take`);
  (win as unknown as { SafeExamBrowser: unknown }).SafeExamBrowser = { version: 'SEB_Windows_3.9', security };
  return asDomWindow(win);
}

describe('captureExamBrowserApi', () => {
  it('finds nothing in an ordinary browser', () => {
    expect(captureExamBrowserApi(asDomWindow(createWindow(LMS)))).toBeNull();
    expect(captureExamBrowserApi(withApi(null))).toBeNull();
    expect(captureExamBrowserApi(withApi('key'))).toBeNull();
  });

  it('captures the security object and its key', () => {
    const api = captureExamBrowserApi(withApi({ configKey: KEY_HASH }));
    expect(api?.initialConfigKey).toBe(KEY_HASH);
    expect(api?.updateKeys).toBeNull();
  });

  it('survives a throwing getter', () => {
    const win = createWindow(LMS);
    Object.defineProperty(win, 'SafeExamBrowser', {
      get() {
        throw new Error('boom');
      },
    });
    expect(captureExamBrowserApi(asDomWindow(win))).toBeNull();
  });
});

describe('normalizeConfigKeyHash', () => {
  it('accepts 64 hex digits and lowercases them', () => {
    expect(normalizeConfigKeyHash('A'.repeat(64))).toBe('a'.repeat(64));
    for (const bad of ['', 'a'.repeat(63), 'a'.repeat(65), 'g'.repeat(64), ` ${'a'.repeat(64)}`, 42, null]) {
      expect(normalizeConfigKeyHash(bad)).toBeNull();
    }
  });
});

describe('readConfigKeyHash', () => {
  it('uses the key directly when there is no updateKeys', async () => {
    const win = withApi({ configKey: KEY_HASH });
    expect(await readConfigKeyHash(captureExamBrowserApi(win)!, win, manualTimers())).toBe(KEY_HASH);
  });

  it('calls updateKeys with a named global callback and reads the refreshed key', async () => {
    const fresh = 'b'.repeat(64);
    const security: Record<string, unknown> = { configKey: KEY_HASH };
    let seenName = '';
    let globalAtCall: unknown;
    const win = withApi(security);
    security.updateKeys = (callback: () => void) => {
      seenName = callback.name;
      globalAtCall = (win as unknown as Record<string, unknown>)[callback.name];
      security.configKey = fresh;
      // One platform evaluates `name + "();"` in the page instead of calling the function it was given.
      setTimeout(() => (globalAtCall as () => void)(), 0);
    };
    const hash = await readConfigKeyHash(captureExamBrowserApi(win)!, win, manualTimers());
    expect(seenName).toBe(KEYS_UPDATED_CALLBACK);
    expect(typeof globalAtCall).toBe('function');
    expect(hash).toBe(fresh);
    expect((win as unknown as Record<string, unknown>)[KEYS_UPDATED_CALLBACK]).toBeUndefined();
  });

  it('accepts a synchronous callback', async () => {
    const security = { configKey: KEY_HASH, updateKeys: (callback: () => void) => callback() };
    const win = withApi(security);
    expect(await readConfigKeyHash(captureExamBrowserApi(win)!, win, manualTimers())).toBe(KEY_HASH);
  });

  it('falls back to the captured key when the callback never runs or updateKeys throws', async () => {
    const silent = withApi({ configKey: KEY_HASH, updateKeys: () => undefined });
    const timers = manualTimers();
    const pending = readConfigKeyHash(captureExamBrowserApi(silent)!, silent, timers);
    timers.fireTimeouts();
    expect(await pending).toBe(KEY_HASH);

    const throwing = withApi({
      configKey: KEY_HASH,
      updateKeys: () => {
        throw new Error('unsupported');
      },
    });
    expect(await readConfigKeyHash(captureExamBrowserApi(throwing)!, throwing, manualTimers())).toBe(KEY_HASH);
  });

  it('reads the security object captured at start, not a replacement global', async () => {
    const security: Record<string, unknown> = { configKey: KEY_HASH };
    const win = withApi(security);
    const api = captureExamBrowserApi(win)!;
    (win as unknown as { SafeExamBrowser: unknown }).SafeExamBrowser = { security: { configKey: 'c'.repeat(64) } };
    expect(await readConfigKeyHash(api, win, manualTimers())).toBe(KEY_HASH);
  });

  it('gives null when there is no usable key', async () => {
    const win = withApi({ configKey: undefined });
    expect(await readConfigKeyHash(captureExamBrowserApi(win)!, win, manualTimers())).toBeNull();
  });
});
