import type { Logger } from 'pino';

/** While an outage lasts, one log line per this interval; a line per refused request would flood the log. */
const OUTAGE_LOG_INTERVAL_MS = 60_000;

/**
 * Logs a database outage as one warning when the first request is refused, then at most one a minute (with the number of
 * requests refused since) while it lasts: no stack, the driver's code only.
 */
export class OutageLog {
  private lastLoggedAt: number | null = null;
  private refusedSinceLog = 0;

  constructor(
    private readonly logger: Pick<Logger, 'warn'>,
    private readonly now: () => number = Date.now,
  ) {}

  refused(error: unknown): void {
    this.refusedSinceLog += 1;
    const now = this.now();
    if (this.lastLoggedAt !== null && now - this.lastLoggedAt < OUTAGE_LOG_INTERVAL_MS) return;
    const code = (error as { code?: unknown }).code;
    this.logger.warn(
      { code: typeof code === 'string' ? code : undefined, refused: this.refusedSinceLog },
      `database unreachable (${String((error as { message?: unknown }).message ?? error)}); answering 503 until it is back`,
    );
    this.lastLoggedAt = now;
    this.refusedSinceLog = 0;
  }
}
