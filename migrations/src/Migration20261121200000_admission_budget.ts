import { Migration } from '@mikro-orm/migrations';

/**
 * Distributed admission budgets (rate-limiter-flexible's PostgreSQL layout). The table is created here rather than by
 * the library at start, so the service never needs DDL rights at run time and `/ready` sees it like any other table.
 */
export class Migration20261121200000_admission_budget extends Migration {
  override name = 'Migration20261121200000_admission_budget';

  override up(): void {
    this.addSql(`
      create table admission_budget (
        key varchar(255) primary key,
        points integer not null default 0,
        expire bigint
      );
    `);
    this.addSql('create index admission_budget_expire_idx on admission_budget (expire);');
  }

  override down(): void {
    this.addSql('drop table if exists admission_budget;');
  }
}
