import { readFileSync } from 'node:fs';
import type { SebDecision, SebFilterRule } from './seb-url-filter-oracle.js';

/** One configuration of the recorded fixture: its active rules and what SEB decided for each probe URL. */
export interface DecisionCase {
  readonly case: string;
  readonly URLFilterRules: readonly SebFilterRule[];
  readonly probes: readonly { readonly url: string; readonly seb: SebDecision }[];
}

/** SEB for Windows' own URL filter decisions (`server/test/exb/fixtures/README.md`). */
export function loadSebDecisionCases(): DecisionCase[] {
  const file = new URL('../../../server/test/exb/fixtures/seb-url-filter-decisions.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { cases: DecisionCase[] }).cases;
}
