import { pathToFileURL } from 'node:url';
import { getHeapStatistics } from 'node:v8';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type AppConfig, type ConfigOptions } from './config/app-config.js';
import { openDatabase } from './db/orm.js';
import { createLogger } from './logger.js';

/**
 * The Node flags production starts the service with: `node --max-old-space-size=512 server/dist/main.js`.
 *
 * The service keeps 45 to 70 MB of live JavaScript objects, however many students start. Without a limit, Node on a
 * machine with more than 16 GB of memory sizes the old generation for 4 GB, and V8 then lets it grow to up to four
 * times the live size between full collections; an exam start's garbage (and the buffers it holds) therefore pushed
 * the process to 300 to 350 MB RSS, which stays resident once reached. With a 512 MB limit V8 grows the heap by at
 * most about 1.4 times the live size, and the same start peaks near 200 MB at no measurable CPU cost (`npm run bench
 * -- student`). 512 MB is still about eight times the live heap; an instance with unusually large administrator
 * workloads can raise it.
 */
export const PRODUCTION_NODE_FLAGS: readonly string[] = ['--max-old-space-size=512'];

export interface RunningServer {
  url: string;
  /** The configuration it runs with (the development launcher reads where the development secrets are). */
  config: AppConfig;
  close(): Promise<void>;
}

/** Validates the configuration, opens the database (embedded when DATABASE_URL is unset) and starts listening. */
export async function startServer(env: NodeJS.ProcessEnv = process.env, options: Omit<ConfigOptions, 'cwd'> = {}): Promise<RunningServer> {
  const config = loadConfig(env, options);
  const logger = createLogger(config.logLevel);
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger });
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
  return { url: config.baseUrl, config, close };
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

export function exitOnStartupError(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`The service could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  process.exit(1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  startServer().then(closeOnSignals, exitOnStartupError);
}
