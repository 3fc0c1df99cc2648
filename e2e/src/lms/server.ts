import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createServer as createMiddlewareApp } from '@mswjs/http-middleware';
import { http, type HttpHandler } from 'msw';
import type { LmsRuntime } from './runtime.js';
import { htmlResponse, jsonResponse } from './errors.js';
import { CONNECTION_HEADER, toMswHandlers, type RouteDef, type ServerConnection } from './router.js';

export interface HttpServerOptions {
  /** Default: the port of the LMS base URL. `0` picks a free port and moves the LMS's base URL there. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /**
   * Serve HTTPS with this certificate and key (PEM) instead of plain HTTP; the LMS base URL must then be `https:`.
   * Browser tests use it to run the tool inside an HTTPS LMS, as in production.
   */
  tls?: { cert: string; key: string };
  /**
   * The origin this server answers for when it serves another site of the LMS (the New Quizzes engine) rather than
   * the LMS itself: its port is the default, and a free port moves this origin, never the LMS's base URL.
   */
  origin?: string;
}

export interface RunningLmsServer {
  /** The LMS base URL the server answers for. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Requests no route knows: answered like the LMS (JSON 404 under `/api`, a page elsewhere) and still recorded. */
function unmatchedHandler(lms: LmsRuntime): HttpHandler {
  return http.all('*', ({ request }) => {
    const url = new URL(request.url);
    lms.calls.add({
      at: lms.clock.date().toISOString(),
      route: `UNMATCHED ${request.method}`,
      method: request.method,
      url: request.url,
      path: url.pathname,
      params: {},
      query: {},
      headers: {},
      bodyText: '',
      body: {},
      userId: null,
      tokenId: null,
      status: 404,
      fault: null,
    });
    return url.pathname.startsWith('/api/')
      ? jsonResponse({ errors: [{ message: 'The specified resource does not exist.' }] }, 404)
      : htmlResponse('<!DOCTYPE html><title>Page Not Found</title><h1>Page Not Found</h1>', 404);
  });
}

/**
 * Serves the LMS over HTTP (HTTPS with `tls`) with the same routes as in-process, through @mswjs/http-middleware.
 * Requests are matched on their path alone (a browser may call the LMS as `localhost` or `127.0.0.1`); URLs the LMS
 * writes into its answers use its base URL.
 */
export async function startLmsHttpServer(
  lms: LmsRuntime,
  routes: readonly RouteDef[],
  options: HttpServerOptions = {},
): Promise<RunningLmsServer> {
  const configured = new URL(options.origin ?? lms.baseUrl);
  const port = options.port ?? Number(configured.port || (configured.protocol === 'https:' ? 443 : 80));
  const host = options.host ?? '127.0.0.1';
  const connections = new Map<string, ServerConnection>();
  const handlers = [...toMswHandlers(lms, routes, { matchOrigin: false, connections }), unmatchedHandler(lms)];
  // The middleware's declarations see msw's CommonJS typings (the runtime objects are the same), and it ships without
  // express typings; the app is a plain (req, res) listener.
  const app = createMiddlewareApp(
    ...(handlers as unknown as Parameters<typeof createMiddlewareApp>),
  ) as unknown as (req: IncomingMessage, res: ServerResponse) => void;

  if ((options.tls !== undefined) !== (configured.protocol === 'https:')) {
    throw new Error(`the origin ${configured.origin} must be https: exactly when the server is given a TLS certificate`);
  }
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const id = randomUUID();
    let markGone!: () => void;
    const gone = new Promise<void>((resolve) => {
      markGone = resolve;
    });
    res.on('close', () => {
      connections.delete(id);
      markGone();
    });
    connections.set(id, { gone, destroy: () => req.socket.destroy() });
    req.headers[CONNECTION_HEADER] = id;
    app(req, res);
  };
  const server = options.tls ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, listener) : createHttpServer(listener);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actualPort = (server.address() as AddressInfo).port;
  let url = configured.origin;
  if (String(actualPort) !== (configured.port || (configured.protocol === 'https:' ? '443' : '80'))) {
    url = `${configured.protocol}//${configured.hostname}:${actualPort}`;
  }
  if (options.origin === undefined) lms.baseUrl = url;
  return {
    url,
    port: actualPort,
    close: () =>
      new Promise<void>((resolve) => {
        lms.hangs.releaseAll();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
