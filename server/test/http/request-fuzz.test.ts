import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';

/**
 * Hostile requests of every shape against every route family, over real sockets: random methods, paths, content
 * types, encodings, sizes and framings. None may be answered with a 5xx, and none may end or wedge the process: after
 * the body deadline has passed for all of them, the service still answers `/health`. The seed is fixed so a failure
 * reproduces; the budget keeps the run near a minute.
 */

const REQUEST_MS = 400;
const IDLE_MS = 1_500;
const SEED = 20_261_127;
const BUDGET_MS = 45_000;

let t: TestApp;
const lines: string[] = [];
beforeAll(async () => {
  t = await createTestApp({ listen: true, logLines: lines, buildOptions: { timeouts: { requestMs: REQUEST_MS, idleMs: IDLE_MS } } });
});
afterAll(() => t.close());

const id = fc.oneof(
  fc.integer({ min: 0, max: 1_000_000 }).map(String),
  fc.constantFrom('101', 'classicquiz_201', 'newquiz_9', '-1', '0x10', '1e9', '%00', '%2F..%2F', 'a'.repeat(300), '%E2%82%AC', '..'),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
);

/** One path per route family, its parameters random. */
const path = fc.oneof(
  fc.constantFrom(
    '/', '/health', '/ready', '/login', '/login/health', '/setup', '/setup/guide', '/favicon.ico', '/.well-known/jwks.json',
    '/lti/config', '/lti/login', '/lti/launch', '/api/quizzes', '/api/quizzes/exb-settings', '/api/quizzes/exb-verification',
    '/api/quizzes/exb-config-structured', '/api/admin/summary', '/api/admin/courses', '/api/admin/courses/connect',
    '/api/admin/course-catalog', '/api/admin/terms', '/api/admin/terms/operational', '/api/admin/tool-presets',
    '/api/admin/audit.csv', '/api/oauth2authorize', '/api/oauth2reauthorize', '/api/oauth2/popup-ticket',
    '/api/oauth2callback', '/api/oauth2status', '/api/student-session-authorize', '/api/admin/oauth2authorize',
    '/api/exb/lms-detector.js', '/api/exb/check-proof', '/api/exb/session-readiness', '/api/exb/session-readiness/dismiss',
    '/api/debug/lms-detector-trace', '/js/lms-exb-detector.js', '/js/lms-exb-theme-loader.js', '/js/health',
    '/exb/check', '/exb/check/config.exb', '/exb/check/quit', '/exb/launch-handoff', '/exb/config-encryption-certificate.pem',
    '/exb/config-encryption-certificate.cer', '/assets/missing.js', '/nowhere', '/trpc/instructor.status',
  ),
  fc.tuple(
    fc.constantFrom(
      '/api/exb/access-proof/$/$', '/api/exb/access-code/$/$', '/api/exb/config-grant/$/$', '/api/exb/tools/$/$',
      '/exb/config/$/$', '/exb/launch/$', '/exb/launch/$/login', '/exb/exit/session/$/$', '/exb/exit/quit/$/$/$',
      '/exb/exit/complete/$/$/$', '/exb/exit/manual/$/$', '/exb/exit/$/$', '/exb/quiz/$/$', '/exb/new-quiz/$/$',
      '/api/quizzes/$', '/api/quizzes/$/exb', '/api/quizzes/$/$/exb/enable', '/api/quizzes/$/$/exb/config',
      '/api/quizzes/$/$/exb/status', '/api/quizzes/course/$/defaults', '/api/quizzes/course/$/exam-tools/$/copy',
      '/api/admin/courses/$', '/api/admin/courses/$/reset', '/api/admin/courses/$/reset-preview',
      '/api/admin/courses/$/assessments/$/exb', '/api/admin/tool-presets/$/assignments', '/trpc/$',
    ),
    fc.array(id, { minLength: 3, maxLength: 3 }),
  ).map(([template, ids]) => {
    let index = 0;
    return template.replace(/\$/g, () => ids[index++]!);
  }),
);

const query = fc.oneof(
  fc.constant(''),
  fc.constantFrom('?grant=x', '?a=1&a=2', '?__proto__[x]=1', '?input=%7B%22json%22%3Anull%7D', '?batch=1&input=%7B', '?%'),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 20 }), { maxKeys: 4 }).map(
    (entries) => `?${new URLSearchParams(entries).toString()}`,
  ),
);

const method = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'QUERY', 'PROPFIND', 'get');

const contentType = fc.constantFrom(
  undefined, 'application/json', 'application/json; charset=utf-8', 'application/json; charset=utf-16',
  'application/x-www-form-urlencoded', 'text/plain', 'text/html', 'multipart/form-data; boundary=x',
  'application/octet-stream', 'application/jwt', 'application/seb', '*/*', 'application/', ';;;', 'application/json\u00ff',
);

