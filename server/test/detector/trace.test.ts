import { afterAll, describe, expect, it } from 'vitest';
import { DETECTOR_TRACE_ROUTE } from '@exb/shared/service-paths.js';
import {
  isSecretKey,
  REDACTED,
  sanitizeTraceValue,
  TRACE_BODY_LIMIT_BYTES,
  TRACE_LIMITS,
  TRUNCATED,
} from '../../src/lms-scripts/trace.js';
import { detectorApp, fakeDistDir, LMS, routeContext, type ContextOverrides, type DetectorApp } from './harness.js';

const dist = fakeDistDir();
afterAll(() => dist.remove());

const PROOF_TOKEN = 'Zx9_q3VtY0pLm2NbRc8dE4fG5hJ6kL7mN8pQ1rS2tU3';
const KEY_HASH = 'a3f1c2d4e5b6a7980112233445566778899aabbccddeeff00112233445566778';
const ACCESS_CODE = 'plum-427';
const EXIT_GRANT = 'Gr4nt_abcdefghijklmnopqrstuvwxyz0123456789AB';
const SECRETS = [PROOF_TOKEN, KEY_HASH, ACCESS_CODE, EXIT_GRANT];

const ALL_ON: ContextOverrides = { debugEnabled: true, testbedEnabled: true };

async function post(d: DetectorApp, payload: unknown, headers: Record<string, string> = { origin: LMS }) {
  return d.app.inject({
    method: 'POST',
    url: DETECTOR_TRACE_ROUTE.path,
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(payload),
  });
}

const EVENT = { source: 'detector', step: 'access-proof', outcome: 'ok', page: 'classic-take' };

