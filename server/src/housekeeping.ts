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

/**
 * Runs `task` every `intervalMs` on every instance (`0` switches it off); tasks that must not overlap across instances
 * take a lease themselves. A run still going when the next is due is not doubled. `atStart` also runs it once as soon
 * as the instance is ready, without holding up the start (work a dead instance left behind is picked up at once).
 */
export function schedulePeriodicTask(
  app: FastifyInstance,
  name: string,
  intervalMs: number,
  task: () => Promise<unknown>,
  options: { readonly atStart?: boolean } = {},
): void {
  if (intervalMs <= 0) return;
  let running = false;
  const run = () => {
    if (running) return;
    running = true;
    task()
      .catch((error: unknown) => app.log.warn({ err: error, task: name }, 'periodic task failed'))
      .finally(() => {
        running = false;
      });
  };
  const timer = setInterval(run, intervalMs);
  timer.unref();
  if (options.atStart === true) app.addHook('onReady', async () => run());
  app.addHook('onClose', async () => clearInterval(timer));
}
