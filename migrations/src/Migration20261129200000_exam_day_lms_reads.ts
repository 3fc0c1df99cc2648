import { Migration } from '@mikro-orm/migrations';

/**
 * Exam day, from the LMS: when the LMS was last read for an assessment's board (attempts) or a course's roster, so
 * every instance keeps to one read a minute, and how that read went; and the course's students the roster named, who
 * appear on the board before their first step. Nothing secret is kept here: ids, names and outcomes only.
 */
export class Migration20261129200000_exam_day_lms_reads extends Migration {
  override name = 'Migration20261129200000_exam_day_lms_reads';

  override up(): void {
    this.addSql(`
      create table if not exists exb_exam_day_lms_read (
        course_id text not null,
        content_id text not null,
        kind text not null check (kind in ('attempts', 'roster')),
        claimed_at timestamptz not null,
        succeeded_at timestamptz null,
        missing_scope text null,
        failure text null,
        primary key (course_id, content_id, kind)
      );`);
    this.addSql(`
      create table if not exists exb_exam_day_roster (
        course_id text not null,
        lms_user_id text not null,
        display_name text null,
        read_at timestamptz not null,
        primary key (course_id, lms_user_id)
      );`);
    this.addSql('create index if not exists exb_exam_day_lms_read_claimed_at on exb_exam_day_lms_read (claimed_at);');
    this.addSql('create index if not exists exb_exam_day_roster_read_at on exb_exam_day_roster (read_at);');
  }

  override down(): void {
    this.addSql('drop table if exists exb_exam_day_roster;');
    this.addSql('drop table if exists exb_exam_day_lms_read;');
  }
}