describe('diagnostics guards', () => {
  it.each<{ why: string; overrides: ContextOverrides; headers: Record<string, string> }>([
    { why: 'neither debug nor diagnostics', overrides: { testbedEnabled: true }, headers: { origin: LMS } },
    { why: 'testbed off (debug on)', overrides: { debugEnabled: true }, headers: { origin: LMS } },
    { why: 'testbed off (diagnostics on)', overrides: { detectorDiagnosticsEnabled: true }, headers: { origin: LMS } },
    { why: 'no Origin header', overrides: ALL_ON, headers: {} },
    { why: 'another origin', overrides: ALL_ON, headers: { origin: 'https://evil.example.test' } },
    { why: 'the LMS host over http', overrides: ALL_ON, headers: { origin: 'http://lms.example.test' } },
    { why: 'the LMS origin on another port', overrides: ALL_ON, headers: { origin: `${LMS}:8443` } },
    { why: 'the LMS origin with a trailing slash', overrides: ALL_ON, headers: { origin: `${LMS}/` } },
    { why: 'an opaque origin', overrides: ALL_ON, headers: { origin: 'null' } },
  ])('$why: 200 { enabled: false } and nothing recorded', async ({ overrides, headers }) => {
    const d = await detectorApp(routeContext(overrides), { distDir: dist.dir });
    try {
      const response = await post(d, { ...EVENT, accessCode: ACCESS_CODE }, headers);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ enabled: false });
      expect(response.headers['cache-control']).toBe('no-store');
      expect(d.traceEntries()).toEqual([]);
      expect(d.logText()).not.toContain(ACCESS_CODE);
      expect(d.logText()).not.toContain('access-proof');
    } finally {
      await d.app.close();
    }
  });

  it('records a sanitized event with all guards met (debug)', async () => {
    const d = await detectorApp(routeContext(ALL_ON), { distDir: dist.dir });
    try {
      const response = await post(
        d,
        {
          ...EVENT,
          accessCode: ACCESS_CODE,
          access_code: ACCESS_CODE,
          proofToken: PROOF_TOKEN,
          'x-exb-configkeyhash': KEY_HASH,
          configkeyhash: KEY_HASH,
          nested: { exitGrant: EXIT_GRANT, detail: { authorization: `Bearer ${PROOF_TOKEN}`, password: 'hunter2', list: [KEY_HASH] } },
          message: `proof ${PROOF_TOKEN} for ${KEY_HASH} failed`,
          url: `https://lms.example.test/courses/1/quizzes/2/take?grant=${EXIT_GRANT}`,
          errorCode: 'INVALID_EXB_CONFIG_PROOF',
        },
        { origin: LMS, 'user-agent': 'Mozilla/5.0 SEB/3.4', referer: `${LMS}/courses/1/quizzes/2/take?x=${ACCESS_CODE}` },
      );
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ enabled: true });
      const entries = d.traceEntries();
      expect(entries).toHaveLength(1);
      const entry = entries[0]!;
      expect(entry.level).toBe(30);
      expect(entry.msg).toBe('detector trace');
      expect(entry.detectorTrace).toEqual({
        origin: LMS,
        event: {
          ...EVENT,
          accessCode: REDACTED,
          access_code: REDACTED,
          proofToken: REDACTED,
          'x-exb-configkeyhash': REDACTED,
          configkeyhash: REDACTED,
          nested: { exitGrant: REDACTED, detail: { authorization: REDACTED, password: REDACTED, list: [REDACTED] } },
          message: `proof ${REDACTED} for ${REDACTED} failed`,
          url: `https://lms.example.test/courses/1/quizzes/2/take?grant=${REDACTED}`,
          errorCode: 'INVALID_EXB_CONFIG_PROOF',
        },
      });
      for (const secret of [...SECRETS, 'hunter2']) expect(d.logText()).not.toContain(secret);
    } finally {
      await d.app.close();
    }
  });

  it('adds request detail when diagnostics is on', async () => {
    const d = await detectorApp(routeContext({ detectorDiagnosticsEnabled: true, testbedEnabled: true }), { distDir: dist.dir });
    try {
      const response = await post(d, EVENT, {
        origin: LMS,
        'user-agent': 'Mozilla/5.0 SEB/3.4',
        referer: `${LMS}/courses/1/quizzes/2/take?access_code=${ACCESS_CODE}`,
      });
      expect(response.json()).toEqual({ enabled: true });
      expect(d.traceEntries()[0]!.detectorTrace).toEqual({
        origin: LMS,
        event: EVENT,
        client: { userAgent: 'Mozilla/5.0 SEB/3.4', referer: `${LMS}/courses/1/quizzes/2/take?access_code=${REDACTED}` },
      });
      expect(d.logText()).not.toContain(ACCESS_CODE);
    } finally {
      await d.app.close();
    }
  });

  it('accepts any JSON value', async () => {
    const d = await detectorApp(routeContext(ALL_ON), { distDir: dist.dir });
    try {
      for (const payload of ['step', 42, true, null, [1, 'two']]) {
        const response = await post(d, payload);
        expect(response.json()).toEqual({ enabled: true });
      }
      expect(d.traceEntries().map((entry) => (entry.detectorTrace as { event: unknown }).event)).toEqual([
        'step',
        42,
        true,
        null,
        [1, 'two'],
      ]);
    } finally {
      await d.app.close();
    }
  });

  it('the 121st event within 60 seconds from the LMS origin answers 429', async () => {
    const d = await detectorApp(routeContext(ALL_ON), { distDir: dist.dir });
    try {
      for (let i = 0; i < 120; i += 1) {
        const response = await post(d, EVENT);
        expect(response.statusCode).toBe(200);
      }
      const refused = await post(d, { ...EVENT, step: 'over-budget' });
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(refused.json()).toMatchObject({ success: false, error_code: 'RATE_LIMITED' });
      expect(d.traceEntries()).toHaveLength(120);
      expect(d.logText()).not.toContain('over-budget');
      // Requests the guards refuse are not counted and still answer as disabled.
      const other = await post(d, EVENT, { origin: 'https://evil.example.test' });
      expect(other.statusCode).toBe(200);
      expect(other.json()).toEqual({ enabled: false });
    } finally {
      await d.app.close();
    }
  });

  it('a body above the limit answers 413 without recording', async () => {
    const d = await detectorApp(routeContext(ALL_ON), { distDir: dist.dir });
    try {
      const response = await post(d, { step: 'big', filler: 'x'.repeat(TRACE_BODY_LIMIT_BYTES) });
      expect(response.statusCode).toBe(413);
      expect(d.traceEntries()).toEqual([]);
      const justUnder = await post(d, { filler: 'x.'.repeat((TRACE_BODY_LIMIT_BYTES - 100) / 2) });
      expect(justUnder.statusCode).toBe(200);
      const event = (d.traceEntries()[0]!.detectorTrace as { event: { filler: string } }).event;
      expect(event.filler.length).toBe(TRACE_LIMITS.stringLength + 1);
    } finally {
      await d.app.close();
    }
  });

  it('the LMS page may post events cross-origin (preflight)', async () => {
    const d = await detectorApp(routeContext(ALL_ON), { distDir: dist.dir });
    try {
      const preflight = await d.app.inject({
        method: 'OPTIONS',
        url: DETECTOR_TRACE_ROUTE.path,
        headers: { origin: LMS, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe(LMS);
      expect(preflight.headers['access-control-allow-methods']).toBe('POST');
      expect(preflight.headers['access-control-allow-headers']).toBe('content-type');
      expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
      const response = await post(d, EVENT);
      expect(response.headers['access-control-allow-origin']).toBe(LMS);
      expect(response.headers.vary).toBe('Origin');
      const foreign = await d.app.inject({
        method: 'OPTIONS',
        url: DETECTOR_TRACE_ROUTE.path,
        headers: { origin: 'https://evil.example.test', 'access-control-request-method': 'POST' },
      });
      expect(foreign.statusCode).toBe(403);
      expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await d.app.close();
    }
  });
});

describe('sanitizing', () => {
  it.each([
    'token',
    'proofToken',
    'x-exb-proof-token',
    'accessCode',
    'access_code',
    'accesscode',
    'code',
    'configKeyHash',
    'configkeyhash',
    'keyHash',
    'exitGrant',
    'grant',
    'proof',
    'password',
    'quitPassword',
    'secret',
    'clientSecret',
    'authorization',
    'Authorization',
    'cookie',
    'apiKey',
    'id_token',
    'refresh_token',
  ])('%s is a secret key', (key) => {
    expect(isSecretKey(key)).toBe(true);
  });

  it.each(['source', 'step', 'outcome', 'page', 'errorCode', 'error_code', 'statusCode', 'status', 'message', 'url', 'monkey', 'keys'])(
    '%s is not a secret key',
    (key) => {
      expect(isSecretKey(key)).toBe(false);
    },
  );

  it('bounds depth, keys, items and string length', () => {
    const deep = { a: { b: { c: { d: { e: 'too deep' } } } } };
    expect(sanitizeTraceValue(deep)).toEqual({ a: { b: { c: { d: TRUNCATED } } } });

    const wide = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
    const copy = sanitizeTraceValue(wide) as Record<string, unknown>;
    expect(Object.keys(copy)).toHaveLength(TRACE_LIMITS.keysPerObject + 1);
    expect(copy[TRUNCATED]).toBe(8);

    const long = sanitizeTraceValue(Array.from({ length: 40 }, () => 'y '.repeat(500))) as string[];
    expect(long).toHaveLength(TRACE_LIMITS.itemsPerArray + 1);
    expect(long[0]).toBe(`${'y '.repeat(TRACE_LIMITS.stringLength / 2)}…`);
    expect(long.at(-1)).toBe(`${TRUNCATED} 8 more`);
  });

  it('bounds the total number of values', () => {
    const many = Array.from({ length: 30 }, () => Array.from({ length: 30 }, (_, i) => i));
    const text = JSON.stringify(sanitizeTraceValue(many));
    const numbers = text.match(/\d+/g) ?? [];
    expect(numbers.length).toBeLessThanOrEqual(TRACE_LIMITS.values);
    expect(text).toContain(TRUNCATED);
  });

  it('redacts opaque runs in keys and keeps prototype-shaped keys as data', () => {
    const copy = sanitizeTraceValue(JSON.parse(`{"${PROOF_TOKEN}": 1, "__proto__": {"x": 1}}`)) as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual([REDACTED, '__proto__']);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(JSON.stringify(copy)).not.toContain(PROOF_TOKEN);
  });

  it('keeps short ids, page kinds and LMS paths readable', () => {
    const event = { page: 'classic-take', contentId: 'newquiz:101:2002', path: '/courses/101/quizzes/55/take', count: 3 };
    expect(sanitizeTraceValue(event)).toEqual(event);
  });
});
