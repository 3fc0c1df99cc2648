import http from 'node:http';
import { performance } from 'node:perf_hooks';

/** Plain HTTP/1.1 requests as the bench's browsers send them, timed from the first byte sent to the last received. */

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  ms: number;
}

export function request(
  agent: http.Agent,
  origin: string,
  method: string,
  pathAndQuery: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  const url = new URL(pathAndQuery, origin);
  return new Promise((resolve, reject) => {
    const sent = performance.now();
    const outgoing = http.request(
      {
        agent,
        method,
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks), ms: performance.now() - sent }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

export async function timed(
  agent: http.Agent,
  origin: string,
  method: string,
  pathAndQuery: string,
  body?: string,
  headers?: Record<string, string>,
): Promise<{ ok: boolean; ms: number; bytes: number }> {
  const answer = await request(agent, origin, method, pathAndQuery, body, headers);
  return { ok: answer.status === 200, ms: answer.ms, bytes: answer.body.length };
}

/** The cookies one browser keeps for the service: what `Set-Cookie` sets, minus what it expires. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  absorb(answer: HttpAnswer): void {
    for (const header of ([] as string[]).concat(answer.headers['set-cookie'] ?? [])) {
      const [pair = '', ...attributes] = header.split(';');
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator).trim();
      const value = pair.slice(separator + 1).trim();
      const expired = attributes.some((attribute) => /^\s*max-age\s*=\s*(0|-)/i.test(attribute));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  has(name: string): boolean {
    return this.cookies.has(name);
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}
