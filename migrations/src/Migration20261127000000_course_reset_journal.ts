import { Migration } from '@mikro-orm/migrations';

/**
 * The journal of a course reset while it runs, so a reset whose process died can be finished or undone by another
 * instance. One row per course (one reset at a time), written before the first LMS step and deleted by the reset's
 * transaction (a receipt and no journal: it committed) or once the reset was undone.
 *
 * - `phase`: `lms` while codes are removed, `local` once the transaction is under way, `compensating` once the codes
 *   are being put back; a journal found in `local` is finished, any other is undone.
 * - `plan`: the assessments whose codes the reset removes (content id, kind, LMS id, title), in step order; no secret.
 * - `removed`: content ids whose removal in the LMS began (the last one may not have reached the LMS).
 * - `codes_sealed`: the captured access codes, sealed with a key of their own and bound to the course.
 * - `owner`: the lease owner that wrote it; whoever holds the course-reset lease under another owner may take it over.
 *
 * The audit trail gains the outcomes of such a reset: `started` (written before the first LMS step), `recovered`
 * (finished from the journal) and `compensated` (undone from the journal).
 */
export class Migration20261127000000_course_reset_journal extends Migration {
  override name = 'Migration20261127000000_course_reset_journal';

  override up(): void {
    this.addSql(`
      create table course_reset_journal (
        course_id text primary key check (course_id ~ '^[0-9]{1,20}$'),
        account_id text not null check (account_id ~ '^[0-9]{1,20}$'),
        owner text not null,
        phase text not null check (phase in ('lms', 'local', 'compensating')),
        by_lms_user_id text not null check (by_lms_user_id ~ '^[0-9]{1,20}$'),
        actor_name text null check (actor_name is null or char_length(actor_name) <= 256),
        request_id text null check (request_id is null or char_length(request_id) <= 64),
        plan jsonb not null check (jsonb_typeof(plan) = 'array'),
        removed jsonb not null default '[]'::jsonb check (jsonb_typeof(removed) = 'array'),
        codes_sealed bytea not null,
        started_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
    `);
    this.addSql('alter table audit_entry drop constraint if exists audit_entry_outcome_check;');
    this.addSql(`
      alter table audit_entry add constraint audit_entry_outcome_check check (
        outcome in ('success', 'refused', 'failed', 'rolled-back', 'verify-required', 'started', 'recovered', 'compensated')
      );
    `);
  }

  override down(): void {
    this.addSql('drop table if exists course_reset_journal;');
    this.addSql('alter table audit_entry drop constraint if exists audit_entry_outcome_check;');
    this.addSql(`
      alter table audit_entry add constraint audit_entry_outcome_check check (
        outcome in ('success', 'refused', 'failed', 'rolled-back', 'verify-required')
      ) not valid;
    `);
  }
}
