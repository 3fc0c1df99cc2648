import { Migration } from '@mikro-orm/migrations';

/**
 * The student exam-browser flow's short-lived records: config grants, launch handoffs, access proofs and exit grants.
 *
 * Rows are keyed by the SHA-256 of their token, never the token. Course, content id and settings fingerprint are plain
 * columns so that consuming a token and checking what it is bound to is one conditional statement. A consumed config
 * grant keeps the Config Key of the configuration it downloaded (`config_key_sealed`, AES-256-GCM bound to the row,
 * course, content and fingerprint) for as long as a proof may name it (`config_key_expires_at`), under a small
 * sequence number (`config_key_seq`): a proof lists the numbers of an assessment's keys through the partial index and
 * fetches only the sealed keys its instance has not opened before.
 *
 * The service compares every expiry with its own clock (passed as a parameter), never with the database's `now()`,
 * so the lifetimes are exact under a controllable clock and one clock decides each comparison.
 */
export class Migration20261122000000_exb_student extends Migration {
  override name = 'Migration20261122000000_exb_student';

  override up(): void {
    this.addSql('create sequence exb_config_key_seq;');
    this.addSql(`
      create table exb_student_token (
        id text primary key check (id ~ '^[0-9a-f]{64}$'),
        purpose text not null check (purpose in ('config-grant', 'launch-handoff', 'access-proof', 'exit-grant')),
        course_id text not null check (course_id ~ '^[1-9][0-9]{0,18}$'),
        content_id text not null check (char_length(content_id) <= 64),
        fingerprint text not null check (fingerprint ~ '^[0-9a-f]{64}$'),
        payload bytea null,
        expires_at timestamptz not null,
        consumed_at timestamptz null,
        config_key_sealed bytea null,
        config_key_expires_at timestamptz null,
        config_key_seq bigint null unique,
        created_at timestamptz not null default now(),
        constraint exb_student_token_config_key check (
          (config_key_sealed is null) = (config_key_expires_at is null) and (config_key_sealed is null) = (config_key_seq is null)
        ),
        constraint exb_student_token_config_key_purpose check (config_key_sealed is null or purpose = 'config-grant')
      );
    `);
    this.addSql(`
      create index exb_student_token_config_key_idx
        on exb_student_token (course_id, content_id, fingerprint, config_key_expires_at)
        include (config_key_seq)
        where config_key_sealed is not null;
    `);
    this.addSql('create index exb_student_token_expires_at_idx on exb_student_token (expires_at);');
    this.addSql(`
      create table exb_session_readiness (
        lms_user_id text primary key check (lms_user_id ~ '^[0-9]{1,20}$'),
        dismissed_at timestamptz not null
      );
    `);
  }

  override down(): void {
    this.addSql('drop table if exists exb_session_readiness;');
    this.addSql('drop table if exists exb_student_token;');
    this.addSql('drop sequence if exists exb_config_key_seq;');
  }
}
