import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { createLogger } from '../server/src/logger.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL server URL; each test file creates its own database on it. */
    databaseUrl: string;
  }
}

/**
 * Tests always run against a real PostgreSQL: the one in DATABASE_URL (CI points it at the machine's server), or an
 * embedded one started here for the whole run, so `npm test` works on a fresh machine without set-up.
 */
export default async function setup(project: TestProject) {
  if (process.env.DATABASE_URL) {
    project.provide('databaseUrl', process.env.DATABASE_URL);
    return;
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'exb-test-postgres-'));
  const { startEmbeddedPostgres } = await import('../server/src/db/embedded.js');
  const embedded = await startEmbeddedPostgres(dataDir, createLogger('warn'));
  project.provide('databaseUrl', embedded.url);
  return async () => {
    await embedded.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
