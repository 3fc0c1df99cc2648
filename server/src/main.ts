import { pathToFileURL } from 'node:url';
import { getHeapStatistics } from 'node:v8';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type AppConfig, type ConfigOptions } from './config/app-config.js';
import { openDatabase } from './db/orm.js';
import { createLogger } from './logger.js';
import type { Logger } from 'pino';

/** The flags production starts the service with, and why: `node-flags.ts`. */
export { PRODUCTION_NODE_FLAGS } from './node-flags.js';

export interface RunningServer {
  url: string;
  logger: Logger;
  /** The configuration it runs with (the development launcher reads where the development secrets are). */
  config: AppConfig;
  close(): Promise<void>;
}

/** Validates the configuration, opens the database (embedded when DATABASE_URL is unset) and starts listening. */
export async function startServer(env: NodeJS.ProcessEnv = process.env, options: Omit<ConfigOptions, 'cwd'> = {}): Promise<RunningServer> {
  const config = loadConfig(env, options);
  const logger = createLogger(config.logLevel);
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    logger,
    connectTimeoutMs: config.databaseTimeoutMs,
    statementTimeoutMs: config.databaseTimeoutMs,
  });
  let app;
  try {
    app = await buildApp({ config, logger, db });
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await db.close();
    throw error;
  }
  // The heap limit tells whether the process runs with the production flags (`PRODUCTION_NODE_FLAGS`).
  const heapLimitMb = Math.round(getHeapStatistics().heap_size_limit / (1024 * 1024));
  logger.info({ baseUrl: config.baseUrl, database: db.mode, lmsUrl: config.lmsUrl, heapLimitMb }, 'service started');

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await app.close();
      await db.close();
      logger.info('service stopped');
    })();
    return closing;
  };
  return { url: config.baseUrl, logger, config, close };
}

/** Stops cleanly on SIGINT/SIGTERM: in-flight requests finish, new ones get 503, then the database closes. */
export function closeOnSignals(server: Pick<RunningServer, 'close'>): void {
  const stop = (signal: NodeJS.Signals) => {
    process.stderr.write(`received ${signal}, shutting down\n`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** What `exitOnFatalErrors` needs of the process (a test passes its own). */
export interface FatalErrorHost {
  on(event: 'uncaughtException' | 'unhandledRejection', listener: (error: unknown) => void): unknown;
  exit(code: number): never;
}

/**
 * The last resort for an error nothing caught: requests never end here (their errors go to the error handler), so
 * one that does is a defect, and the process state behind it cannot be trusted. It is logged without its request or
 * any of its properties but name, code, message and stack, the server closes for at most `graceMs`, and the process
 * exits with 1 so that its supervisor starts a fresh one.
 */
export function exitOnFatalErrors(server: Pick<RunningServer, 'close' | 'logger'>, host: FatalErrorHost = process, graceMs = 5_000): void {
  let exiting = false;
  const fail = (kind: string) => (error: unknown) => {
    // Not under `err`: pino's serializer would copy every enumerable property of the error into the line.
    const fault = error instanceof Error
      ? { type: error.name, code: (error as { code?: unknown }).code, message: error.message, stack: error.stack }
      : { type: typeof error };
    server.logger.fatal({ fault, kind }, 'fatal error; the process exits');
    if (exiting) return host.exit(1);
    exiting = true;
    const deadline = setTimeout(() => host.exit(1), graceMs);
    deadline.unref();
    server.close().finally(() => host.exit(1));
  };
  host.on('uncaughtException', fail('uncaughtException'));
  host.on('unhandledRejection', fail('unhandledRejection'));
}

export function exitOnStartupError(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`The service could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  process.exit(1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  startServer().then((server) => {
    closeOnSignals(server);
    exitOnFatalErrors(server);
  }, exitOnStartupError);
}
