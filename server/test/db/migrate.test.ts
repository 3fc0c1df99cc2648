import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { migrations } from '@exb/migrations';
import { openDatabase } from '../../src/db/orm.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase } from '../support/database.js';

it('migrates a fresh database through a pool of one connection', async () => {
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'exb-migrate-'));
  const db = await openDatabase({ databaseUrl: database.url, dataDir, logger: createLogger('silent'), poolSize: 1, connectTimeoutMs: 3_000 });
  try {
    expect(await db.migrate()).toEqual(migrations.map((migration) => migration.name));
    expect(await db.pendingMigrations()).toEqual([]);
  } finally {
    await db.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
