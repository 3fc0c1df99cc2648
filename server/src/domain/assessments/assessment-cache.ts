import type { MikroORM } from '@mikro-orm/postgresql';
import { contentIdMatchesCourse, isContentId, isLmsId } from '@exb/shared/content-id.js';
import type { Queryable, SqlOnClient } from '../../db/pg-transaction.js';
import { contentTypeSchema, type CachedAssessment, type ContentType } from '../settings/model.js';
import { SETTING_MAY_REQUIRE_EXAM_BROWSER, settingsJoin } from '../settings/settings-codec.js';
import { SETTINGS_TEXT_COLUMN } from '../settings/settings-text.js';

/** One assessment as discovery found it in the LMS. */
export interface DiscoveredAssessment {
  readonly contentId: string;
  readonly contentType: ContentType;
  readonly lmsAssessmentId: string;
  readonly title: string;
  readonly published: boolean;
  /** The LMS's unlock and due times (`null`: none set, or not read); the pre-exam sweep works from them. */
  readonly unlockAt?: Date | null;
  readonly dueAt?: Date | null;
  /** The unlock and due times of the LMS's overrides (other sections, groups or students), in any order. */
  readonly overrideStarts?: readonly Date[];
}

interface AssessmentRow {
  course_id: string;
  content_id: string;
  content_type: string;
  lms_assessment_id: string;
  title: string;
  published: boolean;
  lms_has_access_code: boolean;
  discovered_at: Date | string;
  updated_at: Date | string;
}

const COLUMNS = 'course_id, content_id, content_type, lms_assessment_id, title, published, lms_has_access_code, discovered_at, updated_at';

/** Course reset: deletes the course's cached assessments in the caller's transaction; returns their content ids. */
export async function deleteCourseAssessments(tx: SqlOnClient, courseId: string): Promise<string[]> {
  if (!isLmsId(courseId)) throw new RangeError('course id is not a canonical LMS id');
  const rows = await tx.execute<{ content_id: string }[]>('delete from assessment where course_id = ? returning content_id', [courseId]);
  return rows.map((row) => row.content_id);
}

/** A course's published assessment with its title, beside its settings as one text (`settings/settings-text.ts`). */
export interface TitledSettingsRow {
  content_id: string;
  a_title: string;
  settings_text: string;
}

/**
 * The published assessments of a course (as discovery last saw them) whose settings can require the exam browser, each
 * beside its settings, by title; the caller still applies the full rule to each. A student never learns the title of
 * a quiz the LMS hides from them.
 */
export async function loadPublishedEnforcedRows(db: Queryable, courseId: string, limit: number): Promise<TitledSettingsRow[]> {
  const result = await db.query<TitledSettingsRow>({
    name: 'assessments-published-enforced',
    text: `select a.content_id, a.title as a_title, ${SETTINGS_TEXT_COLUMN}
      from assessment a ${settingsJoin('a.course_id', 'a.content_id')}
      where a.course_id = $1 and a.published and ${SETTING_MAY_REQUIRE_EXAM_BROWSER}
      order by a.title, a.content_id
      limit ${limit}`,
    values: [courseId],
  });
  return result.rows;
}

/**
 * The assessments of each course as last discovered in the LMS, the one home of the `assessment` table's statements. Lists and lookups never call the LMS; only a refresh
 * (`replaceCourse`) changes the cache. Every method names its course and never returns another course's rows.
 */
export class AssessmentCache {
  constructor(private readonly orm: MikroORM) {}

  async list(courseId: string): Promise<CachedAssessment[]> {
    if (!isLmsId(courseId)) return [];
    const rows = await this.orm.em
      .getConnection()
      .execute<AssessmentRow[]>(`select ${COLUMNS} from assessment where course_id = ? order by content_id`, [courseId]);
    return rows.map(toCachedAssessment);
  }

