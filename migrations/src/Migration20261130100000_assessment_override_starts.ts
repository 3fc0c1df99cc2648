import { Migration } from '@mikro-orm/migrations';

/**
 * The unlock and due times of each discovered assessment's overrides (a section, a group or some students starting at
 * another time than the base dates), so the pre-exam sweep checks before the earliest of them too.
 */
export class Migration20261130100000_assessment_override_starts extends Migration {
  override name = 'Migration20261130100000_assessment_override_starts';

  override up(): void {
    this.addSql("alter table assessment add column if not exists override_starts timestamptz[] not null default '{}';");
  }

  override down(): void {
    this.addSql('alter table assessment drop column if exists override_starts;');
  }
}
