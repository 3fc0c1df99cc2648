import { Migration } from '@mikro-orm/migrations';

/**
 * The session start (`session-start`): a downloaded configuration starts at a one-time service URL, and the LMS session
 * URL is minted only when the exam browser opens it, because the LMS accepts a session token for 30 seconds only.
 */
export class Migration20261127100000_session_start_token extends Migration {
  override name = 'Migration20261127100000_session_start_token';

  override up(): void {
    this.addSql('alter table exb_student_token drop constraint if exists exb_student_token_purpose_check;');
    this.addSql(`
      alter table exb_student_token add constraint exb_student_token_purpose_check
        check (purpose in ('config-grant', 'launch-handoff', 'access-proof', 'exit-grant', 'session-start'));
    `);
  }

  override down(): void {
    this.addSql(`delete from exb_student_token where purpose = 'session-start';`);
    this.addSql('alter table exb_student_token drop constraint if exists exb_student_token_purpose_check;');
    this.addSql(`
      alter table exb_student_token add constraint exb_student_token_purpose_check
        check (purpose in ('config-grant', 'launch-handoff', 'access-proof', 'exit-grant'));
    `);
  }
}
