import http from 'node:http';

/** Real HTTP requests on connections of their own, for tests about clients that close them. */

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** How long the answer took. */
  ms: number;
}

export function httpGet(url: string): Promise<Answer> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body, ms: Date.now() - started }));
    });
    request.on('error', reject);
  });
}

/** Sends a `GET` and closes its connection after `ms`, as a client that gave up; resolves when it is closed. */
export function abandonGetAfter(url: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const request = http.get(url, { agent: false }, (response) => response.resume());
    request.on('error', () => undefined);
    request.on('close', () => resolve());
    setTimeout(() => request.destroy(), ms);
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
