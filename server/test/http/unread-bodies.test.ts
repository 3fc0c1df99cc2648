import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';

/**
 * Bodies that no parser reads (a body on GET or HEAD, a content type without a parser, a body over a route's limit)
 * must neither keep a deadline running after their answer nor end the process when it passes.
 */

const REQUEST_MS = 300;
const IDLE_MS = 2_000;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ listen: true, buildOptions: { timeouts: { requestMs: REQUEST_MS, idleMs: IDLE_MS } } });
});
afterAll(() => t.close());

/** Sends raw bytes on a connection of its own and resolves with the first answer's status line. */
function send(bytes: string | Buffer, waitMs = 3_000): Promise<string> {
  const url = new URL(t.url!);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(bytes));
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1').split('\r\n')[0] ?? '');
    };
    const timer = setTimeout(finish, waitMs);
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      if (Buffer.concat(chunks).includes('\r\n\r\n')) finish();
    });
    socket.on('error', () => undefined);
    socket.on('close', finish);
  });
}

const request = (head: string, body: string) =>
  send(`${head}\r\nHost: 127.0.0.1\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);

describe('bodies no parser reads', () => {
  it('answers each and still serves after the body deadline has passed', async () => {
    const answers = await Promise.all([
      request('GET /health HTTP/1.1\r\nContent-Type: application/json', '{}'),
      request('HEAD /health HTTP/1.1\r\nContent-Type: application/json', '{}'),
      request('POST /api/exb/access-proof/101/classicquiz_201 HTTP/1.1\r\nContent-Type: application/x-unknown', 'abc'),
      request('POST /api/exb/access-proof/101/classicquiz_201 HTTP/1.1\r\nContent-Type: application/json', `{"a":"${'x'.repeat(2_000_000)}"}`),
      send('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n'),
    ]);
    for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 [1-4]\d\d /);
    await new Promise((resolve) => setTimeout(resolve, REQUEST_MS * 4));
    const response = await fetch(`${t.url}/health`);
    expect(response.status).toBe(200);
  });

  it('serves the next request on the same connection after an unread body', async () => {
    const bytes = await new Promise<string>((resolve) => {
      const url = new URL(t.url!);
      const chunks: Buffer[] = [];
      const request = 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}';
      const socket = net.connect(Number(url.port), url.hostname, () => socket.write(request + request));
      const timer = setTimeout(() => socket.destroy(), 3_000);
      socket.on('data', (chunk) => {
        chunks.push(chunk);
        if ((Buffer.concat(chunks).toString('latin1').match(/HTTP\/1\.1 200 /g) ?? []).length === 2) socket.destroy();
      });
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(Buffer.concat(chunks).toString('latin1'));
      });
    });
    expect(bytes.match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
  });

  it('closes a connection whose unread body is still arriving at the deadline after its answer', async () => {
    const url = new URL(t.url!);
    const started = Date.now();
    const result = await new Promise<{ answer: string; closedAfterMs: number }>((resolve) => {
      const chunks: Buffer[] = [];
      const socket = net.connect(Number(url.port), url.hostname, () =>
        socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\nab'),
      );
      const drip = setInterval(() => socket.writable && socket.write('a'), 50);
      const giveUp = setTimeout(() => socket.destroy(), IDLE_MS * 2);
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(drip);
        clearTimeout(giveUp);
        resolve({ answer: Buffer.concat(chunks).toString('latin1'), closedAfterMs: Date.now() - started });
      });
    });
    expect(result.answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(REQUEST_MS - 50);
    expect(result.closedAfterMs).toBeLessThan(IDLE_MS);
  });
});
