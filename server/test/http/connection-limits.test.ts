import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';

/** What the listening service does with clients that never finish a request or do not speak HTTP, over real sockets. */

const REQUEST_MS = 300;
const IDLE_MS = 800;

let t: TestApp;
const lines: string[] = [];
beforeAll(async () => {
  t = await createTestApp({ listen: true, logLines: lines, buildOptions: { timeouts: { requestMs: REQUEST_MS, idleMs: IDLE_MS } } });
});
afterAll(() => t.close());

/** Sends `bytes`, then waits (at most `waitMs`) for the server to close the connection; returns what it answered. */
function exchange(bytes: string, waitMs = 5_000): Promise<{ answer: string; closed: boolean; elapsedMs: number }> {
  const url = new URL(t.url!);
  return new Promise((resolve) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(url.port), url.hostname, () => {
      if (bytes.length > 0) socket.write(bytes);
    });
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ answer: Buffer.concat(chunks).toString('utf8'), closed, elapsedMs: Date.now() - started });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => finish(true));
  });
}

const refusals = () =>
  lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.msg === 'request refused before routing');

describe('connection limits', () => {
  const PROOF_HEAD =
    'POST /api/exb/access-proof/101/classicquiz_201 HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
    'Content-Type: application/json\r\nContent-Length: 200\r\n\r\n{"configKeyHash":"';

  function expectBodyTimeout(result: { answer: string; closed: boolean; elapsedMs: number }): void {
    expect(result.closed).toBe(true);
    expect(result.elapsedMs).toBeGreaterThanOrEqual(REQUEST_MS - 50);
    expect(result.elapsedMs).toBeLessThan(IDLE_MS);
    expect(result.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(result.answer.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(result.answer.slice(result.answer.indexOf('\r\n\r\n') + 4))).toEqual({
      success: false,
      error_code: 'REQUEST_TIMEOUT',
      message: 'The request body did not arrive in time.',
    });
    const entries = lines.map((line) => JSON.parse(line) as { level: number; msg: string; res?: { statusCode?: number } });
    expect(entries.filter((entry) => entry.msg === 'request completed').map((entry) => entry.res?.statusCode)).toEqual([408]);
    expect(entries.filter((entry) => entry.level >= 40)).toEqual([]);
  }

  it('answers 408 and closes a request whose body stops arriving', async () => {
    lines.length = 0;
    expectBodyTimeout(await exchange(PROOF_HEAD));
  });

  it('answers 408 to a body that trickles in slower than the deadline, though never idle', async () => {
    lines.length = 0;
    const url = new URL(t.url!);
    const result = await new Promise<{ answer: string; closed: boolean; elapsedMs: number }>((resolve) => {
      const started = Date.now();
      const chunks: Buffer[] = [];
      const socket = net.connect(Number(url.port), url.hostname, () => socket.write(PROOF_HEAD));
      const drip = setInterval(() => socket.writable && socket.write('a'), 100);
      const finish = (closed: boolean) => {
        clearInterval(drip);
        clearTimeout(giveUp);
        socket.destroy();
        resolve({ answer: Buffer.concat(chunks).toString('utf8'), closed, elapsedMs: Date.now() - started });
      };
      const giveUp = setTimeout(() => finish(false), 5_000);
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', () => undefined);
      socket.on('close', () => finish(true));
    });
    expectBodyTimeout(result);
  });

  it('answers 408 before routing to headers that stop arriving', async () => {
    lines.length = 0;
    const { answer, closed, elapsedMs } = await exchange('POST /api/exb/access-proof/101/classicquiz_201 HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    expect(closed).toBe(true);
    expect(elapsedMs).toBeLessThan(IDLE_MS);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"error_code":"REQUEST_TIMEOUT"');
    expect(refusals()).toEqual([expect.objectContaining({ level: 30, code: 'ERR_HTTP_REQUEST_TIMEOUT', statusCode: 408 })]);
  });

  it('closes a connection that never sends anything', async () => {
    const { closed, elapsedMs } = await exchange('');
    expect(closed).toBe(true);
    expect(elapsedMs).toBeLessThan(3_000);
  });

  it('answers 400 to broken framing and logs one line without the request’s bytes', async () => {
    lines.length = 0;
    const secret = 'Bearer-secret-value-4711';
    const { answer, closed } = await exchange(
      `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${secret}\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n`,
    );
    expect(closed).toBe(true);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('"error_code":"INVALID_REQUEST"');
    expect(refusals()).toEqual([expect.objectContaining({ statusCode: 400, code: expect.stringMatching(/^HPE_/) })]);
    expect(lines.join('\n')).not.toContain(secret);
  });

  it('answers 431 to oversized headers', async () => {
    lines.length = 0;
    const { answer } = await exchange(`GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: ${'x'.repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(refusals()).toEqual([expect.objectContaining({ statusCode: 431, code: 'HPE_HEADER_OVERFLOW' })]);
  });

  it('still serves ordinary requests on the same server', async () => {
    const response = await fetch(`${t.url}/health`);
    expect(response.status).toBe(200);
  });
});
