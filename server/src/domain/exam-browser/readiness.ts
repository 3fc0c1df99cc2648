import type { Logger } from 'pino';
import type { LmsConnector } from '../../lms/connector.js';
import { LmsAuthorizationRequiredError, isLmsError } from '../../lms/errors.js';
import { lmsCourseUrl } from '../../lms/pages.js';
import type { CoursePrincipal } from '../../identity/principal.js';

/**
 * Session readiness: before an exam, a student can confirm that the service is able to sign their exam browser into
 * the LMS. The check asks the LMS for a session URL with the student's grant and throws the URL away; it is neither
 * stored nor returned, because whoever holds it is signed in as the student. Dismissing the prompt is kept apart
 * (`readiness-dismissals.ts`).
 */
export type ReadinessOutcome =
  /** `termsAcceptanceRequired`: the LMS will show its terms of use first, which the student should accept beforehand. */
  | { ok: true; termsAcceptanceRequired: boolean }
  | { ok: false; reason: 'authorization-required' | 'lms-failed' | 'unavailable' };

const READINESS_DEADLINE_MS = 10_000;

export interface ReadinessOptions {
  readonly lms: LmsConnector;
  readonly lmsUrl: string;
  /** The LMS API (OAuth client) is configured. */
  readonly lmsApiConfigured: boolean;
  readonly logger: Pick<Logger, 'warn' | 'info'>;
}

export class SessionReadiness {
  constructor(private readonly options: ReadinessOptions) {}

  /** Whether students' configurations sign them in to the LMS at all, and so whether readiness means anything. */
  get applies(): boolean {
    return this.options.lmsApiConfigured;
  }

  async check(principal: CoursePrincipal): Promise<ReadinessOutcome> {
    if (!this.options.lmsApiConfigured) return { ok: false, reason: 'unavailable' };
    const returnTo = lmsCourseUrl(this.options.lmsUrl, principal.courseId);
    try {
      const session = await this.options.lms.forPrincipal(principal).createSessionToken(returnTo, { deadlineMs: READINESS_DEADLINE_MS });
      return { ok: true, termsAcceptanceRequired: session.requiresTermsAcceptance };
    } catch (error) {
      if (error instanceof LmsAuthorizationRequiredError) return { ok: false, reason: 'authorization-required' };
      if (isLmsError(error)) {
        this.options.logger.warn({ code: error.code, status: error.status }, 'LMS session readiness check failed');
        return { ok: false, reason: 'lms-failed' };
      }
      throw error;
    }
  }
}
