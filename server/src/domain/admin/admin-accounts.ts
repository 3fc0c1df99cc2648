import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';

/** Document 2 "Term": dates as ISO 8601 strings, `null` where the LMS has none. */
export interface TermView {
  readonly id: string;
  readonly name: string;
  readonly startAt: string | null;
  readonly endAt: string | null;
}

interface AccountRow {
  operational_term_id: string | null;
  operational_term_name: string | null;
  operational_term_start_at: Date | null;
  operational_term_end_at: Date | null;
  legacy_backfill_at: Date | null;
}

export interface AdminAccountState {
  /** The term the administrator chose, as the LMS listed it then; `null` until one is chosen. */
  readonly operationalTerm: TermView | null;
  /** Whether the one-time backfill of legacy connections finished for the account. */
  readonly backfilled: boolean;
}

function iso(value: Date | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

/**
 * Creates the account's row if it has none and locks it until the caller's transaction ends: what serializes the
 * account's writes that must count their own rows first (a new tool preset under the account's limit).
 */
export async function lockAccount(em: EntityManager, accountId: string): Promise<void> {
  await em.execute('insert into admin_account (account_id) values (?) on conflict (account_id) do nothing', [accountId], 'run');
  await em.execute('select 1 from admin_account where account_id = ? for update', [accountId]);
}

/** Per root account: the chosen operational term and the backfill marker (`admin_account`). */
export class AdminAccounts {
  constructor(private readonly orm: MikroORM) {}

  private execute<T>(sql: string, params: unknown[]): Promise<T[]> {
    return this.orm.em.getConnection().execute<T[]>(sql, params);
  }

  async state(accountId: string): Promise<AdminAccountState> {
    const rows = await this.execute<AccountRow>(
      `select operational_term_id, operational_term_name, operational_term_start_at, operational_term_end_at, legacy_backfill_at
       from admin_account where account_id = ?`,
      [accountId],
    );
    const row = rows[0];
    if (row === undefined) return { operationalTerm: null, backfilled: false };
    return {
      operationalTerm:
        row.operational_term_id === null
          ? null
          : {
              id: row.operational_term_id,
              name: row.operational_term_name ?? '',
              startAt: iso(row.operational_term_start_at),
              endAt: iso(row.operational_term_end_at),
            },
      backfilled: row.legacy_backfill_at !== null,
    };
  }

  async saveOperationalTerm(accountId: string, term: TermView): Promise<void> {
    await this.execute(
      `insert into admin_account (account_id, operational_term_id, operational_term_name, operational_term_start_at, operational_term_end_at)
       values (?, ?, ?, ?, ?)
       on conflict (account_id) do update set
         operational_term_id = excluded.operational_term_id, operational_term_name = excluded.operational_term_name,
         operational_term_start_at = excluded.operational_term_start_at, operational_term_end_at = excluded.operational_term_end_at,
         updated_at = now()`,
      [accountId, term.id, term.name.slice(0, 200), term.startAt, term.endAt],
    );
  }

  async markBackfilled(accountId: string): Promise<void> {
    await this.execute(
      `insert into admin_account (account_id, legacy_backfill_at) values (?, now())
       on conflict (account_id) do update set legacy_backfill_at = coalesce(admin_account.legacy_backfill_at, now()), updated_at = now()`,
      [accountId],
    );
  }
}
