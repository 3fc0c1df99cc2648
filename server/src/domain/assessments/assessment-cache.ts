import type { InferEntity } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import { contentIdMatchesCourse, isContentId, isLmsId } from '@exb/shared/content-id.js';
import { Assessment } from '../../db/entities/assessment.js';
import { contentTypeSchema, type CachedAssessment, type ContentType } from '../settings/model.js';

/** One assessment as discovery found it in the LMS. */
export interface DiscoveredAssessment {
  readonly contentId: string;
  readonly contentType: ContentType;
  readonly lmsAssessmentId: string;
  readonly title: string;
  readonly published: boolean;
}

/**
 * The assessments of each course as last discovered in the LMS. Lists and lookups never call the LMS; only a refresh
 * (`replaceCourse`) changes the cache. Every method names its course and never returns another course's rows.
 */
export class AssessmentCache {
  constructor(private readonly orm: MikroORM) {}

  async list(courseId: string): Promise<CachedAssessment[]> {
    if (!isLmsId(courseId)) return [];
    const rows = await this.orm.em.fork().find(Assessment, { courseId }, { orderBy: { contentId: 'asc' }, disableIdentityMap: true });
    return rows.map(toCachedAssessment);
  }

  async find(courseId: string, contentId: string): Promise<CachedAssessment | null> {
    if (!isLmsId(courseId) || !isContentId(contentId) || !contentIdMatchesCourse(contentId, courseId)) return null;
    const row = await this.orm.em.fork().findOne(Assessment, { courseId, contentId }, { disableIdentityMap: true });
    return row === null ? null : toCachedAssessment(row);
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
          `insert into assessment (course_id, content_id, content_type, lms_assessment_id, title, published)
           values (?, ?, ?, ?, ?, ?)
           on conflict (course_id, content_id) do update set
             content_type = excluded.content_type, lms_assessment_id = excluded.lms_assessment_id,
             title = excluded.title, published = excluded.published, updated_at = now()
           where (assessment.content_type, assessment.lms_assessment_id, assessment.title, assessment.published)
             is distinct from (excluded.content_type, excluded.lms_assessment_id, excluded.title, excluded.published)`,
          [courseId, item.contentId, item.contentType, item.lmsAssessmentId, item.title, item.published],
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
}

function toCachedAssessment(row: InferEntity<typeof Assessment>): CachedAssessment {
  return {
    courseId: row.courseId,
    contentId: row.contentId,
    contentType: contentTypeSchema.parse(row.contentType),
    lmsAssessmentId: row.lmsAssessmentId,
    title: row.title,
    published: row.published,
    discoveredAt: row.discoveredAt,
    updatedAt: row.updatedAt,
  };
}
