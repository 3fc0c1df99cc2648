import type { PresetTool } from '@exb/shared/admin-tool-presets.js';
import type { StoredPreset } from './preset-store.js';

/** Document 2 "Preset", with the tool's resource rules and the times the dashboard shows. */
export interface PresetView {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly tool: PresetTool;
  readonly assignedCourseIds: string[];
  readonly assignedCourseCount: number;
  readonly pendingAssignmentCount: number;
  readonly failedAssignmentCount: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export function presetView(preset: StoredPreset): PresetView {
  return {
    id: preset.id,
    name: preset.name,
    description: preset.description,
    tool: preset.tool,
    assignedCourseIds: preset.assignedCourseIds,
    assignedCourseCount: preset.assignedCourseIds.length,
    pendingAssignmentCount: preset.pendingAssignmentCount,
    failedAssignmentCount: preset.failedAssignmentCount,
    createdAt: preset.createdAt.toISOString(),
    updatedAt: preset.updatedAt.toISOString(),
  };
}

/** One recorded change of a preset, as the dashboard's history lists it. */
export interface PresetHistoryEntry {
  readonly id: string;
  readonly occurredAt: string;
  readonly action: string;
  readonly outcome: string;
  readonly actorName: string | null;
  readonly actorLmsUserId: string | null;
  readonly courseId: string | null;
  readonly details: Record<string, unknown>;
}
