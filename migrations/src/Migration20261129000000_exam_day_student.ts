import { Migration } from '@mikro-orm/migrations';

/**
 * Exam day, per student: each step of one student's way into one enforced assessment, so teachers and administrators
 * can see who is stuck where. One row per (course, assessment, LMS user); the student flow's own statements write it.
 * Nothing secret is kept here (no code, no token); rows untouched for `EXAM_DAY_RETENTION_DAYS` are purged.
 */
export class Migration20261129000000_exam_day_student extends Migration {
  override name = 'Migration20261129000000_exam_day_student';

  override up(): void {
    this.addSql(`
      create table if not exists exb_exam_day_student (
        course_id text not null,
        content_id text not null,
        lms_user_id text not null,
        display_name text null,
        launched_at timestamptz null,
        granted_at timestamptz null,
        downloads integer not null default 0,
        last_download_at timestamptz null,
        proven_at timestamptz null,
        released_at timestamptz null,
        exited_at timestamptz null,
        attempt_started_at timestamptz null,
        attempt_submitted_at timestamptz null,
        readmitted_at timestamptz null,
        exempted_at timestamptz null,
        updated_at timestamptz not null default now(),
        primary key (course_id, content_id, lms_user_id)
      );`);
    this.addSql('create index if not exists exb_exam_day_student_updated_at on exb_exam_day_student (updated_at);');
  }

  override down(): void {
    this.addSql('drop table if exists exb_exam_day_student;');
  }
}
