import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { leaseNames, withLease } from '../../db/leases.js';
import type { LmsApi } from '../../lms/api.js';
import { LmsNotFoundError, LmsPermissionDeniedError } from '../../lms/errors.js';
import type { AdminAccounts } from './admin-accounts.js';
import { mapLimited } from '../connected-courses/map-limited.js';
import type { CourseConnections } from '../connected-courses/course-connections.js';
import { courseFacts, inRootAccount } from '../connected-courses/course-facts.js';

/** Courses one backfill looks at; more than any school had before administrators could connect courses themselves. */
const MAX_CANDIDATES = 2_000;
const CONCURRENCY = 4;
/** Longer than a whole run may take (2,000 LMS reads, four at a time, each within its deadline). */
const LEASE_TTL_SECONDS = 15 * 60;

/**
 * The one-time backfill of legacy connections: before administrators connected courses, instructors enabled
 * enforcement on their own. The first administrator summary of a root account connects those courses (origin
 * `legacy`), each only after the LMS, asked with the administrator's grant, places it in that root account; courses of
 * other schools stay unconnected. A lease keeps it to one run at a time across instances; the account is marked done
 * only after every candidate was decided, so an LMS outage midway means another run later.
 */
export class LegacyBackfill {
  constructor(
    private readonly deps: { orm: MikroORM; connections: CourseConnections; accounts: AdminAccounts; logger: Logger },
  ) {}

  /** Connects the account's legacy courses unless done before; returns how many it connected. */
  async run(principal: { accountId: string; lmsUserId: string }, lms: LmsApi): Promise<number> {
    const { orm, logger } = this.deps;
    const lease = { name: leaseNames.adminBackfill(principal.accountId), ttlSeconds: LEASE_TTL_SECONDS, logger };
    const outcome = await withLease(orm, lease, () => this.connectLegacyCourses(principal, lms));
    return outcome.held ? outcome.value : 0;
  }

  private async connectLegacyCourses(principal: { accountId: string; lmsUserId: string }, lms: LmsApi): Promise<number> {
    const { connections, accounts } = this.deps;
    if ((await accounts.state(principal.accountId)).backfilled) return 0;
    const candidates = await connections.unconnectedManagedCourses(MAX_CANDIDATES);
    const outcomes = await mapLimited(candidates, CONCURRENCY, async (courseId) => {
      try {
        const course = await lms.getCourse(courseId, { include: ['term'] });
        if (course.id !== courseId || !inRootAccount(course, principal.accountId)) return 'skipped' as const;
        await connections.upsert(principal.accountId, courseFacts(course), 'legacy', principal.lmsUserId);
        return 'connected' as const;
      } catch (error) {
        if (error instanceof LmsNotFoundError || error instanceof LmsPermissionDeniedError) return 'skipped' as const;
        throw error;
      }
    });
    await accounts.markBackfilled(principal.accountId);
    const connected = outcomes.filter((outcome) => outcome === 'connected').length;
    this.deps.logger.info({ accountId: principal.accountId, candidates: candidates.length, connected }, 'legacy course connections backfilled');
    return connected;
  }
}
