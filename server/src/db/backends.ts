import type { MikroORM } from '@mikro-orm/postgresql';
import type { SqlOnClient } from './pg-transaction.js';

/**
 * The PostgreSQL server process (backend) behind one connection. A connection lost in the middle of a statement may
 * leave its backend running for a while; ending it for sure is how a caller learns that the backend's transaction is
 * over, one way or the other, before it reads what that transaction left.
 */
export interface BackendRef {
  readonly pid: number;
  /** `pg_stat_activity.backend_start` as text: together with the pid it names one backend, never a reused pid. */
  readonly startedAt: string;
}

/** The backend of the connection `sql` runs on. */
export async function currentBackend(sql: SqlOnClient): Promise<BackendRef> {
  const rows = await sql.execute<{ pid: number; started_at: string }[]>(
    'select pid, backend_start::text as started_at from pg_stat_activity where pid = pg_backend_pid()',
  );
  const row = rows[0];
  if (row === undefined) throw new Error('the database did not report its backend');
  return { pid: Number(row.pid), startedAt: row.started_at };
}

/**
 * Asks the server to end the backend (it belongs to the service's own role) and tells whether it is gone. Ending one
 * that is already gone does nothing, so a caller polls this until it answers `true`.
 */
export async function endBackend(orm: MikroORM, backend: BackendRef): Promise<boolean> {
  // The call sits in the select list, so it runs for the one row the filter keeps and no other backend.
  const rows = await orm.em.getConnection().execute<{ signalled: boolean }[]>(
    'select pg_terminate_backend(pid) as signalled from pg_stat_activity where pid = ? and backend_start::text = ?',
    [backend.pid, backend.startedAt],
  );
  return rows.length === 0;
}
