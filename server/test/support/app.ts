import { mkdtempSync, rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { MigrationObject } from '@mikro-orm/core';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildAppOptions } from '../../src/app.js';
import { loadConfig, type AppConfig, type ConfigOptions } from '../../src/config/app-config.js';
import { freePort } from '../../src/free-port.js';
import { openDatabase, type Database } from '../../src/db/orm.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase } from './database.js';

export { freePort };

export interface TestApp {
  app: FastifyInstance;
  config: AppConfig;
  db: Database;
  dataDir: string;
  databaseUrl: string;
  /** The listening origin when `listen` was set. */
  url: string | undefined;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** What only the development launcher passes in-process (its development LMS). */
  configOptions?: Omit<ConfigOptions, 'cwd'>;
  /** Leave the database unmigrated or expect extra migrations (readiness tests). */
  migrate?: boolean;
  migrations?: MigrationObject[];
  /** Listen on a free loopback port (for browsers and real HTTP clients); BASE_URL defaults to that origin. */
  listen?: boolean;
  /** Extra options for `buildApp` (replaced collaborators). */
  buildOptions?: Omit<BuildAppOptions, 'config' | 'logger' | 'db'>;
  /** The URL the service connects to its fresh database with (a relay in front of it, for outage tests). */
  connectThrough?: (databaseUrl: string) => string;
  /** Records the service's log lines (at `debug`) instead of discarding them. */
  logLines?: string[];
  /** How long the service waits for a database connection. */
  connectTimeoutMs?: number;
}

/** A full application on its own fresh database and data directory, exercised through `app.inject` or `listen`. */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'exb-test-data-'));
  const port = options.listen ? await freePort() : undefined;
  const databaseUrl = options.connectThrough ? options.connectThrough(database.url) : database.url;
  const config = loadConfig({
    NODE_ENV: 'test',
    ...(port ? { BASE_URL: `http://127.0.0.1:${port}`, PORT: String(port), HOST: '127.0.0.1' } : {}),
    LOG_LEVEL: options.logLines ? 'debug' : 'silent',
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    ...options.env,
  }, options.configOptions);
  const logger = createLogger(config.logLevel, options.logLines ? lineCollector(options.logLines) : undefined);
  const db = await openDatabase({
    databaseUrl,
    dataDir,
    logger,
    poolSize: 5,
    connectTimeoutMs: options.connectTimeoutMs ?? config.databaseTimeoutMs,
    statementTimeoutMs: config.databaseTimeoutMs,
    ...(options.migrations ? { migrations: options.migrations } : {}),
  });
  if (options.migrate !== false) await db.migrate();
  const app = await buildApp({ ...options.buildOptions, config, logger, db });
  await app.ready();
  if (port) await app.listen({ port, host: '127.0.0.1' });
  return {
    app,
    config,
    db,
    dataDir,
    databaseUrl: database.url,
    url: port ? `http://127.0.0.1:${port}` : undefined,
    async close() {
      await app.close();
      await db.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function lineCollector(lines: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
}
