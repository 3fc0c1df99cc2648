import { Migration } from '@mikro-orm/migrations';

/**
 * Cached assessments, per-assessment enforcement settings and per-course defaults.
 *
 * Ids are canonical decimal strings (see `@exb/shared` content ids), kept as text so they compare exactly as the
 * service spells them. Secrets are AES-256-GCM ciphertexts (`nonce ‖ tag ‖ ciphertext`) sealed by the application
 * with associated data naming table, column, course and content, each with the id of the key that sealed it, so a
 * ciphertext copied to another row or column does not open and keys can be rotated later.
 * Settings are not foreign-keyed to the assessment cache: discovery may drop an assessment from the cache while its
 * setting still has to be found to remove the access code.
 */
export class Migration20261121300000_settings extends Migration {
  override name = 'Migration20261121300000_settings';

  override up(): void {
    this.addSql(`
      create table assessment (
        course_id text not null check (course_id ~ '^[1-9][0-9]{0,18}$'),
        content_id text not null check (char_length(content_id) <= 64),
        content_type text not null check (content_type in ('CLASSIC_QUIZ', 'NEW_QUIZ')),
        lms_assessment_id text not null check (lms_assessment_id ~ '^[1-9][0-9]{0,18}$'),
        title text not null,
        published boolean not null default false,
        discovered_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        constraint assessment_pkey primary key (course_id, content_id)
      );
    `);
    this.addSql(`
      create table assessment_setting (
        course_id text not null check (course_id ~ '^[1-9][0-9]{0,18}$'),
        content_id text not null check (char_length(content_id) <= 64),
        exb_required boolean not null default false,
        enabled boolean not null default false,
        access_code_sealed bytea null,
        access_code_key_id text null,
        uses_course_defaults boolean not null default true,
        url_rules jsonb not null default '[]' check (jsonb_typeof(url_rules) = 'array'),
        external_tool_ids jsonb null check (external_tool_ids is null or jsonb_typeof(external_tool_ids) = 'array'),
        quiz_only_tools jsonb not null default '[]' check (jsonb_typeof(quiz_only_tools) = 'array'),
        start_password_sealed bytea null,
        start_password_key_id text null,
        exit_password_sealed bytea null,
        exit_password_key_id text null,
        verification_status text not null default 'unverified'
          check (verification_status in ('verified', 'missing', 'stale', 'unverified')),
        updated_at timestamptz not null default now(),
        version integer not null default 1 check (version >= 1),
        constraint assessment_setting_pkey primary key (course_id, content_id),
        constraint assessment_setting_access_code_key check ((access_code_sealed is null) = (access_code_key_id is null)),
        constraint assessment_setting_start_password_key check ((start_password_sealed is null) = (start_password_key_id is null)),
        constraint assessment_setting_exit_password_key check ((exit_password_sealed is null) = (exit_password_key_id is null))
      );
    `);
    this.addSql(`
      create table course_defaults (
        course_id text not null check (course_id ~ '^[1-9][0-9]{0,18}$'),
        url_rules jsonb not null default '[]' check (jsonb_typeof(url_rules) = 'array'),
        external_tools jsonb not null default '[]' check (jsonb_typeof(external_tools) = 'array'),
        start_password_sealed bytea null,
        start_password_key_id text null,
        exit_password_sealed bytea null,
        exit_password_key_id text null,
        setup_completed boolean not null default false,
        reset_generation integer not null default 0 check (reset_generation >= 0),
        updated_at timestamptz not null default now(),
        constraint course_defaults_pkey primary key (course_id),
        constraint course_defaults_start_password_key check ((start_password_sealed is null) = (start_password_key_id is null)),
        constraint course_defaults_exit_password_key check ((exit_password_sealed is null) = (exit_password_key_id is null))
      );
    `);
  }

  override down(): void {
    this.addSql('drop table if exists course_defaults;');
    this.addSql('drop table if exists assessment_setting;');
    this.addSql('drop table if exists assessment;');
  }
}
