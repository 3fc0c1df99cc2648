import type { Pool, PoolClient } from 'pg';

/** Where a statement runs: the pool (a statement of its own) or the client of an open transaction. */
export type Queryable = Pick<PoolClient, 'query'>;

/**
 * Runs `work` in one transaction on one pooled connection: committed when it returns, rolled back when it throws. A
 * connection that cannot even roll back (the database went away mid-transaction) is discarded, not returned to the pool.
 */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * SQL written with the ORM's `?` placeholders, run on one `pg` client (a transaction's), so writers shared with the ORM
 * side (the audit trail) can take part in a transaction held on a plain client. `?` inside quoted text or identifiers
 * stays as it is.
 */
export interface SqlOnClient {
  execute<T = Record<string, unknown>[]>(sql: string, params?: readonly unknown[]): Promise<T>;
  execute(sql: string, params: readonly unknown[], method: 'run'): Promise<{ affectedRows: number }>;
}

export function sqlOnClient(client: Queryable): SqlOnClient {
  return {
    async execute(sql: string, params: readonly unknown[] = [], method?: 'run') {
      const result = await client.query(numberedPlaceholders(sql, params.length), [...params]);
      return (method === 'run' ? { affectedRows: result.rowCount ?? 0 } : result.rows) as never;
    },
  };
}

function numberedPlaceholders(sql: string, count: number): string {
  let numbered = '';
  let quote: string | null = null;
  let index = 0;
  for (const char of sql) {
    if (quote !== null) {
      if (char === quote) quote = null;
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (char === '?') {
      index += 1;
      numbered += `$${index}`;
      continue;
    }
    numbered += char;
  }
  if (index !== count) throw new RangeError(`the statement has ${index} placeholders for ${count} parameters`);
  return numbered;
}