const encoding = fc.constantFrom(undefined, undefined, 'gzip', 'deflate', 'br', 'identity', 'x-unknown');

const body = fc.oneof(
  fc.constant(Buffer.alloc(0)),
  fc.json().map((text) => Buffer.from(text)),
  fc.constantFrom('{', '[]', 'null', '{"__proto__":{"polluted":true}}', 'id_token=abc&state=x', 'a=%', '\u0000').map((text) => Buffer.from(text)),
  fc.uint8Array({ maxLength: 512 }).map((bytes) => Buffer.from(bytes)),
  fc.integer({ min: 1_000, max: 1_500_000 }).map((size) => Buffer.alloc(size, 'x')),
);

/** How the body travels: declared and sent whole, declared longer than sent, chunked, or with contradictory headers. */
const framing = fc.constantFrom('length', 'length', 'short', 'chunked', 'bad-chunked', 'both', 'none');

const request = fc.record({ method, path, query, contentType, encoding, body, framing, cookie: fc.boolean() });
type FuzzRequest = typeof request extends fc.Arbitrary<infer R> ? R : never;

function wire(r: FuzzRequest): Buffer {
  const headers = [`${r.method} ${r.path}${r.query} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  if (r.contentType !== undefined) headers.push(`Content-Type: ${r.contentType}`);
  if (r.encoding !== undefined) headers.push(`Content-Encoding: ${r.encoding}`);
  if (r.cookie) headers.push('Cookie: exb_session=garbage; other=1', 'Origin: https://evil.example', 'Sec-Fetch-Site: cross-site');
  const end = (head: string[], payload: Buffer) => Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), payload]);
  switch (r.framing) {
    case 'length':
      return end([...headers, `Content-Length: ${r.body.length}`], r.body);
    case 'short':
      return end([...headers, `Content-Length: ${r.body.length + 100}`], r.body);
    case 'chunked':
      return end([...headers, 'Transfer-Encoding: chunked'], Buffer.concat([Buffer.from(`${r.body.length.toString(16)}\r\n`), r.body, Buffer.from('\r\n0\r\n\r\n')]));
    case 'bad-chunked':
      return end([...headers, 'Transfer-Encoding: chunked'], Buffer.concat([Buffer.from('zz\r\n'), r.body]));
    case 'both':
      return end([...headers, 'Transfer-Encoding: chunked', `Content-Length: ${r.body.length}`], r.body);
    default:
      return end(headers, Buffer.alloc(0));
  }
}

/** Sends one request and resolves with its status code, or `closed` when the connection ended without an answer. */
function send(bytes: Buffer): Promise<number | 'closed'> {
  const url = new URL(t.url!);
  return new Promise((resolve) => {
    let head = '';
    const socket = net.connect(Number(url.port), url.hostname, () => socket.end(bytes));
    const timer = setTimeout(() => socket.destroy(), IDLE_MS * 3);
    socket.on('data', (chunk) => {
      if (head.length < 64) head += chunk.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(head);
      resolve(status ? Number(status[1]) : 'closed');
    });
  });
}

describe('request fuzz', () => {
  it(
    'answers every request below 500 or closes it, and keeps serving',
    async () => {
      const started = Date.now();
      const failures: string[] = [];
      let sent = 0;
      // `check`, not `assert`: a failure is reported as the list of requests below, not as the whole batch's bytes.
      const run = await fc.check(
        fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 12 }), async (batch) => {
          const statuses = await Promise.all(batch.map((r) => send(wire(r))));
          sent += batch.length;
          statuses.forEach((status, index) => {
            const r = batch[index]!;
            if (status !== 'closed' && status >= 500) {
              failures.push(`${status} ${r.method} ${r.path}${r.query} ${r.contentType ?? '-'} ${r.encoding ?? '-'} ${r.framing} ${r.body.length}B`);
            }
          });
          return failures.length === 0;
        }),
        { seed: SEED, numRuns: 100_000, interruptAfterTimeLimit: BUDGET_MS, markInterruptAsFailure: false, endOnFailure: true },
      );
      expect(failures).toEqual([]);
      expect(run.error).toBeFalsy();
      expect(sent).toBeGreaterThan(500);

      await new Promise((resolve) => setTimeout(resolve, REQUEST_MS * 3));
      expect((await fetch(`${t.url}/health`)).status).toBe(200);
      const errors = lines.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((entry) => entry.level >= 50);
      expect(errors).toEqual([]);
      expect(Date.now() - started).toBeLessThan(BUDGET_MS + 30_000);
    },
    BUDGET_MS + 60_000,
  );
});
