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
 *
 * A statement of the pool's own (`pool.query`: one statement, its own transaction) that met a connection the server had
 * already ended is sent again on another connection: see {@link neverRan} for when that is known.
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

  const poolQuery = pool.query.bind(pool) as QueryFunction;
  // Connections terminated together are found dead one after the other: each attempt that never ran takes one of them
  // out of the pool, so as many attempts as the pool holds connections reach a live one (or a new one).
  const attempts = 1 + ((pool as unknown as { options?: { max?: number } }).options?.max ?? 10);
  (pool as unknown as { query: QueryFunction }).query = (...args: unknown[]) => {
    if (typeof args[args.length - 1] === 'function') return poolQuery(...args);
    const attempt = (left: number): Promise<unknown> =>
      (poolQuery(...args) as Promise<unknown>).catch((error: unknown) => {
        if (left > 1 && neverRanMark.has(error as object)) return attempt(left - 1);
        throw error;
      });
    return attempt(attempts);
  };

  pool.on('connect', (client) => {
    // A connection this guard resets reports it as an error event, which must never go unheard (it would end the
    // process); its statements fail on their own.
    client.on('error', () => undefined);
    const query = client.query as unknown as QueryFunction;
    const connection = connectionOf(client);
    // Answers that the server got as far as the statement's Bind; see {@link neverRan}.
    let answers = 0;
    connection.on('message', (message: { name?: unknown }) => {
      if (!BEFORE_EXECUTION.has(message.name)) answers += 1;
    });
    (client as unknown as { query: QueryFunction }).query = function guarded(this: PoolClient, ...args: unknown[]) {
      const first = args[0] as { submit?: unknown } | null;
      // Submittables (cursors) manage their own reads.
      if (typeof first === 'object' && first !== null && typeof first.submit === 'function') return query.apply(this, args);
      const timer =
        limitMs === undefined || unboundedRuns > 0 ? undefined : setTimeout(() => abandon(client, limitMs), limitMs);
      const observed = soleExtendedStatement(client, args) ? answers : null;
      const settle = (error: unknown) => {
        clearTimeout(timer);
        if (error instanceof Error && observed !== null && observed === answers && neverRan(error)) neverRanMark.add(error);
        return markDatabaseError(error);
      };
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === 'function') {
        args[last] = (error: unknown, ...rest: unknown[]) => (callback as QueryFunction)(settle(error), ...rest);
        return query.apply(this, args);
      }
      return (query.apply(this, args) as Promise<unknown>).then(
        (result) => {
          clearTimeout(timer);
          return result;
        },
        (error: unknown) => {
          throw settle(error);
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

/** Errors of statements that are known never to have run ({@link neverRan}). */
const neverRanMark = new WeakSet<object>();

/**
 * Messages that say nothing of whether the statement ran: the answer to its Parse (sent before its Bind is even read),
 * the error itself, and the connection's asynchronous reports.
 */
const BEFORE_EXECUTION: ReadonlySet<unknown> = new Set(['parseComplete', 'error', 'parameterStatus', 'notification']);

/**
 * Whether a failed statement certainly never ran. PostgreSQL ends a connection it was told to terminate
 * (`pg_terminate_backend`, a fast shutdown) with the error `57P01`, sent after whatever it had buffered for the client.
 * A statement of the extended protocol (any with parameters) answers its Bind (BindComplete) before it executes; so
 * `57P01` with nothing but a ParseComplete before it means the server ended the connection before it executed the
 * statement, usually before it read it (the connection was terminated while idle in the pool). A statement terminated
 * while it ran (an operator ending a runaway query) is not sent again, nor is one whose connection closed without a
 * word or whose server crashed: their last answers may be lost, and whether they committed is open.
 */
function neverRan(error: Error): boolean {
  return (error as { code?: unknown }).code === '57P01';
}

/**
 * A statement with parameters (the extended protocol) sent on a connection with nothing else in flight, so that the
 * answers counted while it runs are its own.
 */
function soleExtendedStatement(client: PoolClient, args: unknown[]): boolean {
  const state = client as unknown as { _activeQuery?: unknown; _queryQueue?: unknown[] };
  if (state._activeQuery || (state._queryQueue?.length ?? 1) > 0) return false;
  const first = args[0];
  if (typeof first === 'object' && first !== null) {
    const config = first as { name?: unknown; values?: unknown };
    return Boolean(config.name) || (Array.isArray(config.values) && config.values.length > 0) || (Array.isArray(args[1]) && args[1].length > 0);
  }
  return Array.isArray(args[1]) && args[1].length > 0;
}

interface ConnectionLike {
  emit(event: string, error: Error): void;
  on(event: 'message', listener: (message: { name?: unknown }) => void): void;
  stream: SocketLike;
}

function connectionOf(client: PoolClient): ConnectionLike {
  return (client as unknown as { connection: ConnectionLike }).connection;
}

/** Fails the connection's statements with a timeout and resets it: whatever it had not delivered is dropped. */
function abandon(client: PoolClient, limitMs: number): void {
  const connection = connectionOf(client);
  connection.emit('error', new StatementTimeoutError(limitMs));
  const { stream } = connection;
  if (typeof stream.resetAndDestroy === 'function') stream.resetAndDestroy();
  else stream.destroy();
}

interface SocketLike {
  resetAndDestroy?: () => void;
  destroy(): void;
}
