import { Migration } from '@mikro-orm/migrations';

/**
 * Exam day, live and incremental: each row of `exb_exam_day_student` says which transaction wrote its current version
 * (`change_xid`) and in which order its versions were written (`change_seq`). An open board then reads only the rows
 * that changed since its last read: those whose writer a snapshot of that read did not see
 * (`pg_visible_in_snapshot`), which is exact however transactions interleave their commits, where a time or a sequence
 * compared against a last value would miss a writer that committed late. `change_seq` orders two versions of one
 * row (its writers hold the row's lock in turn, and the trigger runs under it), so a reader that got a newer version
 * from one read never takes an older one from another. One row trigger sets both, for every writer of the table.
 */
export class Migration20261130000000_exam_day_change_order extends Migration {
  override name = 'Migration20261130000000_exam_day_change_order';

  override up(): void {
    this.addSql('create sequence if not exists exb_exam_day_student_change_seq;');
    this.addSql(`
      alter table exb_exam_day_student
        add column if not exists change_seq bigint not null default nextval('exb_exam_day_student_change_seq'),
        add column if not exists change_xid xid8 not null default pg_current_xact_id();`);
    this.addSql(`
      create or replace function exb_exam_day_student_changed() returns trigger language plpgsql as $$
      begin
        new.change_seq := nextval('exb_exam_day_student_change_seq');
        new.change_xid := pg_current_xact_id();
        return new;
      end;
      $$;`);
    this.addSql(`
      create trigger exb_exam_day_student_changed before update on exb_exam_day_student
        for each row execute function exb_exam_day_student_changed();`);
    this.addSql('create index if not exists exb_exam_day_student_change on exb_exam_day_student (course_id, content_id, change_xid);');
  }

  override down(): void {
    this.addSql('drop index if exists exb_exam_day_student_change;');
    this.addSql('drop trigger if exists exb_exam_day_student_changed on exb_exam_day_student;');
    this.addSql('drop function if exists exb_exam_day_student_changed();');
    this.addSql('alter table exb_exam_day_student drop column if exists change_xid, drop column if exists change_seq;');
    this.addSql('drop sequence if exists exb_exam_day_student_change_seq;');
  }
}
