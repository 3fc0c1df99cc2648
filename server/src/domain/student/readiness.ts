import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { LmsConnector } from '../../lms/connector.js';
import { LmsAuthorizationRequiredError, isLmsError } from '../../lms/errors.js';
import type { Clock } from './clock.js';

/**
 * Session readiness: before an exam, a student can confirm that the service is able to sign their exam browser into
 * the LMS. The check asks the LMS for a session URL with the student's grant and throws the URL away; it is neither
 * stored nor returned, because whoever holds it is signed in as the student. Dismissing the readiness prompt is
 * remembered per LMS user; it records a preference, never that a device is trusted.
 */
export type ReadinessOutcome =
  | { ok: true }
  | { ok: false; reason: 'authorization-required' | 'lms-failed' | 'unavailable' };

const READINESS_DEADLINE_MS = 10_000;

export interface ReadinessOptions {
  readonly pool: Pool;
  readonly lms: LmsConnector;
  readonly lmsUrl: string;
  /** The LMS API (OAuth client) is configured. */
  readonly lmsApiConfigured: boolean;
  readonly clock: Clock;
  readonly logger: Pick<Logger, 'warn' | 'info'>;
}

export class SessionReadiness {
  constructor(private readonly options: ReadinessOptions) {}

  /** Whether students' configurations sign them in to the LMS at all, and so whether readiness means anything. */
  get applies(): boolean {
    return this.options.lmsApiConfigured;
  }

  async check(lmsUserId: string, courseId: string): Promise<ReadinessOutcome> {
    if (!this.options.lmsApiConfigured) return { ok: false, reason: 'unavailable' };
    const returnTo = new URL(`/courses/${courseId}`, this.options.lmsUrl).href;
    try {
      await this.options.lms.forUser(lmsUserId).createSessionToken(returnTo, { deadlineMs: READINESS_DEADLINE_MS });
      return { ok: true };
    } catch (error) {
      if (error instanceof LmsAuthorizationRequiredError) return { ok: false, reason: 'authorization-required' };
      if (isLmsError(error)) {
        this.options.logger.warn({ code: error.code, status: error.status }, 'LMS session readiness check failed');
        return { ok: false, reason: 'lms-failed' };
      }
      throw error;
    }
  }

  async dismiss(lmsUserId: string): Promise<void> {
    await this.options.pool.query(
      `insert into exb_session_readiness (lms_user_id, dismissed_at) values ($1, $2)
       on conflict (lms_user_id) do update set dismissed_at = excluded.dismissed_at`,
      [lmsUserId, new Date(this.options.clock())],
    );
  }

  async isDismissed(lmsUserId: string): Promise<boolean> {
    const result = await this.options.pool.query('select 1 from exb_session_readiness where lms_user_id = $1', [lmsUserId]);
    return (result.rowCount ?? 0) > 0;
  }
}
