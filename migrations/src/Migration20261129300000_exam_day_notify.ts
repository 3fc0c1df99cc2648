import { Migration } from '@mikro-orm/migrations';

/**
 * Exam day, live: every statement that writes `exb_exam_day_student` notifies the channel `exb_exam_day` once per
 * assessment it touched, so each instance's listener can tell its open boards to refresh. Statement-level triggers
 * over the transition table: a statement of the student flow pays one small query in the same round trip, however
 * many rows it wrote, and the notification is sent when its transaction commits (PostgreSQL also drops duplicates of a
 * payload within one transaction). An upsert fires both triggers; the one whose transition table is empty sends nothing.
 * The payload is a JSON array `[course_id, content_id]`.
 */
export class Migration20261129300000_exam_day_notify extends Migration {
  override name = 'Migration20261129300000_exam_day_notify';

  override up(): void {
    this.addSql(`
      create or replace function exb_exam_day_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('exb_exam_day', json_build_array(course_id, content_id)::text)
          from (select distinct course_id, content_id from exb_exam_day_changed) as touched;
        return null;
      end;
      $$;`);
    // One trigger per event: PostgreSQL allows transition tables only on triggers with a single event.
    this.addSql(`
      create trigger exb_exam_day_notify_insert after insert on exb_exam_day_student
        referencing new table as exb_exam_day_changed
        for each statement execute function exb_exam_day_notify();`);
    this.addSql(`
      create trigger exb_exam_day_notify_update after update on exb_exam_day_student
        referencing new table as exb_exam_day_changed
        for each statement execute function exb_exam_day_notify();`);
  }

  override down(): void {
    this.addSql('drop trigger if exists exb_exam_day_notify_insert on exb_exam_day_student;');
    this.addSql('drop trigger if exists exb_exam_day_notify_update on exb_exam_day_student;');
    this.addSql('drop function if exists exb_exam_day_notify();');
  }
}
