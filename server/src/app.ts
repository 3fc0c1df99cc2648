import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import fastifySecureSession from '@fastify/secure-session';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { AppConfig } from './config.js';
import type { AppContext } from './context.js';
import type { Database } from './db/orm.js';
import { registerErrorHandlers } from './http/errors.js';
import { registerPublicRoutes } from './http/public.js';
import { readClientAssets, ShellRenderer } from './http/shell.js';
import { registerTrpcRoutes } from './http/trpc.js';
import { deriveKey } from './security/derived-keys.js';
import { OneTimeStore } from './security/one-time-store.js';
import { sessionCookieOptions, SESSION_COOKIE_NAME } from './security/session-cookie.js';
import { loadToolKeys } from './security/tool-keys.js';

export interface BuildAppOptions {
  config: AppConfig;
  logger: Logger;
  db: Database;
  /** Where the built client lives; defaults to the client workspace's dist folder. */
  clientDistDir?: string;
}

export const DEFAULT_CLIENT_DIST_DIR = fileURLToPath(new URL('../../client/dist/', import.meta.url));

// LTI launches carry a signed token of a few kilobytes; nothing the service accepts needs more than this.
const BODY_LIMIT_BYTES = 256 * 1024;

export async function createContext(options: BuildAppOptions): Promise<AppContext> {
  const { config, logger, db } = options;
  const clientDistDir = options.clientDistDir ?? DEFAULT_CLIENT_DIST_DIR;
  const assets = readClientAssets(clientDistDir);
  if (!assets.script) logger.warn({ clientDistDir }, 'client bundle not found; run `npm run build`');
  return {
    config,
    logger,
    db,
    oneTimeStore: new OneTimeStore(db.orm, deriveKey(config.secrets.appSecret, 'one-time-store')),
    toolKeys: await loadToolKeys(config.lti.toolPrivateKeys),
    shell: new ShellRenderer(assets, { lmsOrigin: config.lmsUrl }),
  };
}

export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const ctx = await createContext(options);
  const { config } = ctx;
  const app = Fastify({
    // pino's Logger is a FastifyBaseLogger; the cast keeps the instance type the default one route modules expect.
    loggerInstance: ctx.logger as FastifyBaseLogger,
    trustProxy: config.trustProxy,
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: () => randomUUID(),
    return503OnClosing: true,
  });

  await app.register(fastifyCookie);
  await app.register(fastifySecureSession, {
    key: deriveKey(config.secrets.appSecret, 'session-cookie'),
    cookieName: SESSION_COOKIE_NAME,
    cookie: sessionCookieOptions(config.baseUrl),
  });
  await app.register(fastifyFormbody, { bodyLimit: BODY_LIMIT_BYTES });
  await app.register(fastifyStatic, {
    root: options.clientDistDir ?? DEFAULT_CLIENT_DIST_DIR,
    prefix: '/assets/',
    // Built assets have content hashes in their names, so they can be cached for good.
    immutable: true,
    maxAge: '365d',
    index: false,
    serve: true,
    allowedPath: (pathName) => !pathName.includes('.vite'),
  });

  registerErrorHandlers(app);
  await registerPublicRoutes(app, ctx);
  await registerTrpcRoutes(app, ctx);
  return app;
}
