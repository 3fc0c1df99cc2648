import { Migration } from '@mikro-orm/migrations';

/**
 * The student a flow token belongs to (`exb_student_token.lms_user_id`): the LMS user id of the student a config grant
 * was minted for, carried to its launch handoff, session start, spent proof and exit grant. It is not secret (the board
 * shows it) and names the student in the exam-day record each step writes; a re-admission finds the student's
 * outstanding tokens by it. `null` for an instructor's tokens and where no student is known.
 */
export class Migration20261129100000_student_token_owner extends Migration {
  override name = 'Migration20261129100000_student_token_owner';

  override up(): void {
    this.addSql('alter table exb_student_token add column if not exists lms_user_id text null;');
    this.addSql(`
      create index if not exists exb_student_token_owner_idx
        on exb_student_token (course_id, content_id, lms_user_id) where lms_user_id is not null;`);
  }

  override down(): void {
    this.addSql('drop index if exists exb_student_token_owner_idx;');
    this.addSql('alter table exb_student_token drop column if exists lms_user_id;');
  }
}
