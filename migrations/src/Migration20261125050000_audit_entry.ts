import { Migration } from '@mikro-orm/migrations';

/**
 * The audit trail: an append-only record of every change to enforcement and its secrets (who, when, which course and
 * assessment, what, the outcome, the request). Rows are only inserted, and purged by age; `details` holds which fields
 * changed and counts, never a secret value (the writer refuses secret-looking keys). Indexed for the account-wide list
 * (newest first), a course's and an assessment's history.
 */
export class Migration20261125050000_audit_entry extends Migration {
  override name = 'Migration20261125050000_audit_entry';

  override up(): void {
    this.addSql(`
      create table audit_entry (
        id bigserial primary key,
        occurred_at timestamptz not null default now(),
        root_account_id text null check (root_account_id is null or root_account_id ~ '^[0-9]{1,20}$'),
        course_id text null check (course_id is null or course_id ~ '^[0-9]{1,20}$'),
        content_id text null check (content_id is null or char_length(content_id) <= 100),
        action text not null check (action ~ '^[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)+$'),
        outcome text not null check (outcome in ('success', 'refused', 'failed', 'rolled-back', 'verify-required')),
        actor_lms_user_id text null,
        actor_name text null check (actor_name is null or char_length(actor_name) <= 256),
        actor_role text not null check (actor_role in ('instructor', 'admin', 'student', 'system')),
        request_id text null check (request_id is null or char_length(request_id) <= 64),
        details jsonb not null default '{}'::jsonb
      );
    `);
    this.addSql('create index audit_entry_account_idx on audit_entry (root_account_id, occurred_at desc, id desc);');
    this.addSql('create index audit_entry_course_idx on audit_entry (course_id, occurred_at desc, id desc);');
    this.addSql('create index audit_entry_occurred_idx on audit_entry (occurred_at);');
  }

  override down(): void {
    this.addSql('drop table if exists audit_entry;');
  }
}
