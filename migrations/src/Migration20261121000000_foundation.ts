import { Migration } from '@mikro-orm/migrations';

/** Storage primitives every flow builds on: one-time tokens (consumed atomically) and leases (locks with expiry). */
export class Migration20261121000000_foundation extends Migration {
  override name = 'Migration20261121000000_foundation';

  override up(): void {
    this.addSql(`
      create table one_time_token (
        id text primary key,
        purpose text not null,
        payload bytea not null,
        expires_at timestamptz not null,
        consumed_at timestamptz null,
        created_at timestamptz not null default now()
      );
    `);
    this.addSql('create index one_time_token_expires_at_idx on one_time_token (expires_at);');
    this.addSql(`
      create table lease (
        name text primary key,
        owner text not null,
        expires_at timestamptz not null
      );
    `);
  }

  override down(): void {
    this.addSql('drop table if exists lease;');
    this.addSql('drop table if exists one_time_token;');
  }
}
