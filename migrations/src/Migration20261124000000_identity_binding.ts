import { Migration } from '@mikro-orm/migrations';

/**
 * Identity bindings (DESIGN.md, trust model). The LMS's numeric ids reach the service through custom launch fields,
 * which course authors can override per link, so each is bound once to what the platform alone signs:
 * - a user id to the `(issuer, sub)` whose OAuth callback proved it (the LMS's own `token.user.id`); it lives on the
 *   token record, since the grant is what proves it and a grant is only used for that subject. Rows stored before the
 *   binding existed have no subject: they stay unusable until the user's next successful authorization;
 * - a course or account id to the signed `context.id`, proven through the LMS with a user's own grant.
 * Each side of a binding is unique, so one subject never maps to two users and one course never to two contexts.
 */
export class Migration20261124000000_identity_binding extends Migration {
  override name = 'Migration20261124000000_identity_binding';

  override up(): void {
    this.addSql('alter table lms_oauth_token add column lti_issuer text null, add column lti_subject text null;');
    this.addSql(`
      alter table lms_oauth_token add constraint lms_oauth_token_lti_identity_check
        check ((lti_issuer is null) = (lti_subject is null));
    `);
    this.addSql(`
      create unique index lms_oauth_token_lti_identity_key on lms_oauth_token (lti_issuer, lti_subject)
        where lti_subject is not null;
    `);
    this.addSql(`
      create table lti_context_binding (
        issuer text not null,
        context_kind text not null check (context_kind in ('course', 'account')),
        lti_context_id text not null check (char_length(lti_context_id) between 1 and 255),
        lms_id text not null check (lms_id ~ '^[0-9]{1,20}$'),
        proven_by_lms_user_id text not null,
        proven_at timestamptz not null default now(),
        primary key (issuer, context_kind, lti_context_id),
        constraint lti_context_binding_lms_id_key unique (issuer, context_kind, lms_id)
      );
    `);
  }

  override down(): void {
    this.addSql('drop table if exists lti_context_binding;');
    this.addSql('drop index if exists lms_oauth_token_lti_identity_key;');
    this.addSql('alter table lms_oauth_token drop constraint if exists lms_oauth_token_lti_identity_check;');
    this.addSql('alter table lms_oauth_token drop column if exists lti_issuer, drop column if exists lti_subject;');
  }
}
