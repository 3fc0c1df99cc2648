/** The tools of one assessment: its selection from the course catalog and the tools defined for it alone. */
import { fail, type ExbPolicyError, type PolicyPath, type PolicyResult } from './errors.js';
import { EXB_POLICY_LIMITS } from './limits.js';
import { policyMessage } from './messages.js';
import type { ExternalToolConfig } from './schemas.js';
import { duplicateId, normalizeExternalTool, toolList, type ToolNormalizationOptions } from './tools.js';
import { ErrorCodes } from '../error-codes.js';

/**
 * Tools defined for one assessment (`quizOnlyExternalTools`): at most 10, never school-managed (`managedByAdmin: true`
 * is refused, `presetId` dropped), ids unique and distinct from the course catalog's ids so a selection and an
 * approved-tool list stay unambiguous. Errors are `INVALID_EXB_TOOL_POLICY`.
 */
export function normalizeQuizOnlyTools(
  input: unknown,
  options: ToolNormalizationOptions & { readonly courseToolIds?: Iterable<string> },
  path: PolicyPath = [],
): PolicyResult<ExternalToolConfig[]> {
  const list = toolList(input, EXB_POLICY_LIMITS.quizOnlyTools, path);
  if (!list.ok) return list;
  const courseIds = new Set(options.courseToolIds ?? []);
  const ids = new Set<string>();
  const tools: ExternalToolConfig[] = [];
  for (const [index, item] of list.value.entries()) {
    const itemPath = [...path, index];
    const normalized = normalizeExternalTool(item, options, itemPath);
    if (!normalized.ok) return normalized;
    if (normalized.value.managedByAdmin) {
      return fail(ErrorCodes.INVALID_EXB_TOOL_POLICY, policyMessage('tool.assessmentManaged'), [...itemPath, 'managedByAdmin']);
    }
    const { presetId: _ignored, ...tool } = normalized.value;
    if (ids.has(tool.id)) return duplicateId(itemPath);
    if (courseIds.has(tool.id)) {
      return fail(ErrorCodes.INVALID_EXB_TOOL_POLICY, policyMessage('tool.reusesCourseId'), [...itemPath, 'id']);
    }
    ids.add(tool.id);
    tools.push(tool);
  }
  return { ok: true, value: tools };
}

/**
 * An assessment's course tool selection (`externalToolIds`): `null` inherits the whole course catalog; otherwise a
 * list of ids of tools in `catalog` (switched-off ones included; they stay out of configurations until switched on).
 * Duplicates are dropped. Anything else gives `INVALID_EXB_TOOL_SELECTION`.
 */
export function normalizeToolSelection(
  input: unknown,
  catalog: readonly Pick<ExternalToolConfig, 'id'>[],
  path: PolicyPath = [],
): PolicyResult<string[] | null> {
  if (input === null) return { ok: true, value: null };
  if (!Array.isArray(input)) {
    return fail(ErrorCodes.INVALID_EXB_TOOL_SELECTION, policyMessage('selection.expected'), path);
  }
  if (input.length > EXB_POLICY_LIMITS.catalogTools) {
    return fail(ErrorCodes.INVALID_EXB_TOOL_SELECTION, policyMessage('selection.tooMany'), path);
  }
  const known = new Set(catalog.map((tool) => tool.id));
  const selected: string[] = [];
  for (const [index, id] of input.entries()) {
    if (typeof id !== 'string' || !known.has(id)) {
      // The one refusal of a selection the teacher view can meet (a tool removed in another window): said in its words.
      return fail(ErrorCodes.INVALID_EXB_TOOL_SELECTION, policyMessage('selection.unknownTool'), [...path, index]);
    }
    if (!selected.includes(id)) selected.push(id);
  }
  return { ok: true, value: selected };
}

/**
 * The structured per-assessment endpoint takes tool selections and assessment tools only; course tool definitions go
 * through the course defaults. Returns `QUIZ_TOOL_DEFINITIONS_NOT_ALLOWED` when the body carries `externalTools`.
 */
export function checkNoQuizToolDefinitions(body: unknown): ExbPolicyError | null {
  if (typeof body === 'object' && body !== null && Object.prototype.hasOwnProperty.call(body, 'externalTools')) {
    return { errorCode: ErrorCodes.QUIZ_TOOL_DEFINITIONS_NOT_ALLOWED, ...policyMessage('tool.definitionsNotAllowed'), path: ['externalTools'] };
  }
  return null;
}
