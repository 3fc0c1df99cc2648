import type { Logger } from 'pino';
import { contentIdMatchesCourse, isLmsId, parseContentId } from '@exb/shared/content-id.js';
import type { ExbRequirementLookup } from '../exb-requirement.js';
import type { ExamPolicy } from './exam-policy.js';
import { settingsGeneration } from '../settings/settings-generation.js';

/**
 * Whether an assessment requires the exam browser: the answer of `GET /api/exb/requirement/...` (which LMS pages ask on
 * every load) and of the exam-browser launch. `true` only for a fully active setting (see `ExamPolicy.active`);
 * absent, disabled, misconfigured and unreadable settings, and any failure to find out, are `false`, since a `true`
 * that no proof can satisfy would lock students out of the assessment.
 *
 * An answer costs one primary-key lookup and is then kept for {@link REQUIREMENT_CACHE_MS} (at most
 * {@link MAX_CACHED} assessments), so a class opening the same quiz at once, and every reload of its pages, costs one
 * query per instance and second. A settings write through this process drops every kept answer
 * (`settings/settings-generation.ts`), so its next request sees the change; another instance's change is seen within
 * the second. Identical lookups that arrive while one is pending share it. Failures are not kept. Malformed ids are
 * answered without a lookup, and so is a lookup `admitLookup` refuses (a client asking for thousands of distinct
 * assessments): `false`, the contract's answer for an unverifiable requirement.
 */

export type PolicyLoader = (courseId: string, contentId: string) => Promise<ExamPolicy | null>;

/** Distinct lookups shared at a time; beyond it lookups still run, they just are not shared. */
const MAX_PENDING = 10_000;
/** How long an answer is kept: the longest another instance's policy change goes unseen here. */
export const REQUIREMENT_CACHE_MS = 1_000;
const MAX_CACHED = 20_000;

interface CachedAnswer {
  readonly required: boolean;
  readonly until: number;
  readonly generation: number;
}

export class RequirementService implements ExbRequirementLookup {
  private readonly pending = new Map<string, Promise<boolean>>();
  private readonly answers = new Map<string, CachedAnswer>();

  constructor(
    private readonly load: PolicyLoader,
    private readonly logger: Pick<Logger, 'warn'>,
    /** Real time: the cache's lifetime is about other instances' writes, not about token lifetimes. */
    private readonly now: () => number = Date.now,
  ) {}

  async isRequired(assessment: { courseId: string; contentId: string }, admitLookup?: () => Promise<boolean>): Promise<boolean> {
    const { courseId, contentId } = assessment;
    if (!isLmsId(courseId) || parseContentId(contentId) === null || !contentIdMatchesCourse(contentId, courseId)) return false;
    const key = `${courseId}/${contentId}`;
    const now = this.now();
    const generation = settingsGeneration();
    const cached = this.answers.get(key);
    if (cached !== undefined && cached.until > now && cached.generation === generation) return cached.required;
    const running = this.pending.get(key);
    if (running !== undefined) return running;
    if (admitLookup !== undefined && !(await admitLookup())) return false;
    const lookup = this.lookup(courseId, contentId, key, now, generation);
    if (this.pending.size < MAX_PENDING) {
      this.pending.set(key, lookup);
      void lookup.finally(() => this.pending.delete(key));
    }
    return lookup;
  }

  private async lookup(courseId: string, contentId: string, key: string, started: number, generation: number): Promise<boolean> {
    try {
      const policy = await this.load(courseId, contentId);
      const required = policy?.active === true;
      if (this.answers.size >= MAX_CACHED) this.answers.clear();
      // Kept from when the lookup started, under the write count seen then: a write meanwhile retires it at once.
      this.answers.set(key, { required, until: started + REQUIREMENT_CACHE_MS, generation });
      return required;
    } catch (error) {
      this.logger.warn({ err: error, courseId, contentId }, 'exam-browser requirement could not be determined; answering false');
      return false;
    }
  }
}
