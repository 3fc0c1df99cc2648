import type { MikroORM } from '@mikro-orm/postgresql';
import type { SqlOnClient } from './pg-transaction.js';

/**
 * Named leases in the `lease` table: a lock with an owner and an expiry, shared by every instance. Acquiring is one
 * statement that either inserts the row or takes over an expired one, so exactly one contender holds a live lease, and
 * a holder that crashed blocks others for at most the lease's lifetime.
 */
export async function tryAcquireLease(orm: MikroORM, name: string, owner: string, ttlSeconds: number): Promise<boolean> {
  const rows = await orm.em.getConnection().execute<{ owner: string }[]>(
    `insert into lease (name, owner, expires_at) values (?, ?, now() + (? * interval '1 second'))
     on conflict (name) do update set owner = excluded.owner, expires_at = excluded.expires_at
       where lease.expires_at <= now()
     returning owner`,
    [name, owner, ttlSeconds],
  );
  return rows[0]?.owner === owner;
}

/** Releases the lease if this owner still holds it; a lease taken over after expiry is left to its new owner. */
export async function releaseLease(orm: MikroORM, name: string, owner: string): Promise<void> {
  await orm.em.getConnection().execute('delete from lease where name = ? and owner = ?', [name, owner], 'run');
}

/**
 * Extends a lease this owner still holds unexpired; `false` once it expired or passed to another owner. Inside a
 * transaction the row lock it takes keeps the lease from being taken over until that transaction ends.
 */
export async function renewLease(sql: SqlOnClient, name: string, owner: string, ttlSeconds: number): Promise<boolean> {
  const rows = await sql.execute<{ owner: string }[]>(
    `update lease set expires_at = now() + (? * interval '1 second')
     where name = ? and owner = ? and expires_at > now() returning owner`,
    [ttlSeconds, name, owner],
  );
  return rows.length > 0;
}

/** The live leases named `name`, or whose names start with `prefix`. */
export async function liveLeaseNames(orm: MikroORM, name: string, prefix: string): Promise<string[]> {
  const rows = await orm.em.getConnection().execute<{ name: string }[]>(
    'select name from lease where expires_at > now() and (name = ? or starts_with(name, ?))',
    [name, prefix],
  );
  return rows.map((row) => row.name);
}
