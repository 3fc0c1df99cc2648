import { activePolicy, type PolicyReader } from './exam-policy.js';
import type { QuitTokens } from './quit-token.js';
import type { ExamTokenStore } from './token-store.js';

/**
 * Leaving the exam browser. The redemption hands the detector an exit grant (12 hours, reusable: the student may look
 * at the exit page more than once); with it the exit page links to the quit route, which redirects to the
 * configuration-bound quit URL built from the current access code. Reaching that URL is what makes the exam browser
 * quit, so it is only ever given out against a valid grant of an assessment whose enforcement is still active.
 */
export type ExitOutcome = { ok: true; quitUrl: string } | { ok: false };

export interface ExitOptions {
  readonly store: ExamTokenStore;
  readonly reader: PolicyReader;
  readonly quitTokens: QuitTokens;
}

export class ExitService {
  constructor(private readonly options: ExitOptions) {}

  /**
   * A valid exit grant of a still active setting, and the quit URL it leads to. `counted`: this check gives the quit
   * redirect, so it counts as an exit in the assessment's activity (in the same statement).
   */
  async checkGrant(courseId: string, contentId: string, grant: string, counted = false): Promise<ExitOutcome> {
    const read = await this.options.store.peekWithPolicy('exit-grant', grant, courseId, contentId, counted ? 'exit' : undefined);
    if (read.token === null) return { ok: false };
    const policy = activePolicy(this.options.reader.read(read.settings));
    if (policy === null || policy.quitUrl === null) return { ok: false };
    return { ok: true, quitUrl: policy.quitUrl };
  }

  /** Whether `token` is the quit token of the assessment's current access code. */
  async isCurrentQuitToken(courseId: string, contentId: string, token: string): Promise<boolean> {
    const policy = await this.options.reader.load(courseId, contentId);
    return typeof policy === 'object' && policy.accessCode !== null && this.options.quitTokens.matches(token, courseId, contentId, policy.accessCode);
  }
}
