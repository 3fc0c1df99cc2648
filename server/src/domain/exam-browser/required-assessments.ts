import type { Pool } from 'pg';
import { contentIdMatchesCourse, isLmsId, parseContentId } from '@exb/shared/content-id.js';
import { loadPublishedEnforcedRows } from '../assessments/assessment-cache.js';
import { activePolicy, type PolicyReader } from './exam-policy.js';

/** One assessment of a course that the student must take in the exam browser. */
export interface RequiredAssessment {
  readonly contentId: string;
  readonly kind: 'classic' | 'newquiz';
  /** The title discovery last read from the LMS. */
  readonly title: string;
}

/** A course view lists at most this many; beyond it a student opens the assessment from the LMS as usual. */
export const MAX_REQUIRED_ASSESSMENTS = 500;

/**
 * The assessments of a course that require the exam browser, for the student's course view, in one statement.
 *
 * "Requires" is the rule of `ExamPolicy.active`, the same the requirement route and the configuration grant apply;
 * the `where` clause only narrows the rows to those that can qualify. Only assessments discovery last saw published
 * are listed, so a student never learns the title of a quiz the LMS hides from them; one published since the last
 * discovery is missing until the next one, and its own LMS page still leads to the download.
 */
export class RequiredAssessments {
  constructor(
    private readonly pool: Pool,
    private readonly reader: PolicyReader,
  ) {}

  async list(courseId: string): Promise<RequiredAssessment[]> {
    if (!isLmsId(courseId)) return [];
    const rows = await loadPublishedEnforcedRows(this.pool, courseId, MAX_REQUIRED_ASSESSMENTS);
    const required: RequiredAssessment[] = [];
    for (const row of rows) {
      const content = parseContentId(row.content_id);
      if (content === null || !contentIdMatchesCourse(content, courseId)) continue;
      // An unreadable setting is never enforced, so it is not listed either; the others still are.
      const policy = activePolicy(this.reader.read(row.settings_text));
      if (policy !== null) required.push({ contentId: policy.contentId, kind: content.kind, title: row.a_title });
    }
    return required;
  }
}
