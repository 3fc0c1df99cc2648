import { describe, expect, it } from 'vitest';
import { loadSebDecisionCases } from './support/seb-decisions.js';
import { sebUrlFilter } from './support/seb-url-filter-oracle.js';

// The model of the exam browser's URL filter the rule-writing tests rely on must agree with every decision SEB for
// Windows' own filter made in the recorded fixture (1,548 probes over 87 configurations).

describe('the SEB URL filter oracle', () => {
  const cases = loadSebDecisionCases();

  it('holds the whole fixture', () => {
    expect(cases).toHaveLength(87);
    expect(cases.reduce((sum, c) => sum + c.probes.length, 0)).toBe(1548);
  });

  it('agrees with every decision SEB made', () => {
    const disagreements: string[] = [];
    for (const decisionCase of cases) {
      const filter = sebUrlFilter(decisionCase.URLFilterRules);
      for (const probe of decisionCase.probes) {
        const decision = filter.decide(probe.url);
        if (decision !== probe.seb) disagreements.push(`${decisionCase.case}: ${probe.url} SEB ${probe.seb}, oracle ${decision}`);
      }
    }
    expect(disagreements).toEqual([]);
  });
});
