// The service in a process of its own, built from `server/dist` (run `npm run build` first), so a test can kill it
// (SIGKILL) at an exact point of a request. The parent passes the environment the service loads its configuration from
// (`SERVICE_CHILD_ENV`, JSON) and learns the listening port over IPC.
import { buildApp } from '../../dist/app.js';
import { loadConfig } from '../../dist/config/app-config.js';
import { openDatabase } from '../../dist/db/orm.js';
import { createLogger } from '../../dist/logger.js';

const env = JSON.parse(process.env.SERVICE_CHILD_ENV ?? '{}');
const config = loadConfig(env);
const logger = createLogger('silent');
const db = await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR, logger, poolSize: 5 });
const app = await buildApp({ config, logger, db });
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.send?.({ ready: true, port: typeof address === 'object' && address !== null ? address.port : 0 });
