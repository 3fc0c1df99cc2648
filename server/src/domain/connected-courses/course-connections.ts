import type { MikroORM } from '@mikro-orm/postgresql';
import type { SqlOnClient } from '../../db/pg-transaction.js';
import type { CourseFacts } from './course-facts.js';
import type { CourseKey } from './course-cursor.js';

/** How a course came to be connected: by an administrator, or by the backfill of courses instructors already managed. */
export type ConnectionOrigin = 'admin' | 'legacy';

/** One course's connection record (Document 2: "course connection record"), as the administrator routes read it. */
export interface CourseConnection extends CourseFacts {
  readonly accountId: string;
  readonly assessmentCount: number;
  readonly enabledAssessmentCount: number;
  readonly issueCount: number;
  readonly origin: ConnectionOrigin;
  readonly connectedAt: Date;
  readonly lastRefreshedAt: Date;
}

export interface CoursePageQuery {
  /** Normalized search text; empty for none. */
  readonly search: string;
  readonly limit: number;
  readonly includePast: boolean;
  /** Courses that ended before this count as past (the operational term's start, or now). */
  readonly pastBoundary: Date;
  readonly after: CourseKey | null;
}

export interface CoursePage {
  readonly courses: (CourseConnection & { readonly past: boolean })[];
  /** Where the next page starts; `null` after the last page. */
  readonly next: CourseKey | null;
}

export interface ConnectionCounts {
  readonly courseCount: number;
  readonly enabledAssessmentCount: number;
  readonly configuredCourseCount: number;
}

interface Row {
  course_id: string;
  account_id: string;
  name: string;
  course_code: string;
  term_id: string | null;
  term_name: string | null;
  concluded: boolean;
  ends_at: Date | null;
  assessment_count: number;
  enabled_assessment_count: number;
  issue_count: number;
  origin: ConnectionOrigin;
  connected_at: Date;
  last_refreshed_at: Date;
}

const COLUMNS = `course_id, account_id, name, course_code, term_id, term_name, concluded, ends_at, assessment_count,
  enabled_assessment_count, issue_count, origin, connected_at, last_refreshed_at`;

/**
 * Whether the course's quizzes were ever read from the LMS: an administrator's refresh moves `lastRefreshedAt` past
 * the connection, and anyone's discovery that found quizzes counts them. (A course an instructor read and found empty
 * still reads as not read, until an administrator refreshes it.)
 */
export function wasRead(connection: Pick<CourseConnection, 'connectedAt' | 'lastRefreshedAt' | 'assessmentCount'>): boolean {
  return connection.lastRefreshedAt.getTime() > connection.connectedAt.getTime() || connection.assessmentCount > 0;
}

function toConnection(row: Row): CourseConnection {
  return {
    courseId: row.course_id,
    accountId: row.account_id,
    name: row.name,
    courseCode: row.course_code,
    termId: row.term_id,
    termName: row.term_name,
    concluded: row.concluded,
    endsAt: row.ends_at === null ? null : new Date(row.ends_at),
    assessmentCount: Number(row.assessment_count),
    enabledAssessmentCount: Number(row.enabled_assessment_count),
    issueCount: Number(row.issue_count),
    origin: row.origin,
    connectedAt: new Date(row.connected_at),
    lastRefreshedAt: new Date(row.last_refreshed_at),
  };
}

