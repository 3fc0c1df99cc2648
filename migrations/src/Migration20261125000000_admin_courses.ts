import { Migration } from '@mikro-orm/migrations';

/**
 * The administrator's view of a root account (Document 2, `/api/admin`):
 * - `admin_course`: the connection record of each course an administrator connected (or the one-time backfill found
 *   among courses instructors already manage). The course's name, code, term and end come from the LMS at connect and
 *   refresh time; the assessment counts are kept by the database itself (below), so every writer of assessments and
 *   settings, instructor or administrator, keeps them exact in its own transaction and the account's lists and summary
 *   read them without aggregating every assessment.
 * - `admin_account`: per root account, the operational term the administrator chose and when the legacy backfill ran.
 *
 * Course ids are unique in one LMS, so a course has one record, owned by the root account that connected it. The list
 * pages by `(lower(name), course_id)` from a cursor (keyset), which the index serves as a range scan from any page.
 */
export class Migration20261125000000_admin_courses extends Migration {
  override name = 'Migration20261125000000_admin_courses';

  override up(): void {
    this.addSql(`
      create table admin_course (
        course_id text not null check (course_id ~ '^[1-9][0-9]{0,18}$'),
        account_id text not null check (account_id ~ '^[1-9][0-9]{0,18}$'),
        name text not null check (char_length(name) between 1 and 500),
        course_code text not null default '' check (char_length(course_code) <= 200),
        term_id text null check (term_id ~ '^[1-9][0-9]{0,18}$'),
        term_name text null check (char_length(term_name) <= 200),
        concluded boolean not null default false,
        ends_at timestamptz null,
        assessment_count integer not null default 0 check (assessment_count >= 0),
        enabled_assessment_count integer not null default 0 check (enabled_assessment_count >= 0),
        issue_count integer not null default 0 check (issue_count >= 0),
        origin text not null check (origin in ('admin', 'legacy')),
        connected_by_lms_user_id text null,
        connected_at timestamptz not null default now(),
        last_refreshed_at timestamptz not null default now(),
        constraint admin_course_pkey primary key (course_id)
      );
    `);
    this.addSql('create index admin_course_account_name_idx on admin_course (account_id, lower(name), course_id);');
    this.addSql(`
      create table admin_account (
        account_id text not null check (account_id ~ '^[1-9][0-9]{0,18}$'),
        operational_term_id text null check (operational_term_id ~ '^[1-9][0-9]{0,18}$'),
        operational_term_name text null check (char_length(operational_term_name) <= 200),
        operational_term_start_at timestamptz null,
        operational_term_end_at timestamptz null,
        legacy_backfill_at timestamptz null,
        updated_at timestamptz not null default now(),
        constraint admin_account_pkey primary key (account_id)
      );
    `);
    // The counting rules, in one place: an assessment counts when discovery cached it; it is enabled when enforcement is
    // required and on; it has an issue when required and local state disagree, when required without an access code,
    // or when its access code was found missing or stale in the LMS.
    this.addSql(`
      create function admin_course_recount(course_ids text[]) returns void language sql as $$
        update admin_course c set
          assessment_count = (select count(*) from assessment a where a.course_id = c.course_id),
          enabled_assessment_count = (
            select count(*) from assessment_setting s where s.course_id = c.course_id and s.exb_required and s.enabled
          ),
          issue_count = (
            select count(*) from assessment_setting s
            where s.course_id = c.course_id
              and (s.exb_required <> s.enabled
                or (s.exb_required and s.access_code_sealed is null)
                or s.verification_status in ('missing', 'stale'))
          )
        where c.course_id = any(course_ids)
      $$;
    `);
    // Statement triggers with transition tables: one recount per affected course and statement, not per row.
    this.addSql(`
      create function admin_course_counts_changed() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          perform admin_course_recount(array(select distinct course_id from new_rows));
        elsif tg_op = 'DELETE' then
          perform admin_course_recount(array(select distinct course_id from old_rows));
        else
          perform admin_course_recount(array(select course_id from new_rows union select course_id from old_rows));
        end if;
        return null;
      end
      $$;
    `);
    for (const table of ['assessment', 'assessment_setting']) {
      this.addSql(`
        create trigger ${table}_admin_counts_insert after insert on ${table}
          referencing new table as new_rows for each statement execute function admin_course_counts_changed();
      `);
      this.addSql(`
        create trigger ${table}_admin_counts_update after update on ${table}
          referencing old table as old_rows new table as new_rows for each statement execute function admin_course_counts_changed();
      `);
      this.addSql(`
        create trigger ${table}_admin_counts_delete after delete on ${table}
          referencing old table as old_rows for each statement execute function admin_course_counts_changed();
      `);
    }
  }

  override down(): void {
    for (const table of ['assessment', 'assessment_setting']) {
      for (const event of ['insert', 'update', 'delete']) this.addSql(`drop trigger if exists ${table}_admin_counts_${event} on ${table};`);
    }
    this.addSql('drop function if exists admin_course_counts_changed();');
    this.addSql('drop function if exists admin_course_recount(text[]);');
    this.addSql('drop table if exists admin_account;');
    this.addSql('drop table if exists admin_course;');
  }
}
