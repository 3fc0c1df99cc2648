import type { Pool, PoolClient } from 'pg';
import { markDatabaseError, StatementTimeoutError } from './unavailable.js';

/**
 * Bounds every statement of a pool from the client's side as well. PostgreSQL's own `statement_timeout` ends a
 * statement that runs too long, but not one whose server never answers (a network partition, a server that stopped):
 * that statement would wait for as long as the partition lasts. A statement without an answer {@link graceMs} after
 * the server's own limit ends its connection with a reset, which also discards what was not delivered yet, so a
 * statement still in flight (a token's spend) cannot reach the server later, when nobody waits for its answer.
 *
 * Every error a statement or a connection attempt of the pool raises is marked as the database's
 * ({@link markDatabaseError}), so socket errors are told apart from those of other sockets (a client's upload).
 */
export interface StatementGuard {
  /** Runs `work` (migrations) without the client-side limit. */
  unbounded<T>(work: () => Promise<T>): Promise<T>;
}

/** How long after PostgreSQL's own limit the client stops waiting: the server's clean cancellation comes first. */
export const CLIENT_GRACE_MS = 1_000;

type QueryFunction = (...args: unknown[]) => unknown;

export function guardStatements(pool: Pool, statementTimeoutMs: number | undefined): StatementGuard {
  let unboundedRuns = 0;
  const limitMs = statementTimeoutMs === undefined ? undefined : statementTimeoutMs + CLIENT_GRACE_MS;

  const connect = pool.connect.bind(pool) as QueryFunction;
  (pool as unknown as { connect: QueryFunction }).connect = (...args: unknown[]) => {
    const callback = args[0];
    if (typeof callback === 'function') {
      return connect((error: unknown, ...rest: unknown[]) => callback(markDatabaseError(error), ...rest));
    }
    return (connect() as Promise<PoolClient>).catch((error: unknown) => {
      throw markDatabaseError(error);
    });
  };

  pool.on('connect', (client) => {
    const query = client.query as unknown as QueryFunction;
    (client as unknown as { query: QueryFunction }).query = function guarded(this: PoolClient, ...args: unknown[]) {
      const first = args[0] as { submit?: unknown } | null;
      // Submittables (cursors) manage their own reads.
      if (typeof first === 'object' && first !== null && typeof first.submit === 'function') return query.apply(this, args);
      const timer =
        limitMs === undefined || unboundedRuns > 0 ? undefined : setTimeout(() => abandon(client, limitMs), limitMs);
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === 'function') {
        args[last] = (error: unknown, ...rest: unknown[]) => {
          clearTimeout(timer);
          (callback as QueryFunction)(markDatabaseError(error), ...rest);
        };
        return query.apply(this, args);
      }
      return (query.apply(this, args) as Promise<unknown>).then(
        (result) => {
          clearTimeout(timer);
          return result;
        },
        (error: unknown) => {
          clearTimeout(timer);
          throw markDatabaseError(error);
        },
      );
    };
  });

  return {
    async unbounded(work) {
      unboundedRuns += 1;
      try {
        return await work();
      } finally {
        unboundedRuns -= 1;
      }
    },
  };
}

/** Fails the connection's statements with a timeout and resets it: whatever it had not delivered is dropped. */
function abandon(client: PoolClient, limitMs: number): void {
  const connection = (client as unknown as { connection: { emit(event: string, error: Error): void; stream: SocketLike } }).connection;
  connection.emit('error', new StatementTimeoutError(limitMs));
  const { stream } = connection;
  if (typeof stream.resetAndDestroy === 'function') stream.resetAndDestroy();
  else stream.destroy();
}

interface SocketLike {
  resetAndDestroy?: () => void;
  destroy(): void;
}
