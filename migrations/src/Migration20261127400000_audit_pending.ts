import { Migration } from '@mikro-orm/migrations';

/**
 * An audited change first enters its attempt as `pending`, before it touches the LMS or the database, and then
 * completes that entry with its outcome. A change therefore never stands without an entry: when the attempt cannot be
 * entered nothing is changed, and when the completion cannot be written the entry stays `pending` (attempted, outcome
 * not recorded) while the caller still gets the change's own answer.
 */
export class Migration20261127400000_audit_pending extends Migration {
  override name = 'Migration20261127400000_audit_pending';

  override up(): void {
    this.addSql('alter table audit_entry drop constraint if exists audit_entry_outcome_check;');
    this.addSql(`
      alter table audit_entry add constraint audit_entry_outcome_check check (
        outcome in ('pending', 'success', 'refused', 'failed', 'rolled-back', 'verify-required', 'started', 'recovered', 'compensated')
      );
    `);
  }

  override down(): void {
    this.addSql('alter table audit_entry drop constraint if exists audit_entry_outcome_check;');
    this.addSql(`
      alter table audit_entry add constraint audit_entry_outcome_check check (
        outcome in ('success', 'refused', 'failed', 'rolled-back', 'verify-required', 'started', 'recovered', 'compensated')
      ) not valid;
    `);
  }
}
