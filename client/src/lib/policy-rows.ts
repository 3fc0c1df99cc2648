import { siteOfAddress, type ExbUrlRule, type ExbUrlRuleInput, type ExternalToolConfig } from '@exb/shared/exb-policy.js';

/**
 * URL rules and tools as the policy editors hold them (the teacher's and the administrator's preset form alike): rows
 * with a page-local key, and how each row is submitted so the server's field paths can be led back to it.
 */

let rowCounter = 0;

/** A key for a row that exists only in this page, so React and error messages can follow it while rows move. */
export function newRowId(prefix: string): string {
  rowCounter += 1;
  return `${prefix}-${rowCounter}`;
}

/** `rows` with `change` applied to the row `rowId`, the others as they are. */
export function updateRow<Row extends { readonly rowId: string }>(rows: readonly Row[], rowId: string, change: Partial<Row>): Row[] {
  return rows.map((row) => (row.rowId === rowId ? { ...row, ...change } : row));
}

/** `rows` without the row `rowId`. */
export function withoutRow<Row extends { readonly rowId: string }>(rows: readonly Row[], rowId: string): Row[] {
  return rows.filter((row) => row.rowId !== rowId);
}

// ---------------------------------------------------------------------------------------------------------------------
// URL rules as the editors hold them

export interface RuleRow {
  readonly rowId: string;
  /** Kept from the stored rule so saving an unchanged rule keeps its identity. */
  readonly id?: string | undefined;
  readonly label?: string | undefined;
  readonly match: 'exact' | 'domain';
  readonly value: string;
  readonly broadDomainConfirmed: boolean;
}

export function ruleRowsOf(rules: readonly ExbUrlRule[]): RuleRow[] {
  return rules.map((rule) => ({
    rowId: newRowId('rule'),
    id: rule.id,
    label: rule.label,
    match: rule.match,
    value: rule.value,
    broadDomainConfirmed: rule.broadDomainConfirmed === true,
  }));
}

export function emptyRuleRow(): RuleRow {
  return { rowId: newRowId('rule'), match: 'exact', value: '', broadDomainConfirmed: false };
}

/**
 * The rules to submit, and for each submitted index the row it came from: rows left blank are not sent, so the
 * server's `path` indices have to be translated back to rows.
 */
export function submitRules(rows: readonly RuleRow[]): { rules: ExbUrlRuleInput[]; rowIds: string[] } {
  const rules: ExbUrlRuleInput[] = [];
  const rowIds: string[] = [];
  for (const row of rows) {
    if (row.value.trim() === '') continue;
    rules.push({
      ...(row.id !== undefined ? { id: row.id } : {}),
      ...(row.label !== undefined ? { label: row.label } : {}),
      match: row.match,
      // A whole site is its host, also when an address was pasted and the field not left since.
      value: row.match === 'domain' ? siteOfAddress(row.value) : row.value.trim(),
      ...(row.match === 'domain' ? { broadDomainConfirmed: row.broadDomainConfirmed } : {}),
    });
    rowIds.push(row.rowId);
  }
  return { rules, rowIds };
}

// ---------------------------------------------------------------------------------------------------------------------
// Tools as the editors hold them

export interface ToolRow {
  readonly rowId: string;
  /** Absent on a tool added in this page; the server assigns one. */
  readonly id?: string | undefined;
  readonly label: string;
  readonly url: string;
  readonly enabled: boolean;
  readonly managedByAdmin: boolean;
  readonly resourceRules: readonly RuleRow[];
  /** The stored definition, for school-managed tools, which are sent back unchanged apart from `enabled`. */
  readonly stored?: ExternalToolConfig | undefined;
  /**
   * The tool is known only from the approved-tool list, which does not include the additional websites it needs; a
   * save of the list would drop them.
   */
  readonly resourceRulesUnknown?: boolean;
}

export function toolRowOf(tool: ExternalToolConfig): ToolRow {
  return {
    rowId: newRowId('tool'),
    id: tool.id,
    label: tool.label,
    url: tool.url,
    enabled: tool.enabled,
    managedByAdmin: tool.managedByAdmin,
    resourceRules: ruleRowsOf(tool.resourceRules),
    stored: tool,
  };
}

export function emptyToolRow(): ToolRow {
  return { rowId: newRowId('tool'), label: '', url: '', enabled: true, managedByAdmin: false, resourceRules: [] };
}

/** One submitted tool and, for each of its submitted resource rules, the rule row it came from. */
export interface SubmittedTool {
  readonly tool: Record<string, unknown>;
  readonly rowId: string;
  readonly ruleRowIds: readonly string[];
}

export function submitTool(row: ToolRow): SubmittedTool {
  if (row.managedByAdmin && row.stored !== undefined) {
    // School-managed: only the switch is the teacher's; echoing the stored definition is what the server accepts.
    return { tool: { ...row.stored, enabled: row.enabled }, rowId: row.rowId, ruleRowIds: [] };
  }
  const { rules, rowIds } = submitRules(row.resourceRules);
  return {
    tool: {
      ...(row.id !== undefined ? { id: row.id } : {}),
      label: row.label.trim(),
      url: row.url.trim(),
      enabled: row.enabled,
      resourceRules: rules,
    },
    rowId: row.rowId,
    ruleRowIds: rowIds,
  };
}

/** Rows without any content are not sent; a half-filled row is, so the server can say what is missing. */
export function isBlankTool(row: ToolRow): boolean {
  return row.label.trim() === '' && row.url.trim() === '' && row.resourceRules.every((rule) => rule.value.trim() === '');
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
