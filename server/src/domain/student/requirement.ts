import type { Logger } from 'pino';
import { contentIdMatchesCourse, isLmsId, parseContentId } from '@exb/shared/content-id.js';
import type { ExbRequirementLookup } from '../exb-requirement.js';
import type { StudentPolicy } from './policy.js';

/**
 * Whether an assessment requires the exam browser: the answer of `GET /api/exb/requirement/...` (which LMS pages ask on
 * every load) and of the exam-browser launch. `true` only for a fully active setting (see `StudentPolicy.active`);
 * absent, disabled, misconfigured and unreadable settings, and any failure to find out, are `false`, since a `true`
 * that no proof can satisfy would lock students out of the assessment.
 *
 * Each answer is one primary-key lookup. Identical lookups that arrive while one is pending share it, so a class
 * opening the same quiz at once costs one query per instance; nothing is kept after the answer, so a policy change is
 * seen by the next request. Malformed ids are answered without a lookup.
 */

export type PolicyLoader = (courseId: string, contentId: string) => Promise<StudentPolicy | null>;

/** Distinct lookups shared at a time; beyond it lookups still run, they just are not shared. */
const MAX_PENDING = 10_000;

export class RequirementService implements ExbRequirementLookup {
  private readonly pending = new Map<string, Promise<boolean>>();

  constructor(
    private readonly load: PolicyLoader,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  isRequired(assessment: { courseId: string; contentId: string }): Promise<boolean> {
    const { courseId, contentId } = assessment;
    if (!isLmsId(courseId) || parseContentId(contentId) === null || !contentIdMatchesCourse(contentId, courseId)) {
      return Promise.resolve(false);
    }
    const key = `${courseId}/${contentId}`;
    const running = this.pending.get(key);
    if (running !== undefined) return running;
    const lookup = this.lookup(courseId, contentId);
    if (this.pending.size < MAX_PENDING) {
      this.pending.set(key, lookup);
      void lookup.finally(() => this.pending.delete(key));
    }
    return lookup;
  }

  private async lookup(courseId: string, contentId: string): Promise<boolean> {
    try {
      const policy = await this.load(courseId, contentId);
      return policy?.active === true;
    } catch (error) {
      this.logger.warn({ err: error, courseId, contentId }, 'exam-browser requirement could not be determined; answering false');
      return false;
    }
  }
}
