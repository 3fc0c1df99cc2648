import { Migration } from '@mikro-orm/migrations';

/**
 * The pre-exam sweep: the LMS's unlock and due times of each discovered assessment (when students can start), a
 * course's choice to have drift repaired automatically before a start, and one row per sweep of an assessment's start
 * (an hour before, ten minutes before), whose primary key lets exactly one instance claim each sweep and which keeps
 * what it found for the teacher's and the administrator's alert.
 */
export class Migration20261129500000_pre_exam_sweep extends Migration {
  override name = 'Migration20261129500000_pre_exam_sweep';

  override up(): void {
    this.addSql('alter table assessment add column if not exists unlock_at timestamptz null, add column if not exists due_at timestamptz null;');
    this.addSql(`
      create table if not exists course_sweep_option (
        course_id text not null primary key check (course_id ~ '^[1-9][0-9]{0,18}$'),
        auto_repair_before_start boolean not null default false,
        updated_at timestamptz not null default now()
      );
    `);
    this.addSql(`
      create table if not exists pre_exam_sweep (
        course_id text not null check (course_id ~ '^[1-9][0-9]{0,18}$'),
        content_id text not null check (char_length(content_id) <= 64),
        starts_at timestamptz not null,
        stage text not null check (stage in ('hour', 'ten-minutes')),
        swept_at timestamptz not null default now(),
        found text null check (found is null or found in ('verified', 'missing', 'stale', 'unverified')),
        repaired boolean not null default false,
        outcome text not null default 'pending' check (outcome in ('pending', 'in-place', 'repaired', 'alerted', 'repair-failed', 'unchecked')),
        constraint pre_exam_sweep_pkey primary key (course_id, content_id, starts_at, stage)
      );
    `);
    this.addSql('create index if not exists pre_exam_sweep_alerts on pre_exam_sweep (course_id, starts_at) where found in (\'missing\', \'stale\');');
  }

  override down(): void {
    this.addSql('drop table if exists pre_exam_sweep;');
    this.addSql('drop table if exists course_sweep_option;');
    this.addSql('alter table assessment drop column if exists unlock_at, drop column if exists due_at;');
  }
}
