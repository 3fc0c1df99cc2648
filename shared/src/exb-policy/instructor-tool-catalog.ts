/** An instructor's edit of a course catalog: school-managed tools stay as the administrator rolled them out. */
import { z } from 'zod';
import { fail, firstZodIssue, type PolicyPath, type PolicyResult } from './errors.js';
import { EXB_POLICY_LIMITS } from './limits.js';
import { policyMessage } from './messages.js';
import { idSchema, type ExbUrlRule, type ExternalToolConfig } from './schemas.js';
import { duplicateId, normalizeExternalTool, toolList, type ToolNormalizationOptions } from './tools.js';
import { ErrorCodes } from '../error-codes.js';

const managedEditSchema = z.object({
  id: idSchema,
  enabled: z.boolean().optional(),
  managedByAdmin: z.boolean().optional(),
  presetId: z.string().max(64).optional(),
  label: z.unknown().optional(),
  url: z.unknown().optional(),
  resourceRules: z.unknown().optional(),
});

const MANAGED_TOOL_LOCKED = policyMessage('tool.managedLocked');

/**
 * Applies an instructor's replacement catalog (`PUT .../defaults` with `externalTools`) to the stored one.
 *
 * - School-managed tools (`managedByAdmin: true` in `existing`) keep their definition. The submission may switch one
 *   on or off by id; any other field it sends must equal the stored value after normalization, else
 *   `INVALID_EXB_TOOL_POLICY`. A school-managed tool left out of the submission is kept unchanged: only the
 *   administrator who rolled it out removes it.
 * - Every other submitted tool becomes an instructor tool: `managedByAdmin: false`, no `presetId`. Claiming
 *   `managedByAdmin: true` for an id that is not a stored school-managed tool is refused.
 * - Ids must be unique and the result holds at most 50 tools.
 */
export function mergeInstructorToolCatalog(
  existing: readonly ExternalToolConfig[],
  submitted: unknown,
  options: ToolNormalizationOptions,
  path: PolicyPath = [],
): PolicyResult<ExternalToolConfig[]> {
  const list = toolList(submitted, EXB_POLICY_LIMITS.catalogTools, path);
  if (!list.ok) return list;
  const managed = new Map(existing.filter((tool) => tool.managedByAdmin).map((tool) => [tool.id, tool]));
  const result: ExternalToolConfig[] = [];
  const ids = new Set<string>();
  for (const [index, item] of list.value.entries()) {
    const itemPath = [...path, index];
    const itemId = typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : undefined;
    const stored = typeof itemId === 'string' ? managed.get(itemId) : undefined;
    let tool: ExternalToolConfig;
    if (stored !== undefined) {
      const edit = applyManagedToolEdit(stored, item, options, itemPath);
      if (!edit.ok) return edit;
      tool = edit.value;
    } else {
      if (typeof item === 'object' && item !== null && (item as { managedByAdmin?: unknown }).managedByAdmin === true) {
        return fail(ErrorCodes.INVALID_EXB_TOOL_POLICY, policyMessage('tool.adminOnly'), [...itemPath, 'managedByAdmin']);
      }
      const normalized = normalizeExternalTool(item, options, itemPath);
      if (!normalized.ok) return normalized;
      const { presetId: _ignored, ...rest } = normalized.value;
      tool = { ...rest, managedByAdmin: false };
    }
    if (ids.has(tool.id)) return duplicateId(itemPath);
    ids.add(tool.id);
    result.push(tool);
  }
  for (const tool of existing) {
    if (tool.managedByAdmin && !ids.has(tool.id)) result.push(tool);
  }
  if (result.length > EXB_POLICY_LIMITS.catalogTools) {
    return fail(ErrorCodes.INVALID_EXB_TOOL_POLICY, policyMessage('tool.tooMany', { max: EXB_POLICY_LIMITS.catalogTools }), path);
  }
  return { ok: true, value: result };
}

function applyManagedToolEdit(
  stored: ExternalToolConfig,
  input: unknown,
  options: ToolNormalizationOptions,
  path: PolicyPath,
): PolicyResult<ExternalToolConfig> {
  const parsed = managedEditSchema.safeParse(input);
  if (!parsed.success) return firstZodIssue(parsed.error, ErrorCodes.INVALID_EXB_TOOL_POLICY, path);
  const edit = parsed.data;
  if (edit.managedByAdmin === false) return fail(ErrorCodes.INVALID_EXB_TOOL_POLICY, MANAGED_TOOL_LOCKED, [...path, 'managedByAdmin']);
  if (edit.presetId !== undefined && edit.presetId.toLowerCase() !== stored.presetId) {
    return fail(ErrorCodes.INVALID_EXB_TOOL_POLICY, MANAGED_TOOL_LOCKED, [...path, 'presetId']);
  }
  if (edit.label !== undefined || edit.url !== undefined || edit.resourceRules !== undefined) {
    // Normalizing the submitted fields over the stored ones compares in canonical form, so echoing back what the
    // server returned always passes; read as stored, so a definition saved under older rules can still be echoed.
    const candidate = normalizeExternalTool(
      {
        id: stored.id,
        label: edit.label ?? stored.label,
        url: edit.url ?? stored.url,
        resourceRules: edit.resourceRules ?? stored.resourceRules,
      },
      { ...options, check: 'stored' },
      path,
    );
    if (!candidate.ok) return fail(ErrorCodes.INVALID_EXB_TOOL_POLICY, MANAGED_TOOL_LOCKED, candidate.error.path);
    const sameRules =
      candidate.value.resourceRules.length === stored.resourceRules.length &&
      candidate.value.resourceRules.every((rule, index) => sameRule(rule, stored.resourceRules[index]));
    if (candidate.value.label !== stored.label) return fail(ErrorCodes.INVALID_EXB_TOOL_POLICY, MANAGED_TOOL_LOCKED, [...path, 'label']);
    if (candidate.value.url !== stored.url) return fail(ErrorCodes.INVALID_EXB_TOOL_POLICY, MANAGED_TOOL_LOCKED, [...path, 'url']);
    if (!sameRules) return fail(ErrorCodes.INVALID_EXB_TOOL_POLICY, MANAGED_TOOL_LOCKED, [...path, 'resourceRules']);
  }
  return { ok: true, value: { ...stored, enabled: edit.enabled ?? stored.enabled } };
}

function sameRule(a: ExbUrlRule, b: ExbUrlRule | undefined): boolean {
  return (
    b !== undefined &&
    a.match === b.match &&
    a.value === b.value &&
    a.id === b.id &&
    a.label === b.label &&
    a.broadDomainConfirmed === b.broadDomainConfirmed
  );
}
