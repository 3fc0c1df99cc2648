import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A write PostgreSQL itself refuses, installed as a trigger in a test database and removed again. */
export interface InjectedWriteFault {
  /** How many statements the trigger has refused so far. */
  refused(): Promise<number>;
  remove(): Promise<void>;
}

export interface WriteFaultSpec {
  table: string;
  /** `INSERT` or `UPDATE`. */
  operation: 'INSERT' | 'UPDATE';
  /** A PL/pgSQL condition on `new` (and `old` for updates) that selects the rows to refuse. */
  when: string;
  /** How many matching statements fail before the trigger lets them pass (default 1). */
  times?: number;
  /**
   * `before` (default): the statement itself fails. `commit`: a deferred constraint trigger fails the transaction's
   * `COMMIT`, which the server then answers with the error (the transaction rolled back).
   */
  at?: 'before' | 'commit';
}

/**
 * Makes the next `times` matching writes fail inside the database: the statement raises, its transaction can only roll
 * back, exactly as when a real write fails after earlier statements succeeded. The counter is a sequence, which a
 * rollback does not undo, so the failures are counted even though each one rolls back.
 */
export async function failNextWrites(databaseUrl: string, spec: WriteFaultSpec): Promise<InjectedWriteFault> {
  const suffix = randomBytes(4).toString('hex');
  const names = { sequence: `test_fault_seq_${suffix}`, fn: `test_fault_fn_${suffix}`, trigger: `test_fault_trg_${suffix}` };
  const times = spec.times ?? 1;
  await runSql(databaseUrl, [
    `create sequence ${names.sequence}`,
    `create function ${names.fn}() returns trigger language plpgsql as $$
       begin
         if ${spec.when} then
           if nextval('${names.sequence}') <= ${times} then
             raise exception 'injected write failure';
           end if;
         end if;
         return new;
       end $$`,
    spec.at === 'commit'
      ? `create constraint trigger ${names.trigger} after ${spec.operation} on ${spec.table}
           deferrable initially deferred for each row execute function ${names.fn}()`
      : `create trigger ${names.trigger} before ${spec.operation} on ${spec.table} for each row execute function ${names.fn}()`,
  ]);
  return {
    async refused() {
      const rows = await runSql(databaseUrl, [`select last_value, is_called from ${names.sequence}`]);
      const row = rows[0] as { last_value: string; is_called: boolean };
      return row.is_called ? Math.min(Number(row.last_value), times) : 0;
    },
    async remove() {
      await runSql(databaseUrl, [
        `drop trigger if exists ${names.trigger} on ${spec.table}`,
        `drop function if exists ${names.fn}()`,
        `drop sequence if exists ${names.sequence}`,
      ]);
    },
  };
}

/** Runs statements in order on a connection of its own; returns the rows of the last. */
export async function runSql(databaseUrl: string, statements: string[]): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    let rows: unknown[] = [];
    for (const statement of statements) rows = (await client.query(statement)).rows;
    return rows;
  } finally {
    await client.end();
  }
}

/** A pause PostgreSQL itself takes inside a transaction, installed as a trigger and removed again. */
export interface InjectedStall {
  /** Waits until a backend is sleeping in the stall and returns its process id. */
  sleeper(timeoutMs?: number): Promise<number>;
  remove(): Promise<void>;
}

export interface StallSpec {
  table: string;
  /**
   * `statement`: every `operation` statement on the table sleeps before it runs (the transaction is mid-way);
   * `commit`: a deferred constraint trigger sleeps when the transaction commits, after `COMMIT` was sent, for rows
   * matching `when` (a condition on `new` and `old`).
   */
  at: 'statement' | 'commit';
  operation: 'INSERT' | 'UPDATE' | 'DELETE';
  when?: string;
  seconds: number;
}

/**
 * Makes a transaction sleep at a chosen point, so a test can act on its backend at exactly that moment (terminate it
 * with `pg_terminate_backend`, or cut its connection).
 */
export async function stallWrites(databaseUrl: string, spec: StallSpec): Promise<InjectedStall> {
  const suffix = randomBytes(4).toString('hex');
  const names = { fn: `test_stall_fn_${suffix}`, trigger: `test_stall_trg_${suffix}` };
  const body =
    spec.at === 'commit'
      ? `begin if ${spec.when ?? 'true'} then perform pg_sleep(${spec.seconds}); end if; return null; end`
      : `begin perform pg_sleep(${spec.seconds}); return null; end`;
  const trigger =
    spec.at === 'commit'
      ? `create constraint trigger ${names.trigger} after ${spec.operation} on ${spec.table}
           deferrable initially deferred for each row execute function ${names.fn}()`
      : `create trigger ${names.trigger} before ${spec.operation} on ${spec.table} for each statement execute function ${names.fn}()`;
  await runSql(databaseUrl, [`create function ${names.fn}() returns trigger language plpgsql as $$ ${body} $$`, trigger]);
  return {
    async sleeper(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const rows = (await runSql(databaseUrl, [
          `select pid from pg_stat_activity
           where datname = current_database() and state = 'active' and wait_event = 'PgSleep' and pid <> pg_backend_pid()`,
        ])) as { pid: number }[];
        if (rows[0] !== undefined) return rows[0].pid;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error('no backend reached the stall in time');
    },
    async remove() {
      await runSql(databaseUrl, [`drop trigger if exists ${names.trigger} on ${spec.table}`, `drop function if exists ${names.fn}()`]);
    },
  };
}

/** Ends a backend the way an operator or a failover would. */
export async function terminateBackend(databaseUrl: string, pid: number): Promise<void> {
  await runSql(databaseUrl, [`select pg_terminate_backend(${Number(pid)})`]);
}
