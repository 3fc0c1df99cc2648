import { Migration } from '@mikro-orm/migrations';

/**
 * School tool presets (Document 2) and their assignments to connected courses:
 * - `admin_tool_preset`: one reusable exam tool of a root account (at most 32 per account, counted under the account's
 *   `admin_account` row lock), its definition already normalized by the shared policy module.
 * - `admin_tool_preset_assignment`: per preset and course, whether the preset is wanted there (`desired_assigned`) and
 *   how far synchronization got (`status`). `revision` moves with every change of the wish or of the preset, and a
 *   synchronization marks a row applied only for the revision it read (`applied_revision`), so a change made while a
 *   rollout runs is never marked done with the old definition. `claim_owner`/`claim_expires_at` are the row's lease
 *   while one reconciliation pass works on it, so two passes never take the same course.
 *
 * A course's assignments are deleted with `delete from admin_tool_preset_assignment where course_id = ?` (course
 * reset); the preset rows stay. A preset is deleted only after its assignment rows (no cascade: the service removes
 * the applied records first and refuses while any is still wanted).
 */
export class Migration20261125100000_tool_presets extends Migration {
  override name = 'Migration20261125100000_tool_presets';

  override up(): void {
    this.addSql(`
      create table admin_tool_preset (
        id uuid not null,
        account_id text not null check (account_id ~ '^[1-9][0-9]{0,18}$'),
        name text not null check (char_length(name) between 1 and 80),
        description text not null default '' check (char_length(description) <= 240),
        tool jsonb not null check (jsonb_typeof(tool) = 'object'),
        created_by_lms_user_id text null,
        updated_by_lms_user_id text null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        constraint admin_tool_preset_pkey primary key (id)
      );
    `);
    this.addSql('create index admin_tool_preset_account_idx on admin_tool_preset (account_id, created_at, id);');
    this.addSql(`
      create table admin_tool_preset_assignment (
        preset_id uuid not null references admin_tool_preset (id),
        course_id text not null check (course_id ~ '^[1-9][0-9]{0,18}$'),
        account_id text not null check (account_id ~ '^[1-9][0-9]{0,18}$'),
        desired_assigned boolean not null,
        status text not null check (status in ('pending', 'applied', 'failed')),
        revision integer not null default 1 check (revision >= 1),
        applied_revision integer null,
        last_error_code text null check (char_length(last_error_code) <= 64),
        attempts integer not null default 0 check (attempts >= 0),
        claim_owner uuid null,
        claim_expires_at timestamptz null,
        applied_at timestamptz null,
        updated_at timestamptz not null default now(),
        constraint admin_tool_preset_assignment_pkey primary key (preset_id, course_id),
        constraint admin_tool_preset_assignment_claim check ((claim_owner is null) = (claim_expires_at is null))
      );
    `);
    this.addSql('create index admin_tool_preset_assignment_course_idx on admin_tool_preset_assignment (course_id);');
    this.addSql('create index admin_tool_preset_assignment_queue_idx on admin_tool_preset_assignment (preset_id, status, updated_at, course_id);');
    this.addSql('create index admin_tool_preset_assignment_account_idx on admin_tool_preset_assignment (account_id, status);');
  }

  override down(): void {
    this.addSql('drop table if exists admin_tool_preset_assignment;');
    this.addSql('drop table if exists admin_tool_preset;');
  }
}
