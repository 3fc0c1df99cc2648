import type { FastifyInstance } from 'fastify';

export interface ExpiringStore {
  purgeExpired(): Promise<number>;
}

const PURGE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Deletes spent and expired one-time rows every few minutes. Every instance runs it; the deletes are idempotent and
 * walk the expiry indexes only, so instances need no coordination.
 */
export function scheduleHousekeeping(app: FastifyInstance, stores: Record<string, ExpiringStore>): void {
  const timer = setInterval(() => {
    for (const [name, store] of Object.entries(stores)) {
      store.purgeExpired().catch((error: unknown) => app.log.warn({ err: error, store: name }, 'expired rows could not be purged'));
    }
  }, PURGE_INTERVAL_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}
