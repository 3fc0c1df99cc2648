import { Migration } from '@mikro-orm/migrations';

/**
 * Exam day, the exemption from the exam browser: a course's instructor or a root administrator lets one named student
 * get one assessment's access code once, on the student's own tool page, within a few minutes. One row per (course,
 * assessment, LMS user): a new grant replaces the last. The row holds no code and no token (the page asks for the code
 * with the student's own session); `used_at` is set by the one conditional update that releases it.
 */
export class Migration20261129400000_exam_day_exemption extends Migration {
  override name = 'Migration20261129400000_exam_day_exemption';

  override up(): void {
    this.addSql(`
      create table if not exists exb_exam_day_exemption (
        course_id text not null,
        content_id text not null,
        lms_user_id text not null,
        granted_by_lms_user_id text not null,
        granted_by_role text not null,
        granted_at timestamptz not null,
        expires_at timestamptz not null,
        used_at timestamptz null,
        primary key (course_id, content_id, lms_user_id)
      );`);
    this.addSql('create index if not exists exb_exam_day_exemption_student on exb_exam_day_exemption (course_id, lms_user_id);');
    this.addSql('create index if not exists exb_exam_day_exemption_expires_at on exb_exam_day_exemption (expires_at);');
  }

  override down(): void {
    this.addSql('drop table if exists exb_exam_day_exemption;');
  }
}
