import type { Pool } from 'pg';
import type { Clock } from '../../clock.js';

/**
 * Dismissals of the session-readiness prompt (`exb_session_readiness`), one row per LMS user. A dismissal records a
 * preference, never that a device is trusted.
 */
export class ReadinessDismissals {
  constructor(
    private readonly pool: Pool,
    private readonly clock: Clock,
  ) {}

  async dismiss(lmsUserId: string): Promise<void> {
    await this.pool.query(
      `insert into exb_session_readiness (lms_user_id, dismissed_at) values ($1, $2)
       on conflict (lms_user_id) do update set dismissed_at = excluded.dismissed_at`,
      [lmsUserId, new Date(this.clock())],
    );
  }

  async isDismissed(lmsUserId: string): Promise<boolean> {
    const result = await this.pool.query('select 1 from exb_session_readiness where lms_user_id = $1', [lmsUserId]);
    return (result.rowCount ?? 0) > 0;
  }
}
