import { describe, expect, it } from 'vitest';
import { exactUrlExpression, storedRuleReading, storedRuleReadings, configuredExactAddress, type ExbUrlRule } from '../src/exb-policy/index.js';
import { sebUrlFilter, type SebDecision } from './support/seb-url-filter-oracle.js';

const exact = (value: string): ExbUrlRule => ({ match: 'exact', value });
const domain = (value: string, broadDomainConfirmed = true): ExbUrlRule => ({ match: 'domain', value, broadDomainConfirmed });

/** What the exam browser decides for `probe` under the one expression a configuration writes for `address`. */
function decides(address: string, probe: string): SebDecision {
  const written = exactUrlExpression(configuredExactAddress(address));
  if (!written.ok) throw new Error(`no expression for ${address}`);
  return sebUrlFilter([{ expression: written.expression, action: 'allow', regex: false }]).decide(probe);
}

describe('storedRuleReading: rules the editor accepts today are not marked', () => {
  it.each([
    ['a port-less exact page (the expression names the port)', exact('https://tool.example.com/page')],
    ['an explicit port', exact('https://tool.example.com:8443/page')],
    ['an escape the exam browser keeps decoded', exact('https://lib.example.edu/view/Mercury_%28planet%29?t=12%3A30')],
    ['a space sent as %20', exact('https://tool.example.com/search?q=a%20b')],
    ['a confirmed whole site', domain('wolframalpha.com')],
  ])('%s', (_name, rule) => {
    expect(storedRuleReading(rule)).toBeNull();
  });
});

describe('storedRuleReading: every refusal category is marked with the refusal a save would give', () => {
  it.each([
    ['the path "/" allows the whole site', exact('https://tool.example.com/?lang=en'), 'rule.wholeHost'],
    ['the front page alone', exact('https://tool.example.com/'), 'rule.wholeHost'],
    ['a "+" in the path', exact('https://tool.example.com/c++/intro'), 'rule.neverMatches'],
    ['%2F in the path', exact('https://tool.example.com/a%2Fb'), 'rule.neverMatches'],
    ['%26 in the query', exact('https://tool.example.com/p?a=x%26y'), 'rule.neverMatches'],
    ['%3D in the query', exact('https://tool.example.com/p?a=x%3Dy'), 'rule.neverMatches'],
    ['%2B in the query', exact('https://tool.example.com/p?a=x%2By'), 'rule.neverMatches'],
    ['%23 in the query', exact('https://tool.example.com/p?a=x%23y'), 'rule.neverMatches'],
    ['%40 in the query', exact('https://tool.example.com/p?mail=ana%40example.edu'), 'rule.atSign'],
    ['%2A in the path', exact('https://tool.example.com/a%2Ab'), 'rule.wildcardEscape'],
    ['bytes that are not UTF-8', exact('https://tool.example.com/a%FFb'), 'rule.undecodable'],
    ['an address that is not https', exact('http://tool.example.com/page'), 'url.httpsOnly'],
    ['a raw "@" in the path', exact('https://tool.example.com/u/a@b'), 'url.notExpressible'],
    ['a wildcard typed as is', exact('https://tool.example.com/a*'), 'url.pattern'],
    ['a public suffix as a whole site', domain('co.uk'), 'rule.publicSuffix'],
    ['a whole site never confirmed', domain('example.org', false), 'rule.confirmWholeSite'],
  ])('%s', (_name, rule, messageKey) => {
    const reading = storedRuleReading(rule);
    expect(reading).toMatchObject({ match: rule.match, value: rule.value, faithful: null, reason: { messageKey } });
    expect(reading?.reason.message.length).toBeGreaterThan(10);
  });

  it('a query that still holds a refused escape after the rewrite has no faithful form', () => {
    expect(storedRuleReading(exact('https://tool.example.com/p?q=a+b&x=%26'))).toMatchObject({ faithful: null, reason: { messageKey: 'rule.neverMatches' } });
  });
});

describe('storedRuleReading: rewrites to the faithful form where one means the same page', () => {
  it.each([
    ['a "+" in the query is a space', 'https://tool.example.com/search?q=a+b', 'https://tool.example.com/search?q=a%20b'],
    ['%2F in the query is a "/"', 'https://tool.example.com/login?next=%2Fhome%2Fexam', 'https://tool.example.com/login?next=/home/exam'],
    ['%3F in the query is a "?"', 'https://tool.example.com/ask?q=why%3f', 'https://tool.example.com/ask?q=why?'],
    ['all three at once', 'https://tool.example.com/s?q=a+b%2Fc%3F', 'https://tool.example.com/s?q=a%20b/c?'],
  ])('%s', (_name, stored, faithful) => {
    expect(storedRuleReading(exact(stored))).toMatchObject({ reason: { messageKey: 'rule.neverMatches' }, faithful });
    // The faithful form is one the editor accepts: it is not marked itself.
    expect(storedRuleReading(exact(faithful))).toBeNull();
  });

  it('lists only the marked rules of a policy, in their order', () => {
    const rules = [exact('https://tool.example.com/page'), exact('https://tool.example.com/?lang=en'), exact('https://tool.example.com/s?q=a+b')];
    expect(storedRuleReadings(rules).map((reading) => [reading.value, reading.faithful])).toEqual([
      ['https://tool.example.com/?lang=en', null],
      ['https://tool.example.com/s?q=a+b', 'https://tool.example.com/s?q=a%20b'],
    ]);
  });
});

describe('configurations write the faithful form, and the exam browser then decides what the editor promises', () => {
  it('a "+" in the query: the page as browsers send it and as %20, and nothing else', () => {
    const stored = 'https://tool.example.com/search?q=a+b';
    expect(decides(stored, 'https://tool.example.com/search?q=a+b')).toBe('ALLOW');
    expect(decides(stored, 'https://tool.example.com/search?q=a%20b')).toBe('ALLOW');
    expect(decides(stored, 'https://tool.example.com/search?q=ab')).toBe('BLOCK');
    expect(decides(stored, 'https://tool.example.com/search?q=a+c')).toBe('BLOCK');
    expect(decides(stored, 'https://tool.example.com/other?q=a+b')).toBe('BLOCK');
    expect(decides(stored, 'https://tool.example.com:8443/search?q=a+b')).toBe('BLOCK');
    // Written as stored, the exam browser blocked the very page the rule names.
    const asStored = sebUrlFilter([{ expression: 'https://.tool.example.com/search?q=a+b', action: 'allow', regex: false }]);
    expect(asStored.decide(stored)).toBe('BLOCK');
  });

  it('%2F and %3F in the query: the page with them encoded or not, and nothing else', () => {
    const stored = 'https://tool.example.com/login?next=%2Fhome%3Fx';
    expect(decides(stored, stored)).toBe('ALLOW');
    expect(decides(stored, 'https://tool.example.com/login?next=/home?x')).toBe('ALLOW');
    expect(decides(stored, 'https://tool.example.com/login?next=/homes?x')).toBe('BLOCK');
    expect(decides(stored, 'https://tool.example.com/login/home?x')).toBe('BLOCK');
  });

  it('a stored rule without a faithful form is written as stored', () => {
    expect(configuredExactAddress('https://tool.example.com/a%2Fb')).toBe('https://tool.example.com/a%2Fb');
    expect(configuredExactAddress('https://tool.example.com/page')).toBe('https://tool.example.com/page');
  });
});
