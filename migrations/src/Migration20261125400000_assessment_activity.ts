import { Migration } from '@mikro-orm/migrations';

/**
 * Exam-day activity per assessment (`exb_assessment_activity`): how many configurations were downloaded, proofs
 * accepted, access codes released and exits given, and the last time of each. Counts only, no per-student rows: each
 * is incremented by an upsert inside the statement or transaction of the student flow that already writes (the grant's
 * spend, the proof's insert, the redemption, the exit), so the counters cost those paths no round trip.
 */
export class Migration20261125400000_assessment_activity extends Migration {
  override name = 'Migration20261125400000_assessment_activity';

  override up(): void {
    this.addSql(`
      create table exb_assessment_activity (
        course_id text not null,
        content_id text not null,
        downloads bigint not null default 0 check (downloads >= 0),
        last_download_at timestamptz null,
        proofs bigint not null default 0 check (proofs >= 0),
        last_proof_at timestamptz null,
        releases bigint not null default 0 check (releases >= 0),
        last_release_at timestamptz null,
        exits bigint not null default 0 check (exits >= 0),
        last_exit_at timestamptz null,
        constraint exb_assessment_activity_pkey primary key (course_id, content_id)
      );
    `);
    // Millisecond times, as JavaScript dates carry them: a keyset cursor built from an entry's time then names exactly
    // that entry, where microseconds would make a page skip the entries of the same millisecond.
    this.addSql('alter table audit_entry alter column occurred_at type timestamptz(3);');
    // The Activity panel reads one assessment's recent entries, newest first.
    this.addSql('create index if not exists audit_entry_content_idx on audit_entry (course_id, content_id, occurred_at desc, id desc);');
  }

  override down(): void {
    this.addSql('drop index if exists audit_entry_content_idx;');
    this.addSql('alter table audit_entry alter column occurred_at type timestamptz;');
    this.addSql('drop table if exists exb_assessment_activity;');
  }
}
