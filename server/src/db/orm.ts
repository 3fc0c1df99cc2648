import { MikroORM } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import type { MigrationObject } from '@mikro-orm/core';
import { migrations as checkedInMigrations } from '@exb/migrations';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { entities } from './entities/index.js';

export interface DatabaseOptions {
  /** `postgres://` URL of an external server; without it an embedded PostgreSQL starts in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  logger: Logger;
  /** The migrations the service expects; tests pass a longer list to see `/ready` report pending ones. */
  migrations?: MigrationObject[];
  poolSize?: number;
  /** How long a request waits for a connection (a free one or a new one) before it fails as "database unavailable". */
  connectTimeoutMs?: number;
}

/** Long enough for a busy pool to free a connection; short enough that an unreachable server answers 503, not a hang. */
export const DATABASE_CONNECT_TIMEOUT_MS = 10_000;

export interface Database {
  orm: MikroORM;
  /** The ORM's own connection pool, for the hot statements that run as named prepared statements. */
  pool: Pool;
  mode: 'external' | 'embedded';
  /** Applies pending migrations; returns the names applied. */
  migrate(): Promise<string[]>;
  pendingMigrations(): Promise<string[]>;
  close(): Promise<void>;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const { logger } = options;
  // Loaded only when needed: the embedded server's package hooks process events as soon as it is imported.
  const embedded = options.databaseUrl
    ? undefined
    : await (await import('./embedded.js')).startEmbeddedPostgres(options.dataDir, logger);
  const clientUrl = options.databaseUrl ?? embedded!.url;
  let orm: MikroORM;
  try {
    orm = await MikroORM.init({
      clientUrl,
      entities,
      extensions: [Migrator],
      migrations: {
        migrationsList: options.migrations ?? checkedInMigrations,
        tableName: 'mikro_orm_migrations',
        transactional: true,
        allOrNothing: true,
        snapshot: false,
        silent: true,
      },
      pool: { min: 0, max: options.poolSize ?? 10 },
      driverOptions: { connectionTimeoutMillis: options.connectTimeoutMs ?? DATABASE_CONNECT_TIMEOUT_MS },
      debug: false,
      logger: (message) => logger.debug({ orm: message }, 'orm'),
    });
  } catch (error) {
    await embedded?.stop();
    throw error;
  }

  const database: Database = {
    orm,
    pool: await orm.em.getConnection().getNativeClient(),
    mode: embedded ? 'embedded' : 'external',
    async migrate() {
      const applied = await orm.migrator.up();
      return applied.map((migration) => migration.name);
    },
    async pendingMigrations() {
      const pending = await orm.migrator.getPending();
      return pending.map((migration) => migration.name);
    },
    async close() {
      await orm.close(true);
      await embedded?.stop();
    },
  };

  // The embedded database belongs to this process alone, so it is always brought up to date at start.
  if (embedded) {
    const applied = await database.migrate();
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  }
  return database;
}
