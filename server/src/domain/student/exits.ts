import type { Logger } from 'pino';
import { PolicyUnreadableError, type PolicyReader, type PolicyRow, type StudentPolicy } from './policy.js';
import type { QuitTokens } from './quit-token.js';
import type { StudentTokenStore } from './token-store.js';

/**
 * Leaving the exam browser. The redemption hands the detector an exit grant (12 hours, reusable: the student may look
 * at the exit page more than once); with it the exit page links to the quit route, which redirects to the
 * configuration-bound quit URL built from the current access code. Reaching that URL is what makes the exam browser
 * quit, so it is only ever given out against a valid grant of an assessment whose enforcement is still active.
 */
export type ExitOutcome = { ok: true; quitUrl: string } | { ok: false };

export interface ExitOptions {
  readonly store: StudentTokenStore;
  readonly reader: PolicyReader;
  readonly quitTokens: QuitTokens;
  readonly logger: Pick<Logger, 'warn'>;
}

export class ExitService {
  constructor(private readonly options: ExitOptions) {}

  /** A valid exit grant of a still active setting, and the quit URL it leads to. */
  async checkGrant(courseId: string, contentId: string, grant: string): Promise<ExitOutcome> {
    const read = await this.options.store.peekWithPolicy('exit-grant', grant, courseId, contentId);
    if (read.token === null) return { ok: false };
    const policy = this.policyFrom(read.policy);
    if (policy === null || !policy.active || policy.quitUrl === null) return { ok: false };
    return { ok: true, quitUrl: policy.quitUrl };
  }

  /** Whether `token` is the quit token of the assessment's current access code. */
  async isCurrentQuitToken(courseId: string, contentId: string, token: string): Promise<boolean> {
    const policy = this.policyFrom(await this.options.store.policy(courseId, contentId));
    return policy !== null && policy.accessCode !== null && this.options.quitTokens.matches(token, courseId, contentId, policy.accessCode);
  }

  private policyFrom(row: PolicyRow): StudentPolicy | null {
    try {
      return this.options.reader.fromRow(row);
    } catch (error) {
      if (!(error instanceof PolicyUnreadableError)) throw error;
      this.options.logger.warn({ err: error }, 'assessment setting is unreadable; exit refused');
      return null;
    }
  }
}
