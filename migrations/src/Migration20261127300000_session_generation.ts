import { Migration } from '@mikro-orm/migrations';

/**
 * The session generation of each person (`issuer`, `subject` of the signed launch). A launch stores the current
 * generation in the session; ending a person's sessions raises it, and every session read refuses a session whose
 * generation is older. No row means generation 0, which every session before this migration carries.
 */
export class Migration20261127300000_session_generation extends Migration {
  override name = 'Migration20261127300000_session_generation';

  override up(): void {
    this.addSql(`
      create table session_generation (
        issuer text not null,
        subject text not null,
        generation integer not null check (generation > 0),
        ended_at timestamptz not null default now(),
        primary key (issuer, subject)
      );
    `);
  }

  override down(): void {
    this.addSql('drop table if exists session_generation;');
  }
}
