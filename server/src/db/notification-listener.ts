import pg from 'pg';
import type { Logger } from 'pino';

/**
 * One connection of its own that `LISTEN`s on one channel, outside the pool: a listening connection is held for good,
 * and a pooled one would be reset and handed to requests. When the connection is lost (PostgreSQL restarts, the
 * network drops) it reconnects with a growing, jittered delay, and never throws into the service: requests go on
 * through the pool while it is away. Notifications sent while it was away are lost, so each new connection after the
 * first is reported with {@link NotificationListenerOptions.onReconnect}: the listener's users refresh what they show.
 */
export interface NotificationListenerOptions {
  connectionString: string;
  /** A plain identifier (letters, digits, underscores): it is written into the `LISTEN` statement. */
  channel: string;
  logger: Pick<Logger, 'info' | 'warn'>;
  onNotification(payload: string): void;
  /** A lost connection is back: notifications of the gap are missed. */
  onReconnect?(): void;
  /** First and longest delay between connection attempts (defaults: 250 ms, 10 s). */
  backoff?: { initialMs: number; maxMs: number };
  /** How long one connection attempt may take. */
  connectTimeoutMs?: number;
}

const CHANNEL = /^[a-z_][a-z0-9_]*$/;
const DEFAULT_BACKOFF = { initialMs: 250, maxMs: 10_000 };

export class NotificationListener {
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private attempts = 0;
  private everConnected = false;
  private readonly backoff: { initialMs: number; maxMs: number };

  constructor(private readonly options: NotificationListenerOptions) {
    if (!CHANNEL.test(options.channel)) throw new Error(`not a channel name: ${options.channel}`);
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
  }

  /** Whether the connection is up and listening now. */
  get listening(): boolean {
    return this.client !== null;
  }

  /** Connects in the background; resolves after the first attempt, successful or not. */
  start(): Promise<void> {
    return this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({
      connectionString: this.options.connectionString,
      connectionTimeoutMillis: this.options.connectTimeoutMs ?? 10_000,
      // A silent peer (a partition) is noticed by the kernel's keepalive rather than never.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = null;
      client.removeAllListeners('notification');
      // The socket may still be open after an error event; it is of no use any more.
      void client.end().catch(() => undefined);
      if (!this.closed) {
        this.options.logger.warn({ code: (error as { code?: string } | undefined)?.code }, `listener connection lost (${error?.message ?? 'ended'}); reconnecting`);
        this.schedule();
      }
    };
    // Every error of this client ends up here; none may go unheard (it would end the process).
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (message) => {
      if (message.channel === this.options.channel && message.payload !== undefined) this.options.onNotification(message.payload);
    });
    try {
      await client.connect();
      await client.query(`listen ${this.options.channel}`);
    } catch (error) {
      onLost(error as Error);
      return;
    }
    if (lost) return;
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.attempts = 0;
    if (this.everConnected) {
      this.options.logger.info({ channel: this.options.channel }, 'listener connection back');
      this.options.onReconnect?.();
    }
    this.everConnected = true;
  }

  private schedule(): void {
    if (this.timer !== null || this.closed) return;
    const ceiling = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** this.attempts);
    this.attempts += 1;
    // Full jitter: the instances of a service that lost the database together do not come back in step.
    const delay = Math.max(this.backoff.initialMs, Math.round(Math.random() * ceiling));
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, delay);
    this.timer.unref();
  }
}
