import type { LmsApi } from '../../lms/api.js';
import type { AdminAccounts, TermView } from './admin-accounts.js';
import type { BackgroundWork } from './background.js';
import type { ConnectionCounts, CourseConnections } from '../connected-courses/course-connections.js';
import type { AdminReconciler, PresetCountSource, PresetCounts } from '../connected-courses/summary-hooks.js';
import type { LegacyBackfill } from './legacy-backfill.js';
import type { TermsService } from './terms-service.js';

/** Document 2 "Summary". */
export interface AdminSummary {
  readonly success: true;
  readonly account: { readonly id: string; readonly name: string };
  readonly permissions: { readonly manage_courses: boolean };
  readonly operationalTerm: TermView | null;
  readonly summary: ConnectionCounts & PresetCounts;
}

interface AccountInfo {
  readonly name: string;
  readonly manageCourses: boolean;
  readonly at: number;
}

/** How long the account's name and the administrator's course permission are reused before the LMS is asked again. */
const ACCOUNT_INFO_TTL_MS = 5 * 60 * 1000;
const ACCOUNT_INFO_CACHE_LIMIT = 10_000;

export interface SummaryDependencies {
  readonly connections: CourseConnections;
  readonly accounts: AdminAccounts;
  readonly terms: TermsService;
  readonly backfill: LegacyBackfill;
  readonly background: BackgroundWork;
  readonly presets: PresetCountSource;
  readonly reconciler: AdminReconciler;
  readonly reconcileBatchSize: number;
  readonly now?: () => number;
}

/** How long `catchUp` waits for the legacy backfill before it answers that the backfill is still running. */
const BACKFILL_WAIT_MS = 10_000;

/** `POST /api/admin/catch-up`: whether the account's one-time legacy backfill is done. */
export interface CatchUpAnswer {
  readonly success: true;
  readonly backfilled: boolean;
}

/**
 * `GET /api/admin/summary`: the account, the administrator's course permission and the account's totals, read with
 * aggregate queries over the connection records; a read that writes nothing. The LMS facts (account name, permission,
 * default term) are reused for a few minutes, so a dashboard reload costs no LMS call.
 *
 * `POST /api/admin/catch-up`, which the dashboard sends when it opens, starts the writes the summary started before:
 * the one-time legacy backfill and a reconciliation batch, with the administrator's grant. A GET that any page, prefetch
 * or link can send no longer connects courses or changes them in the LMS.
 */
export class SummaryService {
  private readonly info = new Map<string, AccountInfo>();
  private readonly now: () => number;

  constructor(private readonly deps: SummaryDependencies) {
    this.now = deps.now ?? Date.now;
  }

  /**
   * Starts the backfill (until it is done) and a reconciliation batch in the background, and waits a few seconds for the
   * backfill, so the dashboard can list the courses it connected; `backfilled: false` asks the dashboard to call again.
   */
  async catchUp(principal: { accountId: string; lmsUserId: string }, lms: LmsApi, waitMs = BACKFILL_WAIT_MS): Promise<CatchUpAnswer> {
    const { accountId } = principal;
    const { background, backfill, reconciler, reconcileBatchSize } = this.deps;
    void background.start(`reconcile:${accountId}`, () => reconciler.reconcile(accountId, lms, reconcileBatchSize));
    if ((await this.deps.accounts.state(accountId)).backfilled) return { success: true, backfilled: true };
    const run = background.start(`backfill:${accountId}`, () => backfill.run(principal, lms));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([run, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
    return { success: true, backfilled: (await this.deps.accounts.state(accountId)).backfilled };
  }

  async summary(principal: { accountId: string; lmsUserId: string }, lms: LmsApi): Promise<AdminSummary> {
    const { accountId } = principal;
    const state = await this.deps.accounts.state(accountId);
    const [info, operationalTerm, counts, presets] = await Promise.all([
      this.accountInfo(principal, lms),
      this.deps.terms.operationalOf(accountId, state, lms),
      this.deps.connections.counts(accountId),
      this.deps.presets.counts(accountId),
    ]);
    return {
      success: true,
      account: { id: accountId, name: info.name },
      permissions: { manage_courses: info.manageCourses },
      operationalTerm,
      summary: { ...counts, ...presets },
    };
  }

  private async accountInfo(principal: { accountId: string; lmsUserId: string }, lms: LmsApi): Promise<AccountInfo> {
    const key = `${principal.accountId}:${principal.lmsUserId}`;
    const cached = this.info.get(key);
    if (cached !== undefined && this.now() - cached.at < ACCOUNT_INFO_TTL_MS) return cached;
    // Current LMS versions grant only the granular right, older ones only the legacy one (note §4.9).
    const [account, rights] = await Promise.all([
      lms.getAccount(principal.accountId),
      lms.getAccountPermissions(principal.accountId, ['manage_courses', 'manage_courses_admin']),
    ]);
    const info = { name: account.name, manageCourses: rights.manage_courses === true || rights.manage_courses_admin === true, at: this.now() };
    if (this.info.size >= ACCOUNT_INFO_CACHE_LIMIT) this.info.clear();
    this.info.set(key, info);
    return info;
  }
}
