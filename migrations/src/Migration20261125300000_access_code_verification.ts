import { Migration } from '@mikro-orm/migrations';

/**
 * When the LMS's access code of an assessment was last compared with the stored one, why the last check could not
 * decide (an expired grant, a code the LMS does not show), and whose grant checked it, so the background verifier can
 * act with the grant of someone who manages the course. The index serves the verifier's "oldest check first" walk over
 * enforced assessments only (never-checked rows first).
 */
export class Migration20261125300000_access_code_verification extends Migration {
  override name = 'Migration20261125300000_access_code_verification';

  override up(): void {
    this.addSql(`
      alter table assessment_setting
        add column verified_at timestamptz null,
        add column verification_reason text null check (char_length(verification_reason) <= 200),
        add column verified_by_lms_user_id text null check (verified_by_lms_user_id ~ '^[0-9]{1,20}$');
    `);
    this.addSql(`
      create index assessment_setting_verification_due on assessment_setting (verified_at nulls first, course_id, content_id)
        where exb_required and enabled;
    `);
  }

  override down(): void {
    this.addSql('drop index if exists assessment_setting_verification_due;');
    this.addSql(`
      alter table assessment_setting
        drop column if exists verified_at, drop column if exists verification_reason, drop column if exists verified_by_lms_user_id;
    `);
  }
}
