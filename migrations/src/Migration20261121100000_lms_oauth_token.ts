import { Migration } from '@mikro-orm/migrations';

/**
 * The per-user LMS OAuth grant (Document 1, "LMS OAuth token record"). One row per LMS user id, enforced by a unique
 * constraint so concurrent callbacks upsert instead of duplicating. Tokens are either sealed under a key of the token
 * keyring (`token_key_id` set) or, for rows written before encryption existed, plaintext in the `legacy_*` columns; the
 * check constraint keeps a row in exactly one of the two forms. Scope and identity columns stay plaintext so they can
 * be queried without the keyring. `version` grows with every write, so a writer that read an older state (a refresh that
 * lost a race with a new authorization) changes nothing.
 */
export class Migration20261121100000_lms_oauth_token extends Migration {
  override name = 'Migration20261121100000_lms_oauth_token';

  override up(): void {
    this.addSql(`
      create table lms_oauth_token (
        id uuid primary key,
        lms_user_id text not null,
        grant_type text not null,
        scopes text[] not null,
        lms_user_name text null,
        lms_global_user_id text null,
        lms_region text null,
        account_id text null,
        token_key_id text null,
        access_token_ciphertext bytea null,
        refresh_token_ciphertext bytea null,
        legacy_access_token text null,
        legacy_refresh_token text null,
        access_token_expires_at timestamptz null,
        reauthorization_required_at timestamptz null,
        version integer not null default 1,
        authorized_at timestamptz not null default now(),
        refreshed_at timestamptz null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        constraint lms_oauth_token_lms_user_id_key unique (lms_user_id),
        constraint lms_oauth_token_grant_type_check check (grant_type in ('instructor', 'account_admin')),
        constraint lms_oauth_token_form_check check (
          (token_key_id is not null and access_token_ciphertext is not null
            and legacy_access_token is null and legacy_refresh_token is null)
          or
          (token_key_id is null and access_token_ciphertext is null and refresh_token_ciphertext is null
            and legacy_access_token is not null)
        )
      );
    `);
    this.addSql('create index lms_oauth_token_token_key_id_idx on lms_oauth_token (token_key_id);');
  }

  override down(): void {
    this.addSql('drop table if exists lms_oauth_token;');
  }
}