  async find(courseId: string, contentId: string): Promise<CachedAssessment | null> {
    if (!isLmsId(courseId) || !isContentId(contentId) || !contentIdMatchesCourse(contentId, courseId)) return null;
    const rows = await this.orm.em
      .getConnection()
      .execute<AssessmentRow[]>(`select ${COLUMNS} from assessment where course_id = ? and content_id = ?`, [courseId, contentId]);
    return rows[0] === undefined ? null : toCachedAssessment(rows[0]);
  }

  /**
   * Makes the cache of one course exactly `discovered`, in one transaction: new and changed assessments are written,
   * assessments the LMS no longer lists are dropped. Settings are kept either way (they are not tied to the cache), so
   * an access code set on an assessment that disappeared can still be found and removed.
   */
  async replaceCourse(courseId: string, discovered: readonly DiscoveredAssessment[]): Promise<CachedAssessment[]> {
    if (!isLmsId(courseId)) throw new RangeError('course id is not a canonical LMS id');
    for (const item of discovered) {
      if (!isContentId(item.contentId) || !contentIdMatchesCourse(item.contentId, courseId) || !isLmsId(item.lmsAssessmentId)) {
        throw new RangeError('discovered assessment does not belong to the course');
      }
    }
    await this.orm.em.fork().transactional(async (em) => {
      for (const item of discovered) {
        await em.execute(
          `insert into assessment (course_id, content_id, content_type, lms_assessment_id, title, published, unlock_at, due_at, override_starts)
           values (?, ?, ?, ?, ?, ?, ?, ?, array(select distinct x::timestamptz from jsonb_array_elements_text(?::jsonb) x order by 1))
           on conflict (course_id, content_id) do update set
             content_type = excluded.content_type, lms_assessment_id = excluded.lms_assessment_id,
             title = excluded.title, published = excluded.published, unlock_at = excluded.unlock_at, due_at = excluded.due_at,
             override_starts = excluded.override_starts, updated_at = now()
           where (assessment.content_type, assessment.lms_assessment_id, assessment.title, assessment.published, assessment.unlock_at, assessment.due_at,
                  assessment.override_starts)
             is distinct from (excluded.content_type, excluded.lms_assessment_id, excluded.title, excluded.published, excluded.unlock_at, excluded.due_at,
                  excluded.override_starts)`,
          [
            courseId,
            item.contentId,
            item.contentType,
            item.lmsAssessmentId,
            item.title,
            item.published,
            item.unlockAt ?? null,
            item.dueAt ?? null,
            JSON.stringify((item.overrideStarts ?? []).map((time) => time.toISOString())),
          ],
        );
      }
      await em.execute(
        `delete from assessment
         where course_id = ? and content_id not in (select jsonb_array_elements_text(?::jsonb))`,
        [courseId, JSON.stringify(discovered.map((item) => item.contentId))],
      );
    });
    return this.list(courseId);
  }

  /**
   * Records which of a course's assessments the LMS showed an access code on: `seen` maps content ids to what was read;
   * assessments not in it keep their last value (their read failed or was not needed).
   */
  async recordLmsAccessCodes(courseId: string, seen: ReadonlyMap<string, boolean>): Promise<void> {
    if (!isLmsId(courseId) || seen.size === 0) return;
    await this.orm.em.getConnection().execute(
      `update assessment a set lms_has_access_code = seen.value::boolean
       from jsonb_each_text(?::jsonb) seen
       where a.course_id = ? and a.content_id = seen.key and a.lms_has_access_code is distinct from seen.value::boolean`,
      [JSON.stringify(Object.fromEntries(seen)), courseId],
    );
  }
}

function toCachedAssessment(row: AssessmentRow): CachedAssessment {
  return {
    courseId: row.course_id,
    contentId: row.content_id,
    contentType: contentTypeSchema.parse(row.content_type),
    lmsAssessmentId: row.lms_assessment_id,
    title: row.title,
    published: row.published,
    lmsHasAccessCode: row.lms_has_access_code,
    discoveredAt: new Date(row.discovered_at),
    updatedAt: new Date(row.updated_at),
  };
}
