import { Migration } from '@mikro-orm/migrations';

/**
 * The durable receipt of a course reset, on the course's connection record (`admin_course`). The reset writes it in
 * the same transaction that deletes the course's records, so the receipt exists exactly when that transaction
 * committed: after a connection lost while `COMMIT` was under way, reading it decides whether the reset happened.
 * `reset_receipt` holds the counts and content ids of what was reset, never a secret.
 */
export class Migration20261125200000_course_reset_receipt extends Migration {
  override name = 'Migration20261125200000_course_reset_receipt';

  override up(): void {
    this.addSql(`
      alter table admin_course
        add column reset_receipt_id uuid null,
        add column reset_at timestamptz null,
        add column reset_receipt jsonb null check (reset_receipt is null or jsonb_typeof(reset_receipt) = 'object'),
        add constraint admin_course_reset_receipt check (
          (reset_receipt_id is null) = (reset_at is null) and (reset_receipt_id is null) = (reset_receipt is null)
        );
    `);
  }

  override down(): void {
    this.addSql(`
      alter table admin_course
        drop constraint if exists admin_course_reset_receipt,
        drop column if exists reset_receipt,
        drop column if exists reset_at,
        drop column if exists reset_receipt_id;
    `);
  }
}
