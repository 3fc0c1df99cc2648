import { ErrorCodes } from '@exb/shared/error-codes.js';
import { presetToolId, type PresetTool } from '@exb/shared/admin-tool-presets.js';
import { EXB_POLICY_LIMITS, type ExternalToolConfig } from '@exb/shared/exb-policy.js';

/** A preset wanted in a course, with the definition it has now. */
export interface DesiredPreset {
  readonly presetId: string;
  readonly tool: PresetTool;
}

export type CatalogSync =
  | {
      readonly ok: true;
      readonly tools: ExternalToolConfig[];
      /** Ids of school-managed tools that left the catalog; assessments' selections of them go too. */
      readonly removedToolIds: string[];
      /** Whether the catalog differs from the current one at all. */
      readonly changed: boolean;
    }
  | { readonly ok: false; readonly reason: typeof ErrorCodes.CATALOG_FULL | typeof ErrorCodes.TOOL_ID_TAKEN };

function sameTool(a: ExternalToolConfig, b: ExternalToolConfig): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The course catalog that holds exactly the presets desired for the course (synchronization, Document 2). Pure.
 *
 * - Instructor tools stay as they are, in their order.
 * - Each desired preset is one school-managed tool (`managedByAdmin: true`, its `presetId`, id `preset-<uuid>`), with
 *   the preset's current definition. The on/off switch is the instructor's, so an existing tool keeps it; a new one
 *   starts on.
 * - Every other school-managed tool (an unassigned preset, or one whose preset no longer exists) leaves.
 *
 * A catalog that would exceed 50 tools, or an instructor tool that happens to use a preset's tool id, is a failure to
 * report, never a silent drop of someone's tool.
 */
export function synchronizeCatalog(current: readonly ExternalToolConfig[], desired: readonly DesiredPreset[]): CatalogSync {
  const instructorTools = current.filter((tool) => !tool.managedByAdmin);
  const existingManaged = new Map(current.filter((tool) => tool.managedByAdmin).map((tool) => [tool.id, tool]));
  const instructorIds = new Set(instructorTools.map((tool) => tool.id));
  const managed: ExternalToolConfig[] = [];
  for (const preset of [...desired].sort((a, b) => (a.presetId < b.presetId ? -1 : 1))) {
    const id = presetToolId(preset.presetId);
    if (instructorIds.has(id)) return { ok: false, reason: ErrorCodes.TOOL_ID_TAKEN };
    managed.push({
      id,
      label: preset.tool.label,
      url: preset.tool.url,
      resourceRules: [...preset.tool.resourceRules],
      managedByAdmin: true,
      presetId: preset.presetId.toLowerCase(),
      enabled: existingManaged.get(id)?.enabled ?? true,
    });
  }
  const tools = [...instructorTools, ...managed];
  if (tools.length > EXB_POLICY_LIMITS.catalogTools) return { ok: false, reason: ErrorCodes.CATALOG_FULL };
  const kept = new Set(managed.map((tool) => tool.id));
  const removedToolIds = [...existingManaged.keys()].filter((id) => !kept.has(id));
  const changed = tools.length !== current.length || tools.some((tool, index) => !sameTool(tool, current[index]!));
  return { ok: true, tools, removedToolIds, changed };
}