/** `%`, `_` and `\` in search text are literal characters, not patterns. */
function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (match) => `\\${match}`)}%`;
}

/** A course reset's receipt as the connection record keeps it: its id and time, and the receipt itself as JSON. */
export interface StoredResetReceipt {
  readonly receiptId: string;
  readonly resetAt: string;
  readonly receipt: unknown;
}

/**
 * Course reset: stores the receipt on the account's connection record in the caller's transaction, so the receipt
 * exists exactly when the reset's transaction committed. `false` when the account has no such record.
 */
export async function storeResetReceipt(tx: SqlOnClient, accountId: string, courseId: string, stored: StoredResetReceipt): Promise<boolean> {
  const rows = await tx.execute<{ course_id: string }[]>(
    `update admin_course set reset_receipt_id = ?, reset_at = ?, reset_receipt = ?::jsonb
     where course_id = ? and account_id = ? returning course_id`,
    [stored.receiptId, stored.resetAt, JSON.stringify(stored.receipt), courseId, accountId],
  );
  return rows.length > 0;
}

/**
 * The connection records of root accounts. Every read names the account and never returns another account's course.
 * The assessment counts are maintained by the database (`admin_course_recount`, run by triggers on every write of
 * assessments and settings), so they are read here, never computed row by row.
 */
export class CourseConnections {
  constructor(private readonly orm: MikroORM) {}

  private execute<T>(sql: string, params: unknown[]): Promise<T[]> {
    return this.orm.em.getConnection().execute<T[]>(sql, params);
  }

  /**
   * Connects a course the LMS just placed in `accountId`'s root account, or refreshes the facts of its record, and
   * counts its assessments, in one transaction. The LMS is the authority on where a course lives, so a record another
   * account held passes to this one.
   */
  async upsert(accountId: string, facts: CourseFacts, origin: ConnectionOrigin, byLmsUserId: string): Promise<CourseConnection> {
    return this.orm.em.fork().transactional(async (em) => {
      await em.execute(
        `insert into admin_course (course_id, account_id, name, course_code, term_id, term_name, concluded, ends_at, origin,
           connected_by_lms_user_id)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         on conflict (course_id) do update set
           account_id = excluded.account_id, name = excluded.name, course_code = excluded.course_code,
           term_id = excluded.term_id, term_name = excluded.term_name, concluded = excluded.concluded,
           ends_at = excluded.ends_at`,
        [facts.courseId, accountId, facts.name, facts.courseCode, facts.termId, facts.termName, facts.concluded, facts.endsAt, origin, byLmsUserId],
        'run',
      );
      await em.execute('select admin_course_recount(array[?]::text[])', [facts.courseId]);
      const rows = await em.execute<Row[]>(`select ${COLUMNS} from admin_course where course_id = ?`, [facts.courseId]);
      return toConnection(rows[0]!);
    });
  }

  /** After a refresh: the LMS's current facts and the refresh time. */
  async markRefreshed(accountId: string, facts: CourseFacts): Promise<void> {
    await this.execute(
      `update admin_course set name = ?, course_code = ?, term_id = ?, term_name = ?, concluded = ?, ends_at = ?,
         last_refreshed_at = now()
       where account_id = ? and course_id = ?`,
      [facts.name, facts.courseCode, facts.termId, facts.termName, facts.concluded, facts.endsAt, accountId, facts.courseId],
    );
  }

  /** The latest reset receipt of a course (any account's record), or `null` when none is stored or there is no record. */
  async resetReceipt(courseId: string): Promise<{ readonly receiptId: string; readonly receipt: unknown } | null> {
    const rows = await this.execute<{ receipt_id: string | null; receipt: unknown }>(
      'select reset_receipt_id::text as receipt_id, reset_receipt as receipt from admin_course where course_id = ?',
      [courseId],
    );
    const row = rows[0];
    return row === undefined || row.receipt_id === null ? null : { receiptId: row.receipt_id, receipt: row.receipt };
  }

  async find(accountId: string, courseId: string): Promise<CourseConnection | null> {
    const rows = await this.execute<Row>(`select ${COLUMNS} from admin_course where account_id = ? and course_id = ?`, [accountId, courseId]);
    return rows[0] === undefined ? null : toConnection(rows[0]);
  }

  /**
   * One page of the account's connected courses in `(lower(name), course_id)` order, starting after `query.after`.
   * One more row than asked is read to know whether another page follows.
   */
  async page(accountId: string, query: CoursePageQuery): Promise<CoursePage> {
    const where = ['account_id = ?'];
    const params: unknown[] = [query.pastBoundary, accountId];
    if (query.search !== '') {
      where.push(`(lower(name) like ? or lower(course_code) like ? or course_id = ?)`);
      const pattern = likePattern(query.search);
      params.push(pattern, pattern, query.search);
    }
    if (!query.includePast) {
      where.push('not concluded and (ends_at is null or ends_at >= ?)');
      params.push(query.pastBoundary);
    }
    if (query.after !== null) {
      where.push('(lower(name), course_id) > (?, ?)');
      params.push(query.after.sortName, query.after.courseId);
    }
    params.push(query.limit + 1);
    const rows = await this.execute<Row & { sort_name: string; past: boolean }>(
      `select ${COLUMNS}, lower(name) as sort_name, (concluded or coalesce(ends_at < ?, false)) as past
       from admin_course where ${where.join(' and ')}
       order by lower(name), course_id limit ?`,
      params,
    );
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      courses: page.map((row) => ({ ...toConnection(row), past: row.past })),
      next: rows.length > query.limit && last !== undefined ? { sortName: last.sort_name, courseId: last.course_id } : null,
    };
  }

  /** Which of `courseIds` the account has connected. */
  async connectedAmong(accountId: string, courseIds: readonly string[]): Promise<Set<string>> {
    if (courseIds.length === 0) return new Set();
    const rows = await this.execute<{ course_id: string }>(
      'select course_id from admin_course where account_id = ? and course_id in (select jsonb_array_elements_text(?::jsonb))',
      [accountId, JSON.stringify(courseIds)],
    );
    return new Set(rows.map((row) => row.course_id));
  }

  /**
   * Names for the account's audit trail: its connected courses among those the entries name, and their assessments as
   * discovery last listed them.
   */
  async titles(
    accountId: string,
    entries: readonly { readonly courseId: string | null }[],
  ): Promise<{ courses: Map<string, string>; assessments: Map<string, string> }> {
    const courseIds = [...new Set(entries.flatMap((entry) => (entry.courseId === null ? [] : [entry.courseId])))];
    if (courseIds.length === 0) return { courses: new Map(), assessments: new Map() };
    const [courses, assessments] = await Promise.all([
      this.execute<{ course_id: string; name: string }>('select course_id, name from admin_course where account_id = ? and course_id = any(array[?]::text[])', [
        accountId,
        courseIds,
      ]),
      this.execute<{ course_id: string; content_id: string; title: string }>(
        `select a.course_id, a.content_id, a.title from assessment a
         join admin_course c on c.course_id = a.course_id and c.account_id = ? where a.course_id = any(array[?]::text[])`,
        [accountId, courseIds],
      ),
    ]);
    return {
      courses: new Map(courses.map((row) => [row.course_id, row.name])),
      assessments: new Map(assessments.map((row) => [`${row.course_id} ${row.content_id}`, row.title])),
    };
  }

  /** The account's totals, in one aggregate query. A course is configured once its course setup is marked complete. */
  async counts(accountId: string): Promise<ConnectionCounts> {
    const rows = await this.execute<{ course_count: string; enabled: string; configured: string }>(
      `select count(*) as course_count, coalesce(sum(c.enabled_assessment_count), 0) as enabled,
         count(*) filter (where d.setup_completed) as configured
       from admin_course c left join course_defaults d on d.course_id = c.course_id
       where c.account_id = ?`,
      [accountId],
    );
    const row = rows[0]!;
    return { courseCount: Number(row.course_count), enabledAssessmentCount: Number(row.enabled), configuredCourseCount: Number(row.configured) };
  }

  /**
   * Courses instructors manage (cached assessments, settings or course defaults) that no account has connected yet:
   * the candidates of the legacy backfill, at most `limit`.
   */
  async unconnectedManagedCourses(limit: number): Promise<string[]> {
    const rows = await this.execute<{ course_id: string }>(
      `select course_id from (
         select course_id from assessment_setting union select course_id from assessment union select course_id from course_defaults
       ) managed
       where not exists (select 1 from admin_course c where c.course_id = managed.course_id)
       order by length(course_id), course_id limit ?`,
      [limit],
    );
    return rows.map((row) => row.course_id);
  }
}
