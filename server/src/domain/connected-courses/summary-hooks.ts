import type { LmsApi } from '../../lms/api.js';

/**
 * What the administrator's summary asks of the tool presets that build on the connected courses: their counts, and a
 * bounded pass of their rollout. The summary names only these, so `admin/` needs nothing of `presets/`.
 */

/** The tool-preset side of the summary. */
export interface PresetCounts {
  readonly toolPresetCount: number;
  readonly pendingPresetAssignmentCount: number;
  readonly failedPresetAssignmentCount: number;
}

export interface PresetCountSource {
  counts(accountId: string): Promise<PresetCounts>;
}

/** Brings at most `batchSize` courses' preset assignments up to date; nothing to do while there are no presets. */
export interface AdminReconciler {
  reconcile(accountId: string, lms: LmsApi, batchSize: number): Promise<void>;
}
