import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { contentIdMatchesCourse, isLmsId, parseContentId } from '@exb/shared/content-id.js';
import { POLICY_COLUMNS, PolicyUnreadableError, type PolicyReader, type PolicyRow } from './policy.js';

/** One assessment of a course that the student must take in the exam browser. */
export interface RequiredAssessment {
  readonly contentId: string;
  readonly kind: 'classic' | 'newquiz';
  /** The title discovery last read from the LMS. */
  readonly title: string;
}

/** A course view lists at most this many; beyond it a student opens the assessment from the LMS as usual. */
export const MAX_REQUIRED_ASSESSMENTS = 500;

type Row = PolicyRow & { a_title: string };

/**
 * The assessments of a course that require the exam browser, for the student's course view, in one statement.
 *
 * "Requires" is the rule of `StudentPolicy.active`, the same the requirement route and the configuration grant apply;
 * the `where` clause only narrows the rows to those that can qualify. Only assessments discovery last saw published
 * are listed, so a student never learns the title of a quiz the LMS hides from them; one published since the last
 * discovery is missing until the next one, and its own LMS page still leads to the download.
 */
export class RequiredAssessments {
  constructor(
    private readonly pool: Pool,
    private readonly reader: PolicyReader,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  async list(courseId: string): Promise<RequiredAssessment[]> {
    if (!isLmsId(courseId)) return [];
    const result = await this.pool.query<Row>({
      name: 'exb-student-required-assessments',
      text: `select ${POLICY_COLUMNS}, a.title as a_title
        from assessment_setting s
        join assessment a on a.course_id = s.course_id and a.content_id = s.content_id and a.published
        left join course_defaults d on d.course_id = s.course_id
        where s.course_id = $1 and s.enabled and s.exb_required
        order by a.title, s.content_id
        limit ${MAX_REQUIRED_ASSESSMENTS}`,
      values: [courseId],
    });
    const required: RequiredAssessment[] = [];
    for (const row of result.rows) {
      const content = parseContentId(row.s_content_id);
      if (content === null || !contentIdMatchesCourse(content, courseId)) continue;
      let active: boolean;
      try {
        active = this.reader.fromRow(row)?.active === true;
      } catch (error) {
        if (!(error instanceof PolicyUnreadableError)) throw error;
        // An unreadable setting is never enforced, so it is not listed either; the others still are.
        this.logger.warn({ err: error, courseId, contentId: row.s_content_id }, 'assessment setting is unreadable; not listed');
        continue;
      }
      if (active) required.push({ contentId: row.s_content_id as string, kind: content.kind, title: row.a_title });
    }
    return required;
  }
}
