import { MikroORM } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import type { MigrationObject } from '@mikro-orm/core';
import { migrations as checkedInMigrations } from '@exb/migrations';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { entities } from './entities/index.js';
import { guardStatements, type StatementGuard } from './statement-guard.js';

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
  /**
   * The longest a statement may take: PostgreSQL's `statement_timeout` on every connection, and, a little later, the
   * client stops waiting for an answer (`statement-guard.ts`). Unset: no limit (maintenance commands).
   */
  statementTimeoutMs?: number;
}

/** Long enough for a busy pool to free a connection; short enough that an unreachable server answers 503, not a hang. */
export const DATABASE_CONNECT_TIMEOUT_MS = 10_000;

export interface Database {
  orm: MikroORM;
  /** The ORM's own connection pool, for the hot statements that run as named prepared statements. */
  pool: Pool;
  mode: 'external' | 'embedded';
  /** The server's URL, for a connection of its own outside the pool (the notification listener). */
  url: string;
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
  let guard: StatementGuard | undefined;
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
      driverOptions: {
        connectionTimeoutMillis: options.connectTimeoutMs ?? DATABASE_CONNECT_TIMEOUT_MS,
        // A startup parameter: `reset all` (run when a connection is reserved) returns to it.
        ...(options.statementTimeoutMs === undefined ? {} : { statement_timeout: options.statementTimeoutMs }),
        // Guarded before its first connection, so that every connection is.
        onPoolCreated: (created: Pool) => {
          guard = guardStatements(created, options.statementTimeoutMs);
        },
      },
      debug: false,
      logger: (message) => logger.debug({ orm: message }, 'orm'),
    });
  } catch (error) {
    await embedded?.stop();
    throw error;
  }

  const pool = await orm.em.getConnection().getNativeClient();
  const statementGuard = guard ?? guardStatements(pool, options.statementTimeoutMs);
  const database: Database = {
    orm,
    pool,
    mode: embedded ? 'embedded' : 'external',
    url: clientUrl,
    async migrate() {
      // The migrator first sets up its own table on a connection outside any transaction: done here, before the
      // transaction below holds a connection, so a pool of one connection does not wait for itself.
      await orm.migrator.getExecuted();
      // A migration may rewrite a large table: neither the server's limit nor the client's applies to it.
      const applied = await statementGuard.unbounded(() =>
        orm.em.getConnection().transactional(async (transaction) => {
          await orm.em.getConnection().execute('set local statement_timeout = 0', [], 'run', transaction);
          return orm.migrator.up({ transaction });
        }),
      );
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
