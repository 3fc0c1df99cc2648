import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { sleep } from '../support/http-client.js';

/** A client that gives up in the middle of its upload is the client's doing, whatever code its socket error has. */

let t: TestApp;
const lines: string[] = [];

beforeAll(async () => {
  t = await createTestApp({ listen: true, logLines: lines });
});
afterAll(() => t.close());

const logged = () => lines.map((line) => JSON.parse(line) as { level: number; msg: string });

/** Starts a request whose body announces more than it sends, then closes the connection (`ECONNRESET`, "aborted"). */
async function abortUpload(path: string): Promise<void> {
  const { port } = new URL(t.url!);
  const socket = net.connect(Number(port), '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n{"configKeyHash":"`,
  );
  await sleep(100);
  socket.destroy();
  await sleep(200);
}

describe('a client that aborts its upload', () => {
  it('is not logged as a database outage, nor as an error', async () => {
    lines.length = 0;
    for (const path of ['/api/exb/access-proof/101/classicquiz_201', '/lti/launch']) await abortUpload(path);
    const entries = logged();
    expect(entries.filter((entry) => entry.msg.startsWith('database unreachable'))).toEqual([]);
    expect(entries.filter((entry) => entry.level >= 50)).toEqual([]);
    // The service is no worse for it.
    expect((await fetch(`${t.url}/ready`)).status).toBe(200);
  });
});
