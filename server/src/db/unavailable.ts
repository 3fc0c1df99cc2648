/**
 * Whether an error means the database cannot be reached right now, as opposed to a statement that failed: the one place
 * that tells them apart. Such errors pass unchanged through the driver (`pg`), its pool and MikroORM (whose exceptions
 * copy the driver error's own properties), so the error itself is inspected, never its causes: an unrelated network
 * failure (an outgoing `fetch`) wraps its socket error as a cause and must not read as a database outage.
 *
 * A socket error's code says nothing of whose socket it was: a client that aborts its upload fails the request stream
 * with `ECONNRESET` too. Socket errors therefore count only when the database's pool raised them
 * ({@link markDatabaseError}, set by `statement-guard.ts`); SQLSTATEs and the driver's own messages come from nowhere else.
 */

/** Socket errors of connecting to or talking with the server. */
const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * The server is shutting down (administrator, crash) or not accepting connections yet (`57P03`); or a statement ran
 * past `statement_timeout` or was cancelled (`57014`): neither says anything of the request, both pass.
 */
const UNAVAILABLE_SQLSTATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '57014']);

/**
 * `55000` is the generic "object not in prerequisite state"; only the server's check of the database at connection
 * ("database … is not currently accepting connections": it is being dropped, or marked `datallowconn = false`) is an
 * outage. Told by the server's routine, which unlike the message is not translated.
 */
const DATABASE_CHECK_ROUTINE = 'CheckMyDatabase';

/** SQLSTATE class 08: connection exceptions. */
const CONNECTION_EXCEPTION_CLASS = /^08[0-9A-Z]{3}$/;

/** What `pg` and `pg-pool` throw, without a code, when a connection ends, cannot be made in time, or is unusable. */
const DRIVER_MESSAGES: readonly RegExp[] = [
  /^Connection terminated/,
  /^timeout expired$/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
  /^Cannot use a pool after calling end on the pool$/,
];

export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message, routine } = error as { code?: unknown; message?: unknown; routine?: unknown };
  if (typeof code === 'string') {
    if (NETWORK_ERROR_CODES.has(code)) return isDatabaseError(error);
    if (UNAVAILABLE_SQLSTATES.has(code) || CONNECTION_EXCEPTION_CLASS.test(code)) return true;
    if (code === '55000' && routine === DATABASE_CHECK_ROUTINE) return true;
  }
  return typeof message === 'string' && DRIVER_MESSAGES.some((pattern) => pattern.test(message));
}

/**
 * Own and non-enumerable: MikroORM's exceptions copy every own property name of the driver error they wrap, and logs
 * do not show it.
 */
const DATABASE_ORIGIN = 'raisedByDatabasePool';

/** Marks an error as raised by the database pool (a statement or a connection attempt); returns it. */
export function markDatabaseError<T>(error: T): T {
  if (typeof error === 'object' && error !== null && Object.isExtensible(error) && !Object.hasOwn(error, DATABASE_ORIGIN)) {
    Object.defineProperty(error, DATABASE_ORIGIN, { value: true, enumerable: false });
  }
  return error;
}

export function isDatabaseError(error: object): boolean {
  return Object.hasOwn(error, DATABASE_ORIGIN);
}

/** A statement the server did not answer within its limit (and the client's grace after it); its connection is reset. */
export class StatementTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';

  constructor(limitMs: number) {
    super(`the database did not answer a statement within ${limitMs} ms`);
    this.name = 'StatementTimeoutError';
    markDatabaseError(this);
  }
}
