import type { Logger } from 'pino';

/** Every run of every instance in this process, so a test or a shutdown can wait for all of them. */
const everyRun = new Set<Promise<void>>();

/** Resolves once no background work of any instance runs in this process. */
export async function allBackgroundWorkIdle(): Promise<void> {
  while (everyRun.size > 0) await Promise.all([...everyRun]);
}

/**
 * Work an administrator request starts but does not wait for (the legacy backfill, preset reconciliation). One run per
 * key at a time in this process; a failure is logged and the next request starts the work again. `idle()` lets tests
 * and a shutdown wait for what is running.
 */
export class BackgroundWork {
  private readonly running = new Map<string, Promise<void>>();

  constructor(private readonly logger: Logger) {}

  /** Starts `work` unless a run under `key` is under way; resolves (never rejects) when that run ends. */
  start(key: string, work: () => Promise<unknown>): Promise<void> {
    const running = this.running.get(key);
    if (running !== undefined) return running;
    const run = Promise.resolve()
      .then(work)
      .then(
        () => undefined,
        (error: unknown) => this.logger.warn({ err: error, work: key.split(':', 1)[0] }, 'administrator background work failed'),
      )
      .finally(() => {
        this.running.delete(key);
        everyRun.delete(run);
      });
    this.running.set(key, run);
    everyRun.add(run);
    return run;
  }

  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()]);
  }
}
