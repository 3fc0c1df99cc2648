import { describe, expect, it } from 'vitest';
import type { ExternalToolConfig } from '@exb/shared/exb-policy.js';
import { emptyRuleRow, emptyToolRow, hostOf, isBlankTool, newRowId, ruleRowsOf, submitRules, submitTool, toolRowOf, updateRow, withoutRow, type RuleRow, type ToolRow } from '../src/lib/policy-rows';

const rule = (rowId: string, value: string, changes: Partial<RuleRow> = {}): RuleRow => ({ rowId, match: 'exact', value, broadDomainConfirmed: false, ...changes });

describe('row ids', () => {
  it('are new at every call, so rows keep their identity while they move', () => {
    const ids = new Set([newRowId('rule'), newRowId('rule'), emptyRuleRow().rowId, emptyToolRow().rowId]);
    expect(ids.size).toBe(4);
    expect(newRowId('tool')).toMatch(/^tool-\d+$/);
  });
});

describe('updateRow and withoutRow', () => {
  const rows = [rule('a', 'one'), rule('b', 'two')];

  it('change or drop only the named row and leave the list given unchanged', () => {
    expect(updateRow(rows, 'b', { value: 'three' })).toEqual([rule('a', 'one'), rule('b', 'three')]);
    expect(withoutRow(rows, 'a')).toEqual([rule('b', 'two')]);
    expect(rows).toEqual([rule('a', 'one'), rule('b', 'two')]);
  });

  it('return the rows as they are for an id that is not there', () => {
    expect(updateRow(rows, 'zzz', { value: 'x' })).toEqual(rows);
    expect(withoutRow(rows, 'zzz')).toEqual(rows);
  });
});

describe('submitRules', () => {
  it('keeps a stored rule’s id and label, trims exact addresses and turns a whole site into its host', () => {
    const rows = [
      rule('r1', '  https://a.example/page  ', { id: 'stored-1', label: 'Reading' }),
      rule('r2', 'https://b.example/deep/path?x=1', { match: 'domain', broadDomainConfirmed: true }),
      rule('r3', 'c.example/path', { match: 'domain' }),
    ];
    expect(submitRules(rows)).toEqual({
      rules: [
        { id: 'stored-1', label: 'Reading', match: 'exact', value: 'https://a.example/page' },
        { match: 'domain', value: 'b.example', broadDomainConfirmed: true },
        { match: 'domain', value: 'c.example', broadDomainConfirmed: false },
      ],
      rowIds: ['r1', 'r2', 'r3'],
    });
  });

  it('leaves blank rows out, so a submitted index maps to the row it came from', () => {
    expect(submitRules([rule('r1', ''), rule('r2', ' \t '), rule('r3', 'https://x.example/')])).toEqual({
      rules: [{ match: 'exact', value: 'https://x.example/' }],
      rowIds: ['r3'],
    });
    expect(submitRules([])).toEqual({ rules: [], rowIds: [] });
  });
});

describe('tools', () => {
  const stored: ExternalToolConfig = {
    id: 'calc',
    label: 'Calculator',
    url: 'https://calc.example/',
    enabled: false,
    managedByAdmin: true,
    resourceRules: [{ id: 'res-1', match: 'domain', value: 'cdn.calc.example', broadDomainConfirmed: true }],
  } as ExternalToolConfig;

  it('a school-managed tool is sent back as stored, with only the switch changed', () => {
    const row: ToolRow = { ...toolRowOf(stored), enabled: true, label: 'Edited', url: 'https://elsewhere.example/' };
    expect(submitTool(row)).toEqual({ tool: { ...stored, enabled: true }, rowId: row.rowId, ruleRowIds: [] });
  });

  it("a teacher's tool is sent trimmed, with its resource rules and their rows", () => {
    const row: ToolRow = {
      rowId: 't1',
      label: '  Dictionary ',
      url: ' https://dict.example/ ',
      enabled: true,
      managedByAdmin: false,
      resourceRules: [rule('rr1', ''), rule('rr2', 'https://api.dict.example/')],
    };
    expect(submitTool(row)).toEqual({
      tool: { label: 'Dictionary', url: 'https://dict.example/', enabled: true, resourceRules: [{ match: 'exact', value: 'https://api.dict.example/' }] },
      rowId: 't1',
      ruleRowIds: ['rr2'],
    });
  });

  it('reads a stored tool into a row with its rules as rows', () => {
    const row = toolRowOf(stored);
    expect(row).toMatchObject({ id: 'calc', label: 'Calculator', managedByAdmin: true, enabled: false, stored });
    expect(row.resourceRules).toEqual([expect.objectContaining({ id: 'res-1', match: 'domain', value: 'cdn.calc.example', broadDomainConfirmed: true })]);
    expect(ruleRowsOf([{ match: 'exact', value: 'https://a.example/' }])[0]).toMatchObject({ broadDomainConfirmed: false, id: undefined });
  });

  it('a row is blank only when its name, address and every resource rule are empty or white space', () => {
    expect(isBlankTool(emptyToolRow())).toBe(true);
    expect(isBlankTool({ ...emptyToolRow(), label: '  ', url: '\t', resourceRules: [rule('r', ' ')] })).toBe(true);
    expect(isBlankTool({ ...emptyToolRow(), label: 'x' })).toBe(false);
    expect(isBlankTool({ ...emptyToolRow(), resourceRules: [rule('r', 'https://a.example/')] })).toBe(false);
  });
});

describe('hostOf', () => {
  it('gives the host with its port, and the text itself for what is not an address', () => {
    expect(hostOf('https://a.example:8443/path')).toBe('a.example:8443');
    expect(hostOf('not an address')).toBe('not an address');
    expect(hostOf('')).toBe('');
  });
});
