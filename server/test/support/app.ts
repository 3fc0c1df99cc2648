import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { MigrationObject } from '@mikro-orm/core';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig, type AppConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/orm.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase } from './database.js';

export interface TestApp {
  app: FastifyInstance;
  config: AppConfig;
  db: Database;
  dataDir: string;
  databaseUrl: string;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Leave the database unmigrated or expect extra migrations (readiness tests). */
  migrate?: boolean;
  migrations?: MigrationObject[];
}

/** A full application on its own fresh database and data directory, exercised through `app.inject` or `listen`. */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'exb-test-data-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    ...options.env,
  });
  const logger = createLogger(config.logLevel);
  const db = await openDatabase({
    databaseUrl: database.url,
    dataDir,
    logger,
    poolSize: 5,
    ...(options.migrations ? { migrations: options.migrations } : {}),
  });
  if (options.migrate !== false) await db.migrate();
  const app = await buildApp({ config, logger, db });
  await app.ready();
  return {
    app,
    config,
    db,
    dataDir,
    databaseUrl: database.url,
    async close() {
      await app.close();
      await db.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
