import { randomBytes } from 'node:crypto';
import { openDatabase } from '@exb/server/db/orm.js';
import { createLogger } from '@exb/server/logger.js';

/** A fresh database on DATABASE_URL's server, dropped afterwards; without DATABASE_URL the embedded server. */
export async function benchDatabase(dataDir: string): Promise<{ url: string | undefined; drop(): Promise<void> }> {
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl === undefined || serverUrl === '') return { url: undefined, drop: async () => undefined };
  const name = `exb_bench_${randomBytes(6).toString('hex')}`;
  const admin = await openDatabase({ databaseUrl: serverUrl, dataDir, logger: createLogger('silent'), poolSize: 1 });
  await admin.orm.em.getConnection().execute(`create database ${name}`);
  await admin.close();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const again = await openDatabase({ databaseUrl: serverUrl, dataDir, logger: createLogger('silent'), poolSize: 1 });
      try {
        await again.orm.em.getConnection().execute(`drop database if exists ${name} with (force)`);
      } finally {
        await again.close();
      }
    },
  };
}
