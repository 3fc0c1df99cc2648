import type { LmsApi } from '../../lms/api.js';
import type { LmsTerm } from '../../lms/schemas.js';
import type { AdminAccounts, AdminAccountState, TermView } from './admin-accounts.js';
import { invalidAdminRequest } from '../connected-courses/errors.js';

/** How long this process reuses the active term it derived for an account that chose none. */
const DEFAULT_TERM_TTL_MS = 5 * 60 * 1000;
const DEFAULT_TERM_CACHE_LIMIT = 10_000;

function isoDate(value: string | null): string | null {
  if (value === null) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

export function termView(term: LmsTerm): TermView {
  return { id: term.id, name: term.name, startAt: isoDate(term.startAt), endAt: isoDate(term.endAt) };
}

/**
 * The active term (the operational term's default): among the terms whose dates include `now`, the one that started
 * last (a dated term before an undated catch-all such as "Default Term"); when none includes it, the term that started
 * most recently; failing that, the first listed. `null` only without terms.
 */
export function activeTerm(terms: readonly TermView[], now: Date): TermView | null {
  const time = now.getTime();
  const start = (term: TermView) => (term.startAt === null ? Number.NEGATIVE_INFINITY : Date.parse(term.startAt));
  const end = (term: TermView) => (term.endAt === null ? Number.POSITIVE_INFINITY : Date.parse(term.endAt));
  const latestStart = (candidates: TermView[]) =>
    candidates.reduce<TermView | null>((best, term) => (best === null || start(term) > start(best) ? term : best), null);
  const current = latestStart(terms.filter((term) => start(term) <= time && time <= end(term)));
  if (current !== null) return current;
  return latestStart(terms.filter((term) => start(term) <= time)) ?? terms[0] ?? null;
}

/**
 * The root account's terms, live from the LMS, and its operational term: the one an administrator chose, or else the
 * active term. Lists that only need the operational term (summary, course list) read the chosen one from the database
 * and ask the LMS for the default at most every few minutes per account.
 */
export class TermsService {
  private readonly defaults = new Map<string, { term: TermView | null; at: number }>();

  constructor(
    private readonly accounts: AdminAccounts,
    private readonly now: () => number = Date.now,
  ) {}

  async live(accountId: string, lms: LmsApi): Promise<TermView[]> {
    return (await lms.listTerms(accountId)).map(termView);
  }

  /** `GET /api/admin/terms`: the live list, with the chosen term as the LMS lists it now (or the default when it is gone). */
  async list(accountId: string, lms: LmsApi): Promise<{ terms: TermView[]; operationalTerm: TermView | null }> {
    const [terms, state] = await Promise.all([this.live(accountId, lms), this.accounts.state(accountId)]);
    const chosen = state.operationalTerm === null ? undefined : terms.find((term) => term.id === state.operationalTerm!.id);
    const operationalTerm = chosen ?? activeTerm(terms, new Date(this.now()));
    if (chosen === undefined) this.remember(accountId, operationalTerm);
    return { terms, operationalTerm };
  }

  async operational(accountId: string, lms: LmsApi): Promise<TermView | null> {
    return this.operationalOf(accountId, await this.accounts.state(accountId), lms);
  }

  /** The operational term given the account's stored state (read once by a caller that needs more of it). */
  async operationalOf(accountId: string, state: Pick<AdminAccountState, 'operationalTerm'>, lms: LmsApi): Promise<TermView | null> {
    if (state.operationalTerm !== null) return state.operationalTerm;
    const cached = this.defaults.get(accountId);
    if (cached !== undefined && this.now() - cached.at < DEFAULT_TERM_TTL_MS) return cached.term;
    const term = activeTerm(await this.live(accountId, lms), new Date(this.now()));
    this.remember(accountId, term);
    return term;
  }

  /** `PUT /api/admin/terms/operational`: only a term the LMS lists for the account now. */
  async choose(accountId: string, lms: LmsApi, termId: string): Promise<TermView> {
    const term = (await this.live(accountId, lms)).find((candidate) => candidate.id === termId);
    if (term === undefined) throw invalidAdminRequest('This term is not one of your account’s terms in the LMS. Choose a term from the list.');
    await this.accounts.saveOperationalTerm(accountId, term);
    return term;
  }

  private remember(accountId: string, term: TermView | null): void {
    if (this.defaults.size >= DEFAULT_TERM_CACHE_LIMIT) this.defaults.clear();
    this.defaults.set(accountId, { term, at: this.now() });
  }
}
