import { Migration } from '@mikro-orm/migrations';

/**
 * Whether the LMS showed an access code on an assessment at its last discovery: a course copy carries each quiz's code
 * into the new course, where the service does not enforce it and so never releases it. Combined with the setting at
 * read time, this marks quizzes students would be stuck at.
 */
export class Migration20261128400000_unmanaged_access_code extends Migration {
  override name = 'Migration20261128400000_unmanaged_access_code';

  override up(): void {
    this.addSql('alter table assessment add column if not exists lms_has_access_code boolean not null default false;');
  }

  override down(): void {
    this.addSql('alter table assessment drop column if exists lms_has_access_code;');
  }
}
